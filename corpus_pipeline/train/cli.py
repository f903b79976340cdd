"""CLI verbs `train` and `ablate`. Run them as they are for one process, or under torchrun:

    torchrun --nproc_per_node 8 -m corpus_pipeline.cli train --shards DIR --config configs/train_gpt-124m.yaml

Exit codes: 0 done; 1 refused input (the message names it), or stopped by the health monitor after
health.max_rollbacks (the last good checkpoint on disk); 2 bad config, an --out holding another run
without --resume, or a checkpoint that is not this trainer's; 75 restart_every_hours reached
(checkpoint written); 124 a data wait exceeded timeout_s (watchdog.py); 143 stopped by SIGTERM after
writing a checkpoint. After 75, 124, 143 and a health stop, `--resume` continues from the checkpoint on disk.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from corpus_pipeline.config import ConfigError

EXIT_OK, EXIT_INPUT, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 143
EXIT_RESTART = 75  # EX_TEMPFAIL: "try again", which is what torchrun --max-restarts does


def register(verbs) -> None:
    train = verbs.add_parser("train", help="train a GPT on token shards (one process, or every rank under torchrun)")
    train.add_argument(
        "--shards",
        required=True,
        help="a token-shard directory (tokenize or mix), a run directory (the shards its mix or tokenize stage "
        "published), or an s3:// shard directory, copied to --cache first",
    )
    train.add_argument(
        "--out",
        type=Path,
        help="checkpoints and logs; refused when it holds another run's, unless --resume (default: train_<preset> "
        "in the shards' run directory; s3://: required)",
    )
    train.add_argument(
        "--cache",
        type=Path,
        help="where s3:// shards are copied (default: $CORPUS_PIPELINE_CACHE, else ~/.cache/corpus_pipeline/shards)",
    )
    train.add_argument(
        "--resume",
        nargs="?",
        const="yes",
        choices=("yes", "auto"),
        help="continue OUT's checkpoint exactly; `--resume auto`: continue it when there is one, else start "
        "(for torchrun --max-restarts and requeued jobs)",
    )
    _config_arguments(train)
    train.set_defaults(handler=_train)

    ablate = verbs.add_parser(
        "ablate", help="same model, same tokens, two corpora: which gives the lower held-out loss"
    )
    ablate.add_argument("--a", required=True, type=Path, help="token shards of corpus A (e.g. before a filter)")
    ablate.add_argument("--b", required=True, type=Path, help="token shards of corpus B (e.g. after it)")
    ablate.add_argument("--eval", required=True, type=Path, help="token shards held out from both")
    ablate.add_argument("--out", required=True, type=Path, help="the two runs go to OUT/a and OUT/b")
    _config_arguments(ablate)
    ablate.set_defaults(handler=_ablate)


def _config_arguments(parser: argparse.ArgumentParser) -> None:
    # Own dests: the top-level `--config` is the pipeline's config, validated before handlers run.
    parser.add_argument("--config", dest="train_config", help="configs/train_<preset>.yaml (default: preset tiny)")
    parser.add_argument(
        "--set",
        dest="train_overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one training setting, e.g. --set model.n_layer=4 (repeatable)",
    )
    parser.set_defaults(config=None, overrides=[])


def _load(args):
    from corpus_pipeline.train.config import load_train_config

    return load_train_config(args.train_config, args.train_overrides)


def _run(args, body) -> int:
    from corpus_pipeline.train.checkpoint import CheckpointError
    from corpus_pipeline.train.distributed import setup_distributed
    from corpus_pipeline.train.preflight import PreflightError
    from corpus_pipeline.train.train import OutputInUseError

    try:
        config = _load(args)
    except ConfigError as error:
        print(f"corpus-pipeline {args.verb}: {error}", file=sys.stderr)
        return EXIT_CONFIG
    dist = setup_distributed(config.device, config.timeout_s)
    try:
        return body(config, dist)
    except (ConfigError, OutputInUseError, CheckpointError) as error:
        print(f"corpus-pipeline {args.verb}: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except (PreflightError, FileNotFoundError, ValueError) as error:
        print(f"corpus-pipeline {args.verb}: {error}", file=sys.stderr)
        return EXIT_INPUT
    finally:
        dist.close()


def _train(args, pipeline_config) -> int:
    from corpus_pipeline.storage.locations import renames
    from corpus_pipeline.train.checkpoint import has_checkpoint
    from corpus_pipeline.train.train import train

    if not renames(args.shards) and args.out is None:  # the default --out is beside the shards
        print("corpus-pipeline train: --out is required with s3:// shards (checkpoints are local)", file=sys.stderr)
        return EXIT_CONFIG

    def body(config, dist) -> int:
        shards = _local_shards(args.shards, args.cache, pipeline_config, config, dist)
        if config.val_shards:
            val_shards = _local_shards(config.val_shards, args.cache, pipeline_config, config, dist)
            config = config.model_copy(update={"val_shards": str(val_shards)})
        out = args.out or shards.resolve().parent / f"train_{config.preset}"
        resume = args.resume == "yes" or (args.resume == "auto" and has_checkpoint(out))
        result = train(shards, out, config, dist, resume=resume)
        if dist.is_main:
            state = f"stopped ({result.stopped_by}) at" if result.interrupted else "finished at"
            print(f"train: {state} step {result.step}; validation loss {result.val_loss}; {out}")
        codes = {"health": EXIT_INPUT, "restart": EXIT_RESTART, "sigterm": EXIT_INTERRUPTED}
        return codes[result.stopped_by] if result.interrupted else EXIT_OK

    return _run(args, body)


def _local_shards(shards: str, cache: Path | None, pipeline_config, config, dist) -> Path:
    """A local shard directory as given; an s3:// one copied to the node's cache (shard_cache.py)."""
    from corpus_pipeline.storage import Storage
    from corpus_pipeline.storage.locations import local_path
    from corpus_pipeline.tokenize.shard_cache import cached_shards, default_cache_dir
    from corpus_pipeline.train.shard_source import find_shards

    if (local := local_path(shards)) is not None:
        directory, stage = find_shards(local)
        if stage is not None and dist.is_main:
            print(f"train: the shards the {stage} stage published: {directory}", flush=True)
        return directory
    copy = cached_shards(
        shards,
        cache or default_cache_dir(),
        Storage(pipeline_config.storage),
        checksums=config.verify_shards == "checksums",
        local_rank=dist.local_rank,
        barrier=dist.barrier,
    )
    if dist.is_main:
        print(f"train: {copy.format()}", flush=True)
    return copy.directory


def _ablate(args, _pipeline_config) -> int:
    from corpus_pipeline.train.ablate import ablate

    def body(config, dist) -> int:
        ablation = ablate(args.a, args.b, args.eval, args.out, config, dist)
        if dist.is_main:
            print(ablation.format(str(args.a), str(args.b)))
        return EXIT_INTERRUPTED if ablation.a.interrupted or ablation.b.interrupted else EXIT_OK

    return _run(args, body)
