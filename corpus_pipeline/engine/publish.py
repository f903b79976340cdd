"""Rows from elsewhere (a JSONL file, a test, a benchmark) published as a finished stage directory
through the same task commit and StageDir as every stage, so a later stage reads them exactly as it
reads an upstream stage's output."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa

from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.exec.task_plan import part_name
from corpus_pipeline.engine.exec.tasks import split_verdicts, table_text_bytes
from corpus_pipeline.engine.store.stage_dir import fingerprint, open_stage_dir
from corpus_pipeline.engine.store.task_output import TaskAttempt, distribute
from corpus_pipeline.stages.base import Drop
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage


def publish_rows(
    directory: Path,
    parts: list[list[dict]],
    schema: pa.Schema = DOCUMENT_SCHEMA,
    stage: str = "import",
    rejected: list[tuple[dict, Drop]] = (),
) -> Path:
    """One part per list of rows (any subset of `schema`'s columns, the rest null), and `rejected`
    rows with their drops in the first task. The fingerprint hashes the rows, so changed rows are a
    new input for the stages after."""
    parts = [[{name: row.get(name) for name in schema.names} for row in rows] for rows in parts]
    dropped = [({name: row.get(name) for name in schema.names}, drop) for row, drop in rejected]
    payload = [parts, [(row, drop.reason, drop.detail) for row, drop in dropped]]
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
    stage_dir = open_stage_dir(Path(directory), fingerprint(stage, str(schema), [digest]), Storage())
    if stage_dir.is_done():
        return stage_dir.output
    stage_dir.begin()
    work = stage_dir.work
    for number, rows in enumerate(parts):
        drops = dropped if number == 0 else []
        table = pa.Table.from_pylist(rows + [row for row, _ in drops], schema=schema)
        reasons = pa.array([None] * len(rows) + [drop.reason for _, drop in drops], pa.string())
        details = pa.array([None] * len(rows) + [drop.detail for _, drop in drops], pa.string())
        stats = StageStats(stage, tasks=1)
        stats.add_in(table.num_rows, table_text_bytes(table))
        attempt = TaskAttempt(work, part_name(number), f"rows of part {number}")
        split_verdicts(table, schema, reasons, details, stats, attempt.stage(stage, schema, write_kept=True))
        attempt.commit({stage: stats})
        distribute({stage: work}, work, part_name(number))
    stage_dir.finish(stage, 0.0)
    return stage_dir.output
