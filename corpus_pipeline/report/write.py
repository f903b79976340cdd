"""The run report: one static HTML page (inline SVG, no network) over a run directory.

`write_report(run_dir, config, previous, output)` gathers the figures (`collect`), renders them
(`html_page`) and writes the page through the store's guard (storage/owned_files.py: whole, and never
over a file this project did not write); `corpus-pipeline report RUN_DIR` calls it. A folder that
holds no finished stage is not a run: refused. A run directory on a store (`s3://...`) is read
through a local copy of its stages (store_copy.py) and gets its page as one object,
`<run>/report/index.html`, PUT whole.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.store.stage_dir import Location, child
from corpus_pipeline.report.collect import RunFigures, collect
from corpus_pipeline.report.html_page import render
from corpus_pipeline.report.run_dir import ReportInputError, refuse_unless_run
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import local_path
from corpus_pipeline.storage.owned_files import refuse_unless_ours, write_owned

__all__ = ["ReportInputError", "ReportResult", "write_report"]


@dataclass
class ReportResult:
    path: Location
    figures: RunFigures


def write_report(
    run_dir: Location, config: PipelineConfig, previous: Location | None = None, output: Path | None = None
) -> ReportResult:
    storage = Storage(config.storage)
    refuse_unless_run(run_dir, storage)
    # runs/<run_id>/report/index.html by default: beside the run's stage directories, so the page
    # and the run it describes are copied, published and deleted together.
    target = output or child(run_dir, "report/index.html")
    refuse_unless_ours(target, storage)  # before the figures, which take a while on a large run
    if local_path(run_dir) is None:  # the report reads files in place (the shards memory-mapped)
        figures = _figures_from_store(str(run_dir), config, previous, storage)
    else:
        figures = collect(run_dir, config, previous)
    # One atomic write (a rename, one PUT): a reader or a web server never sees half a page.
    path = write_owned(target, render(figures).encode("utf-8"), storage)
    return ReportResult(path, figures)


def _figures_from_store(
    run_dir: str, config: PipelineConfig, previous: Location | None, storage: Storage
) -> RunFigures:
    from corpus_pipeline.report.store_copy import copy_run

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
    return figures
