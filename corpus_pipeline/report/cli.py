"""`corpus-pipeline report RUN_DIR [--previous RUN_DIR] [--output FILE]`, added by `register(verbs)`.

Exit 0 when the page is written, whatever it says (drift alerts and failed gates are printed too,
for a log); 1 when an input could not be read, with a message naming it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from corpus_pipeline.cli_options import add_config_options
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.store.stage_dir import location
from corpus_pipeline.storage.locations import shown

EXIT_OK, EXIT_ERROR = 0, 1


def register(verbs) -> None:
    report = verbs.add_parser("report", help="a static HTML report of a run (funnel, plots, examples, gates, drift)")
    report.add_argument("run_dir", type=location, help="runs/<run_id>, a local path or s3://bucket/prefix")
    report.add_argument("--previous", type=location, help="the previous snapshot's run directory, for drift")
    report.add_argument("--output", type=Path, help="the HTML file (default: RUN_DIR/report/index.html)")
    add_config_options(report)
    report.set_defaults(handler=report_verb)


def report_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.report.write import ReportInputError, write_report

    try:
        result = write_report(args.run_dir, config, args.previous, args.output)
    except ReportInputError as error:
        print(f"corpus-pipeline report: {error}", file=sys.stderr)
        return EXIT_ERROR
    figures = result.figures
    for check in figures.alerts:
        print(f"drift alert: {check.name} changed by {check.value:.4f} > {check.bound:g} ({check.detail})")
    if figures.gates is not None and not figures.gates.passed:
        print("gates: FAILED (see the report's Gates section)")
    print(f"report: {shown(result.path)}")
    return EXIT_OK
