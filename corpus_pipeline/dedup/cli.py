"""The `dedup` verb and the `eval dedup` target, for `corpus_pipeline.cli.build_parser` to add.

    register(verbs)           # verbs: the sub-parsers of build_parser; adds `dedup`
    add_eval_target(targets)  # targets: the sub-parsers of the `eval` verb; adds `eval dedup`

Each parser sets `handler(args, config) -> exit code`. Dedup is a global step, so it always runs on
Spark (`local[*]` unless spark-submit set a master).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.plant import PLANT_SHARE

EXIT_OK = 0


def _config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="YAML config; the dedup section chooses methods and thresholds")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="override a config value"
    )


def run_dedup_verb(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.dedup.spark_job import run_dedup
    from corpus_pipeline.engine.session import get_spark
    from corpus_pipeline.summary import format_funnel

    result = run_dedup(args.input, args.output, config, get_spark(config.spark), args.index)
    print(format_funnel([result.stats], {result.stats.stage} if result.skipped else set()))
    print(f"{result.stats.stage}: {result.output}")
    return EXIT_OK


def run_dedup_eval(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.dedup.evaluate import evaluate_dedup, load_jsonl
    from corpus_pipeline.engine.session import get_spark

    report = evaluate_dedup(load_jsonl(args.docs), config, get_spark(config.spark), args.plant, args.plant_share)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


def register(verbs) -> None:
    """Add `corpus-pipeline dedup --input DIR --output DIR [--index DIR] [--config C] [--set K=V]`."""
    parser = verbs.add_parser("dedup", help="drop exact and near-duplicate documents (MinHash LSH on Spark)")
    parser.add_argument("--input", required=True, type=Path, help="a stage output directory")
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("--index", type=Path, help="cross-snapshot index (<data_root>/index): drop what it holds")
    _config_options(parser)
    parser.set_defaults(handler=run_dedup_verb)


def add_eval_target(targets) -> None:
    """Add `corpus-pipeline eval dedup --docs JSONL [--plant SEED] [--json]`."""
    parser = targets.add_parser("dedup", help="precision/recall/F1 of dedup per method, on planted near-duplicates")
    parser.add_argument("--docs", required=True, help="JSONL of documents: id, text, optional url, date, language")
    parser.add_argument("--plant", type=int, metavar="SEED", help="plant an edited copy of some of the documents")
    parser.add_argument(
        "--plant-share", type=float, default=PLANT_SHARE, metavar="S", help="share of the documents copied"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    _config_options(parser)
    parser.set_defaults(handler=run_dedup_eval)
