"""The `eval decontamination` target, for `corpus_pipeline.cli.build_parser` to add (the
`decontaminate` verb comes from the stage registry).

    add_eval_target(targets)  # targets: the sub-parsers of the `eval` verb

It runs the stage's own code in this process: no Spark, no files written.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from corpus_pipeline.cli_options import add_config_options
from corpus_pipeline.config import PipelineConfig

EXIT_OK, EXIT_BELOW_GOAL = 0, 1
# The goals of the decontamination issue: recall on planted items, clean documents touched.
RECALL_GOAL, FALSE_POSITIVE_GOAL = 0.95, 0.005


def run_decontamination_eval(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.decontam.evaluate import evaluate_decontamination

    web_docs = [json.loads(line) for line in Path(args.docs).read_text(encoding="utf-8").splitlines() if line.strip()]
    chinese = Path(args.chinese).read_text(encoding="utf-8").splitlines()
    report = evaluate_decontamination(web_docs, chinese, config, args.seed, args.chinese_items)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    met = report.recall() >= RECALL_GOAL and report.false_positive_rate < FALSE_POSITIVE_GOAL
    return EXIT_OK if met else EXIT_BELOW_GOAL


def add_eval_target(targets) -> None:
    """Add `corpus-pipeline eval decontamination --docs JSONL --chinese TXT [--seed N] [--json]`."""
    parser = targets.add_parser(
        "decontamination", help="recall of decontaminate on eval items planted into real pages, and false positives"
    )
    parser.add_argument("--docs", required=True, help="JSONL of real pages (id, text): hosts and clean documents")
    parser.add_argument("--chinese", required=True, help="Chinese text, one paragraph a line (People's Daily)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chinese-items", type=int, default=200, help="items of the Chinese set")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_config_options(parser)
    parser.set_defaults(handler=run_decontamination_eval)
