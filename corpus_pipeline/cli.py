"""`corpus-pipeline <verb>`: the stage verbs (from the registry), demo, eval and every family's verbs."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

from corpus_pipeline import exit_codes, failures, stage_cli
from corpus_pipeline.cli_options import add_runner_options
from corpus_pipeline.config import PipelineConfig, load_config

EXIT_OK, EXIT_ERROR, EXIT_USAGE = exit_codes.SUCCESS, exit_codes.ERROR, exit_codes.USAGE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corpus-pipeline",
        description="Web crawls to clean, deduplicated, tokenized pretraining corpora, on Spark. "
        "Each verb runs one stage; `corpus-pipeline VERB --help` for its options.",
        epilog=exit_codes.describe() + "\n\n--debug (anywhere on the line): the traceback of a failure too",
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    quality_cli.add_eval_target(eval_targets)
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
    from corpus_pipeline.evaluation.commands import evaluate_extraction, evaluate_langid
    from corpus_pipeline.stage_runner import make_executor

    if args.target == "extraction":
        report = evaluate_extraction(
            args.warc, args.gold, config, make_executor(config, args.runner, args.work), args.id_header
        )
    else:
        report = evaluate_langid(args.sentences, config, args.max_per_language)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


class _PandasHidden:
    """A finder first on sys.meta_path that says pandas is not there (sys.modules["pandas"] = None
    is not enough: pyarrow's Cython import takes the None for the module)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            raise ModuleNotFoundError("pandas hidden from pyarrow's probe", name=name)
        return None


def _pyarrow_without_pandas() -> None:
    """pyarrow converts a Python list only after asking whether pandas is importable, and asking
    imports it: 0.30 of the 0.75 CPU s a one-document `normalize` process took, for a library no
    stage uses. Hidden for that one question, pandas is recorded as absent; a later call that needs
    it (`Table.to_pandas`, pyspark's own imports) still imports it. Not done for a caller's
    `main(argv)` in its own process, whose pyarrow may be handed pandas objects."""
    if "pandas" in sys.modules:
        return
    import pyarrow

    hidden = _PandasHidden()
    sys.meta_path.insert(0, hidden)
    try:
        pyarrow.array([0])
    finally:
        sys.meta_path.remove(hidden)


def main(argv: list[str] | None = None) -> int:
    """Run one verb; every failure is an exit code (exit_codes.py) and one line on stderr."""

    if argv is None:  # this process is the command (console script, python -m, jobs/stage.py)
        _pyarrow_without_pandas()
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # anywhere on the line: `corpus-pipeline run --debug` as well
    args = build_parser().parse_args([a for a in argv if a != "--debug"])
    # What the verb has done: the executors it makes mark it (a refusal after work is exit 1).
    args.work, args.debug = failures.Work(), debug
    try:
        config = load_config(args.config, args.overrides)
        handler = getattr(args, "handler", None)
        if handler is not None:
            return handler(args, config)
        if args.verb == "demo":
            return _run_demo(args, config)
        return _run_eval(args, config)
    except Exception as error:  # noqa: BLE001 - every failure becomes its exit code and one line
        if debug:
            traceback.print_exc()
        print(f"corpus-pipeline {args.verb}: {failures.one_line(error)}", file=sys.stderr)
        return exit_codes.exit_code(error, args.work.started)


if __name__ == "__main__":
    sys.exit(main())
