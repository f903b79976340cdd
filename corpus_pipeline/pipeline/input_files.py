"""The crawl files a run reads: listed, and sorted into present and vanished; and which of them
extract could not read (its `_rejected/reason=read_error/` rows)."""

from __future__ import annotations

from collections.abc import Callable

import pyarrow.parquet as pq

from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.engine.store.stage_dir import Location, stage_files
from corpus_pipeline.engine.store.task_output import REJECTED_DIR
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import known_missing

READ_ERROR = "read_error"
# Files named one by one in the run record; past that only counted (a corrupt disk can fail
# thousands of files, and the record should stay readable).
MAX_FAULTS_LISTED = 50


def present_files(files: list[str], storage: Storage) -> tuple[list[str], list[str]]:
    """(files and objects that exist now, those that vanished since they were listed)."""
    present, vanished = [], []
    for path in files:
        (present if storage.exists(path) else vanished).append(path)
    return present, vanished


def list_crawl_files(arguments: list[str], expand: Callable[[list[str]], list[str]]) -> list[str]:
    """Every crawl file (with `expand_crawl_inputs`) or dataset file (with a source stage's
    `input_files`) under `arguments`; [] when the folders exist but hold none yet. A named local
    folder or file that does not exist is a config error, not an empty night (an `s3://` prefix
    cannot be told from an empty one: object stores have no folders)."""
    missing = [a for a in arguments if not any(c in a for c in "*?[") and known_missing(a)]
    if missing:
        raise FileNotFoundError(f"input {', '.join(missing)} does not exist")
    try:
        return expand(arguments)
    except FileNotFoundError:  # folders without crawl files, or a glob that matches nothing yet
        return []


def rejected_files(stage_dir: Location, reason: str, storage: Storage) -> list[Location]:
    """The Parquet files of the rows `stage_dir` dropped for `reason`, as its manifest names them."""
    folder = f"{REJECTED_DIR}/reason={reason}/"
    files = stage_files(stage_dir, storage)
    return [where for name, where in files.items() if name.startswith(folder) and name.endswith(".parquet")]


def read_faults(extract_dir: Location, storage: Storage) -> dict:
    """The input files extract could not read to the end: vanished, unreadable, truncated, corrupt."""
    faults = []
    for part in rejected_files(extract_dir, READ_ERROR, storage):
        source = storage.parquet_source(str(part))
        table = pq.read_table(source, columns=["file_path", REJECT_DETAIL_FIELD.name])
        faults += [{"file": f, "error": d} for f, d in zip(*(c.to_pylist() for c in table.columns), strict=True)]
    faults.sort(key=lambda fault: fault["file"])
    return {"files": len(faults), "listed": faults[:MAX_FAULTS_LISTED]}
