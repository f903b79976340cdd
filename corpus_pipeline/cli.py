"""`corpus-pipeline <verb>`: parse arguments, build the executor, call one stage function."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from corpus_pipeline.config import ConfigError, PipelineConfig, load_config
from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.summary import format_funnel

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def _common(parser: argparse.ArgumentParser, runner_default: str = "spark") -> None:
    parser.add_argument("--config", help="YAML config (configs/demo.yaml); defaults apply without one")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config value, e.g. --set langid.min_score=0.7 (repeatable)",
    )
    parser.add_argument(
        "--runner",
        choices=("spark", "local"),
        default=runner_default,
        help="spark: a Spark job (local[*] unless spark-submit set a master); local: this process only",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corpus-pipeline",
        description="Web crawls to clean, deduplicated, tokenized pretraining corpora, on Spark. "
        "Each verb runs one stage; `corpus-pipeline VERB --help` for its options.",
    )
    verbs = parser.add_subparsers(dest="verb", required=True)

    extract = verbs.add_parser("extract", help="WARC/WET/ARC files -> documents (trafilatura)")
    extract.add_argument("--input", nargs="+", required=True, help="WARC/WET/ARC files, globs or directories")
    extract.add_argument("--output", required=True, type=Path)
    _common(extract)

    for verb, text in (("langid", "language ID (fastText lid.176)"), ("normalize", "Unicode/whitespace cleanup")):
        stage = verbs.add_parser(verb, help=text)
        stage.add_argument("--input", required=True, type=Path, help="a stage output directory")
        stage.add_argument("--output", required=True, type=Path)
        _common(stage)

    demo = verbs.add_parser("demo", help="serve the demo site, crawl it and run the whole pipeline on the crawl")
    demo.add_argument("--output", type=Path, help="run directory (default: <data_root>/runs/<run_id>)")
    _common(demo)

    evaluate = verbs.add_parser("eval", help="accuracy of a stage on labelled data")
    targets = evaluate.add_subparsers(dest="target", required=True)
    extraction = targets.add_parser("extraction", help="precision/recall/F1 of extract against gold text")
    extraction.add_argument("--warc", required=True)
    extraction.add_argument("--gold", required=True)
    extraction.add_argument(
        "--id-header", default="WARC-Bench-Id", help="WARC header naming the gold page (else pages match by URL)"
    )
    extraction.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    _common(extraction, runner_default="local")
    langid = targets.add_parser("langid", help="accuracy of langid on DIR/<iso>.txt sentence files")
    langid.add_argument("--sentences", required=True)
    langid.add_argument("--max-per-language", type=int)
    langid.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    _common(langid, runner_default="local")
    _register_stage_families(verbs, targets)
    return parser


def _register_stage_families(verbs, eval_targets) -> None:
    """Stage families register their own verbs; each sets `handler(args, config) -> exit code`."""
    from corpus_pipeline.crawl import cli as crawl_cli
    from corpus_pipeline.dedup import cli as dedup_cli
    from corpus_pipeline.pii import cli as pii_cli
    from corpus_pipeline.pipeline import cli as pipeline_cli
    from corpus_pipeline.quality import cli as quality_cli
    from corpus_pipeline.report import cli as report_cli
    from corpus_pipeline.tokenize import cli as tokenize_cli
    from corpus_pipeline.train import cli as train_cli

    crawl_cli.register(verbs)
    dedup_cli.register(verbs)
    dedup_cli.add_eval_target(eval_targets)
    pii_cli.register(verbs)
    pii_cli.add_eval_target(eval_targets)
    quality_cli.register(verbs)
    pipeline_cli.register(verbs)
    report_cli.register(verbs)
    tokenize_cli.register(verbs)
    train_cli.register(verbs)


def _report(results: list[StageResult]) -> None:
    print(format_funnel([r.stats for r in results], {r.stats.stage for r in results if r.skipped}))
    for result in results:
        print(f"{result.stats.stage}: {result.output}")


def _run_stage_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.stages import DOCUMENT_STAGES, make_executor, run_extract

    executor = make_executor(config, args.runner)
    if args.verb == "extract":
        result = run_extract(args.input, args.output, config, executor)
    else:
        result = DOCUMENT_STAGES[args.verb](args.input, args.output, config, executor)
    _report([result])
    return EXIT_OK


def _run_demo(args, config: PipelineConfig) -> int:
    from corpus_pipeline.demo_run import run_demo
    from corpus_pipeline.pipeline.console import run_summary

    result = run_demo(config, args.runner, args.output)
    print(run_summary(result))
    return result.exit_code


def _run_eval(args, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.stages import make_executor
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
    args = build_parser().parse_args(argv)
    try:
        config = load_config(args.config, args.overrides)
    except (ConfigError, OSError) as error:
        print(f"corpus-pipeline: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        handler = getattr(args, "handler", None)
        if handler is not None:
            return handler(args, config)
        if args.verb == "demo":
            return _run_demo(args, config)
        if args.verb == "eval":
            return _run_eval(args, config)
        return _run_stage_verb(args, config)
    except (FileNotFoundError, ValueError) as error:
        print(f"corpus-pipeline {args.verb}: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
