"""Two runs of `corpus-pipeline run` (each a folder or an s3:// prefix) hold the same outputs: the same
finished stage directories, each with the same logical files as its manifest names them; a Parquet
file (kept documents, rejected ones, dedup's tables) with the same rows in the same order, column by
column, its schema included; every other file byte for byte (token shards, their manifest), but
`_stats.json`, which the runs must agree on but for its timings. Left out: the run record, gates and
report, which name their own run's place and time, and `_tasks/*.json`, the per-task counters, which
a local stage directory keeps as files and a stage on a store inside its commit records (their sums
are `_stats.json`, compared).

Where the runs read their input from differs (a local file, an object), and so does the one column
that records it, `file_path`: it is compared with each run's input location replaced by `<input>`.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.store.layout import STATS_DIR
from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.storage import Storage

SUCCESS = "/_SUCCESS"
# Keys of _stats.json that measure time, not work.
TIMINGS = {"seconds", "task_seconds"}
TASK_COUNTERS = f"{STATS_DIR}/"


def stage_dirs(run_dir: str, storage: Storage) -> list[str]:
    """Every finished stage directory under `run_dir`, relative to it."""
    base = run_dir.rstrip("/") + "/"
    return sorted(uri[len(base) : -len(SUCCESS)] for uri in storage.list_under(run_dir) if uri.endswith(SUCCESS))


def _rows(location: str, storage: Storage, input_location: str) -> pa.Table:
    table = pq.read_table(storage.parquet_source(location))
    if "file_path" in table.column_names:
        paths = [None if p is None else p.replace(input_location, "<input>") for p in table["file_path"].to_pylist()]
        table = table.set_column(table.schema.get_field_index("file_path"), "file_path", pa.array(paths, pa.string()))
    return table


def _stats(data: bytes) -> object:
    def untimed(value: object) -> object:
        if isinstance(value, dict):
            return {key: untimed(item) for key, item in value.items() if key not in TIMINGS}
        if isinstance(value, list):
            return [untimed(item) for item in value]
        return value

    return untimed(json.loads(data))


def _logical_files(stage_dir: str, storage: Storage) -> dict[str, str]:
    return {
        name: str(where)
        for name, where in stage_files(stage_dir, storage).items()
        if not name.startswith(TASK_COUNTERS)
    }


def compare_runs(left: tuple[str, str], right: tuple[str, str], storage: Storage | None = None) -> dict:
    """Two runs, each (run directory, the location of its input): the stage directories and files
    compared, and what differs ([] when nothing does)."""
    storage = storage or Storage()
    (left_run, left_input), (right_run, right_input) = left, right
    found, compared = [], 0
    stages = stage_dirs(left_run, storage)
    if stages != stage_dirs(right_run, storage):
        found = [f"stage directories: {stages} against {stage_dirs(right_run, storage)}"]
    elif not stages:
        found = [f"{left_run} holds no finished stage"]
    for stage in stages if not found else []:
        files = _logical_files(f"{left_run.rstrip('/')}/{stage}", storage)
        other = _logical_files(f"{right_run.rstrip('/')}/{stage}", storage)
        if files.keys() != other.keys():
            found.append(f"{stage}: files {sorted(files.keys() ^ other.keys())} are in one run only")
            continue
        compared += len(files)
        for name in files:
            a, b = files[name], other[name]
            if name.endswith(".parquet"):
                same = _rows(a, storage, left_input).equals(_rows(b, storage, right_input), check_metadata=True)
            elif name.endswith("_stats.json"):
                same = _stats(storage.read_bytes(a)) == _stats(storage.read_bytes(b))
            else:
                same = storage.read_bytes(a) == storage.read_bytes(b)
            if not same:
                found.append(f"{stage}/{name} differs")
    return {"stages": len(stages), "files": compared, "differences": found}
