"""The local tokenize path's external sort: the rows a stable in-memory sort by (bucket, id) gives,
from runs on disk, whatever the run size."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from corpus_pipeline.tokenize import sorted_runs
from corpus_pipeline.tokenize.sharding import bucket_of

BUCKETS = 3


def _batches(count: int) -> list[pa.RecordBatch]:
    rng = random.Random(11)
    ids = [f"doc-{rng.randrange(count // 2)}" for _ in range(count)]  # repeated ids: ties keep input order
    texts = [f"text {number} ".encode() * rng.randrange(1, 20) for number in range(count)]
    languages = [rng.choice(["en", "zh", None]) for _ in range(count)]
    table = pa.table({"id": ids, "text": pa.array(texts, pa.large_binary()), "language": languages})
    return table.to_batches(max_chunksize=25)


def _in_memory(batches: list[pa.RecordBatch], skip: set[int]) -> list[tuple]:
    rows = [
        (bucket_of(doc_id, BUCKETS), doc_id, text, language)
        for batch in batches
        for doc_id, text, language in zip(
            *(batch.column(n).to_pylist() for n in ("id", "text", "language")), strict=True
        )
    ]
    return sorted((row for row in rows if row[0] not in skip), key=lambda row: (row[0], row[1]))  # stable


@pytest.mark.parametrize("run_bytes", [1, 2_000, 1 << 30])
@pytest.mark.parametrize("skip", [set(), {1}])
def test_runs_merge_to_the_stable_sort_of_the_whole_input(monkeypatch, run_bytes, skip):
    monkeypatch.setattr(sorted_runs, "RUN_BYTES", run_bytes)
    monkeypatch.setattr(sorted_runs, "MERGE_ROWS", 7)
    batches = _batches(400)
    merged = list(sorted_runs.sorted_rows(batches, lambda doc_id: bucket_of(doc_id, BUCKETS), skip))
    assert merged == _in_memory(batches, skip)


def test_no_rows_no_runs():
    assert list(sorted_runs.sorted_rows([], lambda doc_id: 0, set())) == []
