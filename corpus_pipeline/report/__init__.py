"""The run report: one static HTML page (inline SVG, no network) over a run directory.

`write_report(run_dir, config, previous, output)` gathers the figures (`collect`), renders them
(`html_page`) and writes the page atomically; `corpus-pipeline report RUN_DIR` calls it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.report.collect import RunFigures, collect
from corpus_pipeline.report.html_page import render
from corpus_pipeline.report.run_dir import ReportInputError

__all__ = ["ReportInputError", "ReportResult", "default_output", "write_report"]


@dataclass
class ReportResult:
    path: Path
    figures: RunFigures


def default_output(run_dir: Path) -> Path:
    """DESIGN.md: runs/<run_id>/report/index.html."""
    return run_dir / "report" / "index.html"


def write_report(
    run_dir: Path, config: PipelineConfig, previous: Path | None = None, output: Path | None = None
) -> ReportResult:
    figures = collect(run_dir, config, previous)
    path = output or default_output(run_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(render(figures), encoding="utf-8")
    os.replace(tmp, path)  # a reader (or a web server) never sees half a page
    return ReportResult(path, figures)
