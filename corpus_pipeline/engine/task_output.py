"""The files one task writes: its kept rows, its rejected rows by reason, and its stats file.

Every file is written under a hidden in-progress name and renamed when closed, and the stats file
is renamed last: a task whose stats file exists is complete, which is how a killed run resumes
(finished tasks are skipped) and how a retried task replaces, rather than adds to, its outputs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.stages.base import Drop
from corpus_pipeline.stats import StageStats

# Rows buffered before a write: bounds memory (HTML-heavy rows can be ~1 MB) while keeping
# row groups large enough for efficient scans.
ROWS_PER_WRITE = 2_000
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "write_statistics": True}

STATS_DIR = "_tasks"
REJECTED_DIR = "_rejected"


def part_name(task_id: int) -> str:
    return f"part-{task_id:05d}"


def task_stats_path(stage_dir: Path, task_id: int) -> Path:
    return stage_dir / STATS_DIR / f"{part_name(task_id)}.json"


class _RowFile:
    def __init__(self, path: Path, schema: pa.Schema):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.tmp = path.with_name(f".{path.name}.inprogress")
        self.schema = schema
        self.writer = pq.ParquetWriter(self.tmp, schema, **PARQUET_OPTIONS)
        self.rows: list[dict] = []

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= ROWS_PER_WRITE:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.writer.close()
        self.tmp.unlink(missing_ok=True)


class TaskOutput:
    """Routes a task's rows to `part-NNNNN.parquet` or `_rejected/reason=<r>/part-NNNNN.parquet`."""

    def __init__(self, stage_dir: Path, task_id: int, schema: pa.Schema):
        self.stage_dir = stage_dir
        self.task_id = task_id
        self.schema = schema
        self.rejected_schema = schema.append(REJECT_DETAIL_FIELD)
        # A retried task starts clean: an earlier attempt may have left rejects this one won't.
        for stale in stage_dir.glob(f"{REJECTED_DIR}/reason=*/{part_name(task_id)}.parquet"):
            stale.unlink()
        # The kept file always exists, even empty, so readers can rely on one part per task.
        self.kept = _RowFile(stage_dir / f"{part_name(task_id)}.parquet", schema)
        self.rejected: dict[str, _RowFile] = {}

    def keep(self, row: dict) -> None:
        self.kept.add(row)

    def reject(self, row: dict, drop: Drop) -> None:
        file = self.rejected.get(drop.reason)
        if file is None:
            path = self.stage_dir / REJECTED_DIR / f"reason={drop.reason}" / f"{part_name(self.task_id)}.parquet"
            file = self.rejected[drop.reason] = _RowFile(path, self.rejected_schema)
        file.add({**row, REJECT_DETAIL_FIELD.name: drop.detail})

    def commit(self, stats: StageStats) -> None:
        for file in (self.kept, *self.rejected.values()):
            file.close()
        stats_path = task_stats_path(self.stage_dir, self.task_id)
        stats_path.parent.mkdir(parents=True, exist_ok=True)
        stats.write(stats_path)

    def abort(self) -> None:
        for file in (self.kept, *self.rejected.values()):
            file.abort()
