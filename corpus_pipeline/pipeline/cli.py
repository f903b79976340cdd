"""The `run` and `nightly` verbs, added to `corpus-pipeline` by `register(verbs)`; each sets
`handler(args, config) -> exit code` (the codes: exit_codes.py)."""

from __future__ import annotations

import argparse
import sys

from corpus_pipeline import exit_codes
from corpus_pipeline.cli_options import add_runner_options
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.store.stage_dir import location


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def register(verbs) -> None:
    run = verbs.add_parser(
        "run",
        help="the whole pipeline in one run directory: crawl (or given WARC/WET) -> ... -> token shards",
        description="crawl (or pipeline.inputs) -> extract -> langid -> normalize -> dedup -> pii -> quality ->\n"
        "gates -> train-tokenizer (or pipeline.tokenizer) -> tokenize, into <data_root>/runs/<run_id>.\n"
        "Finished stages are reused, so a rerun after a crash continues from the first unfinished one.\n"
        "What each step did, and why a run stopped: <run dir>/run_record.json.",
        epilog=exit_codes.describe(exit_codes.RUN_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--output", type=location, help="run directory, a path or s3://bucket/prefix (default: data_root/runs/run_id)"
    )
    add_runner_options(run)
    run.set_defaults(handler=run_verb)

    nightly = verbs.add_parser(
        "nightly",
        help="incremental refresh for cron: new inputs only, dedup against the index, gates, atomic publish",
        description="Under a lock: the crawl files under nightly.inputs (default <data_root>/incoming) that the\n"
        "published snapshot does not hold go through the whole pipeline, deduplicated against\n"
        "<data_root>/index; if every gate passes, a new snapshot is published and <data_root>/corpus/CURRENT\n"
        "switched to it. One line per night: <data_root>/nightly/history.jsonl.",
        epilog=exit_codes.describe(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_runner_options(nightly)
    nightly.set_defaults(handler=nightly_verb)


def run_verb(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.pipeline.console import run_summary
    from corpus_pipeline.pipeline.context import RunPlan
    from corpus_pipeline.pipeline.runner import run_pipeline

    result = run_pipeline(RunPlan.from_config(config, args.runner, args.output, args.work), log=_log)
    print(run_summary(result))
    return result.exit_code


def nightly_verb(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.pipeline.nightly import run_nightly

    return run_nightly(config, args.runner, _log, debug=args.debug, work=args.work)
