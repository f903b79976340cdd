"""The task of dedup's Spark write step (spark_job.write_spark_buckets): one output bucket's documents,
sorted by id and then by the columns that put a repeated id's earliest row first (nulls last, as
repeats.py orders them), given their decisions here in Python:

- the verdicts and paragraph changes of the bucket's ids, read from the decide step's part of the
  same bucket (decide_step.py writes its rows in the write's id buckets: Murmur3(id) mod n);
- a repeated id's later rows, consecutive in the sorted bucket.

So the documents cross one shuffle and one sort, and no join: a join with the verdicts, a window for
the repeats and a second sort of every text were 4 Spark jobs of the write (86k documents), now 2.
The columns added are chain.decision_columns', as on the driver's path.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.dedup.bucket_writer import BUCKET_COLUMN, fill_bucket
from corpus_pipeline.dedup.chain import VERDICT_SCHEMA, DecisionColumns, decision_columns
from corpus_pipeline.dedup.paragraph_batches import CHARACTERS_REMOVED, PARAGRAPHS_REMOVED, with_changes
from corpus_pipeline.engine.whole_corpus import TaskAttempt
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import open_parquet


def decide_parts_by_bucket(parts: Iterable) -> dict[int, str]:
    """The decide step's parts by the bucket each holds (`part-NNNNN.parquet`: bucket NNNNN)."""
    return {int(str(part).rsplit("/", 1)[-1].split(".", 1)[0].rsplit("-", 1)[1]): str(part) for part in parts}


def bucket_decisions(part: str | None, storage: Storage) -> tuple[dict[str, dict], dict[str, dict]]:
    """(verdicts: VERDICT_SCHEMA rows by id, changes: paragraph_batches.CLEANED_SCHEMA rows by id) of
    one decide part; none for a bucket without one (no id of it was decided against)."""
    if part is None:
        return {}, {}
    with open_parquet(storage, part) as parquet:
        rows = parquet.read()
    decided = rows.filter(pc.is_valid(rows.column("dup_cluster_id"))).select(VERDICT_SCHEMA.names)
    verdicts = {row["id"]: row for row in decided.to_pylist()}
    if PARAGRAPHS_REMOVED not in rows.column_names:
        return verdicts, {}
    cleaned = rows.filter(pc.is_valid(rows.column(PARAGRAPHS_REMOVED)))
    changes = {
        row["id"]: {
            "cleaned_text": row["cleaned_text"],
            "reject_detail": row["reject_detail"],
            "paragraphs_removed": row[PARAGRAPHS_REMOVED],
            "characters_removed": row[CHARACTERS_REMOVED],
        }
        for row in cleaned.to_pylist()
    }
    return verdicts, changes


class RepeatStates:
    """Each row's repeat state over a bucket's batches in order: None for the row of an id that
    stays (its first), else whether a later row has the first row's text (a null on either side
    counts as the same, as on the driver's path)."""

    def __init__(self):
        self._id, self._text = None, None

    def of(self, batch: pa.Table) -> list[bool | None]:
        ids, texts = batch.column("id").to_pylist(), batch.column("text")
        states: list[bool | None] = []
        for row, doc_id in enumerate(ids):
            if doc_id == self._id:
                text = texts[row].as_py()
                states.append(text is None or self._text is None or text == self._text)
                continue
            states.append(None)
            self._id = doc_id
            # The text is read only where the next row may repeat the id: within the batch when it
            # does, at its end always (the next batch may).
            repeats = row + 1 < len(ids) and ids[row + 1] == doc_id
            self._text = texts[row].as_py() if repeats or row + 1 == len(ids) else None
        return states


def fill_decided_bucket(
    batches: list[pa.RecordBatch],
    attempt: TaskAttempt,
    decide_parts: dict[int, str],
    paragraphs: bool,
    schema: pa.Schema,
    storage: Storage,
) -> dict[str, StageStats]:
    """commit_buckets' fill: one bucket's sorted batches, with their decisions, to the attempt."""
    bucket = batches[0].column(BUCKET_COLUMN)[0].as_py()
    verdicts, changes = bucket_decisions(decide_parts.get(bucket), storage)
    states = RepeatStates()
    decided = []
    for batch in batches:
        table = pa.Table.from_batches([batch])
        repeats = states.of(table)
        if paragraphs:
            table = with_changes(table, changes, [same is None for same in repeats])
        decided.append(decision_columns(table, verdicts, repeats))
    return fill_bucket(decided, attempt, columns=DecisionColumns(), schema=schema)
