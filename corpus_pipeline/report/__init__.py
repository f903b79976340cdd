"""The run report: one static HTML page (inline SVG, no network) over a run directory.

`write_report(run_dir, config, previous, output)` gathers the figures (`collect`), renders them
(`html_page`) and writes the page atomically; `corpus-pipeline report RUN_DIR` calls it. A run
directory on a store (`s3://...`) is read through a local copy of its stages (store_copy.py) and
gets its page as one object, `<run>/report/index.html`, PUT whole.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.stage_dir import Location, child
from corpus_pipeline.report.collect import RunFigures, collect
from corpus_pipeline.report.html_page import render
from corpus_pipeline.report.run_dir import ReportInputError
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import local_path

__all__ = ["ReportInputError", "ReportResult", "default_output", "write_report"]


@dataclass
class ReportResult:
    path: Location
    figures: RunFigures


def default_output(run_dir: Path) -> Path:
    """runs/<run_id>/report/index.html: beside the run's stage directories, so the page and the
    run it describes are copied, published and deleted together."""
    return run_dir / "report" / "index.html"


def _write_page(path: Path, page: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)  # a reader (or a web server) never sees half a page


def write_report(
    run_dir: Location, config: PipelineConfig, previous: Location | None = None, output: Path | None = None
) -> ReportResult:
    if local_path(run_dir) is None:  # the report reads files in place (the shards memory-mapped)
        return _report_from_store(str(run_dir), config, previous, output)
    figures = collect(run_dir, config, previous)
    path = output or default_output(run_dir)
    _write_page(path, render(figures))
    return ReportResult(path, figures)


def _report_from_store(
    run_dir: str, config: PipelineConfig, previous: Location | None, output: Path | None
) -> ReportResult:
    from corpus_pipeline.report.store_copy import copy_run

    storage = Storage(config.storage)
    with tempfile.TemporaryDirectory(prefix="corpus-pipeline-report-") as scratch:

        def local_copy(uri: str, folder: str) -> Path:  # named as the run: the page's title
            return copy_run(uri, Path(scratch) / folder / uri.rpartition("/")[2], storage)

        before = previous if previous is None or local_path(previous) else local_copy(str(previous), "previous")
        local = local_copy(run_dir, "run")
        figures = collect(local, config, before)
    # The page names the run and the corpus the gates read, not their copies.
    figures.run_dir, figures.previous_dir = run_dir, previous
    if figures.gates is not None:
        figures.gates.corpus = child(run_dir, Path(figures.gates.corpus).relative_to(local).as_posix())
    page = render(figures)
    if output is not None:
        _write_page(output, page)
        return ReportResult(output, figures)
    target = child(run_dir, "report/index.html")
    storage.put_bytes(target, page.encode("utf-8"))  # one PUT: a reader GETs the old page or the new one
    return ReportResult(target, figures)
