"""The `eval dedup` target, for `corpus_pipeline.cli.build_parser` to add (the `dedup` verb comes
from the stage registry).

    add_eval_target(targets)  # targets: the sub-parsers of the `eval` verb; adds `eval dedup`

It sets `handler(args, config) -> exit code`. Dedup's decisions are Spark DataFrame jobs, so it runs on
Spark (`local[*]` unless spark-submit set a master).
"""

from __future__ import annotations

import argparse
import json

from corpus_pipeline.cli_options import add_config_options
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.plant import PLANT_SHARE

EXIT_OK = 0


def run_dedup_eval(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.dedup.evaluate import evaluate_dedup, load_jsonl
    from corpus_pipeline.engine.exec.session import get_spark

    spark = get_spark(config.spark, config.engine.memory_mb)
    report = evaluate_dedup(load_jsonl(args.docs), config, spark, args.plant, args.plant_share, work=args.work)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


def add_eval_target(targets) -> None:
    """Add `corpus-pipeline eval dedup --docs JSONL [--plant SEED] [--json]`."""
    parser = targets.add_parser("dedup", help="precision/recall/F1 of dedup per method, on planted near-duplicates")
    parser.add_argument("--docs", required=True, help="JSONL of documents: id, text, optional url, date, language")
    parser.add_argument("--plant", type=int, metavar="SEED", help="plant an edited copy of some of the documents")
    parser.add_argument(
        "--plant-share", type=float, default=PLANT_SHARE, metavar="S", help="share of the documents copied"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_config_options(parser)
    parser.set_defaults(handler=run_dedup_eval)
