"""CLI verbs of the tokenize package: train-tokenizer, tokenize, shards verify, shards inspect.

`register(verbs)` adds them to the sub-parsers of `corpus_pipeline.cli.build_parser`; each sets
`handler(args, config) -> exit code`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from corpus_pipeline.config import PipelineConfig, TrainTokenizerConfig

EXIT_OK, EXIT_FAULTS = 0, 1


def register(verbs) -> None:
    from corpus_pipeline.cli import _common  # here, not at import: corpus_pipeline.cli imports this module

    train = verbs.add_parser("train-tokenizer", help="byte-level BPE on a seeded, language-mixed sample")
    train.add_argument("--input", required=True, type=Path, help="a stage output directory (documents)")
    train.add_argument("--output", required=True, type=Path, help="tokenizer.json to write")
    train.add_argument("--vocab-size", type=int, help="overrides train_tokenizer.vocab_size")
    _common(train)
    train.set_defaults(handler=_train)

    tokenize = verbs.add_parser("tokenize", help="documents -> Megatron .bin/.idx token shards + manifest.json")
    tokenize.add_argument("--input", required=True, type=Path, help="a stage output directory (documents)")
    tokenize.add_argument("--tokenizer", required=True, type=Path, help="tokenizer.json (ours or any HF one)")
    tokenize.add_argument("--output", required=True, type=Path, help="the token-shard directory")
    _common(tokenize)
    tokenize.set_defaults(handler=_tokenize)

    shards = verbs.add_parser("shards", help="check or look into a token-shard directory")
    actions = shards.add_subparsers(dest="shards_action", required=True)
    verify = actions.add_parser("verify", help="headers, sizes, pointers, ids, end-of-document tokens, checksums")
    verify.add_argument("directory", type=Path)
    verify.add_argument("--no-checksums", action="store_true", help="skip sha256 (the token checks still read .bin)")
    verify.set_defaults(handler=_verify, config=None, overrides=[])
    inspect = actions.add_parser("inspect", help="counts, length histogram, first documents decoded")
    inspect.add_argument("directory", type=Path)
    inspect.add_argument("--documents", type=int, default=3, help="how many documents to decode (default 3)")
    inspect.set_defaults(handler=_inspect, config=None, overrides=[])


def _train(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.stages import make_executor
    from corpus_pipeline.tokenize.runner import run_train_tokenizer

    if args.vocab_size is not None:  # validated like the config key it overrides
        settings = {**config.train_tokenizer.model_dump(), "vocab_size": args.vocab_size}
        config = config.model_copy(update={"train_tokenizer": TrainTokenizerConfig.model_validate(settings)})
    result = run_train_tokenizer(args.input, args.output, config, make_executor(config, args.runner))
    state = "reused (same input and config)" if result.skipped else f"trained in {result.seconds:,.1f} s"
    print(f"{result.tokenizer}: {result.vocab_size:,} ids, sha256 {result.sha256}, {state}")
    print(f"  {'language':<10}{'corpus docs':>12}{'corpus MB':>11}{'weight':>8}{'sample docs':>13}{'sample MB':>11}")
    for language, share in result.sample["languages"].items():
        print(
            f"  {language:<10}{share['corpus_docs']:>12,}{share['corpus_bytes'] / 1e6:>11.1f}{share['weight']:>8.3f}"
            f"{share['sample_docs']:>13,}{share['sample_bytes'] / 1e6:>11.1f}"
        )
    for note in result.sample["notes"]:
        print(f"  note: {note}")
    return EXIT_OK


def _tokenize(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.stages import make_executor
    from corpus_pipeline.summary import format_funnel
    from corpus_pipeline.tokenize.manifest import read_manifest
    from corpus_pipeline.tokenize.runner import run_tokenize

    result = run_tokenize(args.input, args.tokenizer, args.output, config, make_executor(config, args.runner))
    print(format_funnel([result.stats], {result.stats.stage} if result.skipped else set()))
    manifest = read_manifest(result.output)
    print(
        f"{result.output}: {len(manifest['shards'])} shards, {manifest['documents']:,} documents, "
        f"{manifest['tokens']:,} tokens ({manifest['dtype']})"
    )
    return EXIT_OK


def _verify(args: argparse.Namespace, config: PipelineConfig | None) -> int:
    from corpus_pipeline.tokenize.verify import verify_shards

    report = verify_shards(args.directory, checksums=not args.no_checksums)
    print(report.format())
    return EXIT_OK if report.ok else EXIT_FAULTS


def _inspect(args: argparse.Namespace, config: PipelineConfig | None) -> int:
    from corpus_pipeline.tokenize.shard_inspect import inspect_shards

    print(inspect_shards(args.directory, documents=args.documents))
    return EXIT_OK
