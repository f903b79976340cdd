"""The `eval pii` target, for `corpus_pipeline.cli.build_parser` to add (the `pii` verb comes from
the stage registry).

    add_eval_target(targets)  # targets: the sub-parsers of the `eval` verb; adds `eval pii`

It sets `handler(args, config) -> exit code`.
"""

from __future__ import annotations

import argparse
import json

from corpus_pipeline.cli_options import add_config_options
from corpus_pipeline.config import PipelineConfig

EXIT_OK = 0


def run_pii_eval(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.pii.evaluate import evaluate_pii

    report = evaluate_pii(args.gold, config)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


def add_eval_target(targets) -> None:
    """Add `corpus-pipeline eval pii --gold FILE [--json] [--config C] [--set K=V]`."""
    parser = targets.add_parser("pii", help="per-type precision/recall of pii against gold character spans")
    parser.add_argument("--gold", required=True, help="JSON spans, as shared/data/pii/presidio_synth_dev.json")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    add_config_options(parser)
    parser.set_defaults(handler=run_pii_eval)
