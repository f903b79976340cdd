"""The `pii` verb and the `eval pii` target, for `corpus_pipeline.cli.build_parser` to add.

    register(verbs)           # verbs: the sub-parsers of build_parser; adds `pii`
    add_eval_target(targets)  # targets: the sub-parsers of the `eval` verb; adds `eval pii`

Each parser sets `handler(args, config) -> exit code`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from corpus_pipeline.config import PipelineConfig

EXIT_OK = 0


def run_pii_verb(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.stages import make_executor
    from corpus_pipeline.pii.runner import run_pii
    from corpus_pipeline.summary import format_funnel

    result = run_pii(args.input, args.output, config, make_executor(config, args.runner))
    print(format_funnel([result.stats], {result.stats.stage} if result.skipped else set()))
    print(f"{result.stats.stage}: {result.output}")
    return EXIT_OK


def run_pii_eval(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.pii.evaluate import evaluate_pii

    report = evaluate_pii(args.gold, config)
    print(report.format_table())
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True))
    return EXIT_OK


def register(verbs) -> None:
    """Add `corpus-pipeline pii --input DIR --output DIR [--config C] [--set K=V] [--runner R]`."""
    from corpus_pipeline.cli import _common

    parser = verbs.add_parser("pii", help="find, count and redact PII and secrets; drop PII-dense documents")
    parser.add_argument("--input", required=True, type=Path, help="a stage output directory")
    parser.add_argument("--output", required=True, type=Path)
    _common(parser)
    parser.set_defaults(handler=run_pii_verb)


def add_eval_target(targets) -> None:
    """Add `corpus-pipeline eval pii --gold FILE [--json] [--config C] [--set K=V]`."""
    parser = targets.add_parser("pii", help="per-type precision/recall of pii against gold character spans")
    parser.add_argument("--gold", required=True, help="JSON spans, as shared/data/pii/presidio_synth_dev.json")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    parser.add_argument("--config", help="YAML config; the pii section decides what is detected")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="override a config value"
    )
    parser.set_defaults(handler=run_pii_eval)
