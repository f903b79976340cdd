"""`corpus-pipeline <verb>`: the stage verbs (from the registry), demo, eval and every family's verbs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from corpus_pipeline import stage_cli
from corpus_pipeline.cli_options import add_runner_options
from corpus_pipeline.config import ConfigError, PipelineConfig, load_config

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corpus-pipeline",
        description="Web crawls to clean, deduplicated, tokenized pretraining corpora, on Spark. "
        "Each verb runs one stage; `corpus-pipeline VERB --help` for its options.",
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    stage_parsers = stage_cli.register(verbs)

    demo = verbs.add_parser("demo", help="serve the demo site, crawl it and run the whole pipeline on the crawl")
    demo.add_argument("--output", type=Path, help="run directory (default: <data_root>/runs/<run_id>)")
    add_runner_options(demo)

    evaluate = verbs.add_parser("eval", help="accuracy of a stage on labelled data")
    targets = evaluate.add_subparsers(dest="target", required=True)
    extraction = targets.add_parser("extraction", help="precision/recall/F1 of extract against gold text")
    extraction.add_argument("--warc", required=True)
    extraction.add_argument("--gold", required=True)
    extraction.add_argument(
        "--id-header", default="WARC-Bench-Id", help="WARC header naming the gold page (else pages match by URL)"
    )
    extraction.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_runner_options(extraction, runner_default="local")
    langid = targets.add_parser("langid", help="accuracy of langid on DIR/<iso>.txt sentence files")
    langid.add_argument("--sentences", required=True)
    langid.add_argument("--max-per-language", type=int)
    langid.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_runner_options(langid, runner_default="local")
    _register_families(verbs, targets, stage_parsers)
    return parser


def _register_families(verbs, eval_targets, stage_parsers) -> None:
    """Verbs beyond the stages (evals, gates, shards, report, run, train...); each sets
    `handler(args, config) -> exit code`."""
    from corpus_pipeline.crawl import cli as crawl_cli
    from corpus_pipeline.decontam import cli as decontam_cli
    from corpus_pipeline.dedup import cli as dedup_cli
    from corpus_pipeline.export import cli as export_cli
    from corpus_pipeline.pii import cli as pii_cli
    from corpus_pipeline.pipeline import cli as pipeline_cli
    from corpus_pipeline.quality import cli as quality_cli
    from corpus_pipeline.report import cli as report_cli
    from corpus_pipeline.tokenize import cli as tokenize_cli
    from corpus_pipeline.train import cli as train_cli

    crawl_cli.register(verbs)
    dedup_cli.add_eval_target(eval_targets)
    export_cli.register(verbs)
    decontam_cli.add_eval_target(eval_targets)
    pii_cli.add_eval_target(eval_targets)
    quality_cli.register(verbs, stage_parsers["quality"])
    pipeline_cli.register(verbs)
    report_cli.register(verbs)
    tokenize_cli.register(verbs)
    train_cli.register(verbs)


def _run_demo(args, config: PipelineConfig) -> int:
    from corpus_pipeline.demo_run import run_demo
    from corpus_pipeline.pipeline.console import run_summary

    result = run_demo(config, args.runner, args.output)
    print(run_summary(result))
    return result.exit_code


def _run_eval(args, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.run import make_executor
    from corpus_pipeline.evaluation.commands import evaluate_extraction, evaluate_langid

    if args.target == "extraction":
        report = evaluate_extraction(args.warc, args.gold, config, make_executor(config, args.runner), args.id_header)
    else:
        report = evaluate_langid(args.sentences, config, args.max_per_language)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    from corpus_pipeline.engine.stage_dir import OutputOverlapsInputError
    from corpus_pipeline.storage import StorageAccessError
    from corpus_pipeline.storage import configure as configure_storage

    args = build_parser().parse_args(argv)
    try:
        config = load_config(args.config, args.overrides)
    except (ConfigError, OSError) as error:
        print(f"corpus-pipeline: {error}", file=sys.stderr)
        return EXIT_USAGE
    configure_storage(config.storage)
    try:
        handler = getattr(args, "handler", None)
        if handler is not None:
            return handler(args, config)
        if args.verb == "demo":
            return _run_demo(args, config)
        return _run_eval(args, config)
    # ConfigError: a source's own config, checked as it starts; StorageAccessError: a missing bucket
    # or refused credentials, found while listing the input, before any task runs.
    except (OutputOverlapsInputError, ConfigError, StorageAccessError) as error:
        print(f"corpus-pipeline {args.verb}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (FileNotFoundError, ValueError) as error:
        print(f"corpus-pipeline {args.verb}: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
