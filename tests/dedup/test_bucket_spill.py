"""The driver's spill by output bucket (dedup/bucket_spill.py): every row back in its id's bucket,
in the order given, split in few messages however small the batches that were added."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.dedup import bucket_spill
from corpus_pipeline.dedup.bucket_spill import BucketSpill
from corpus_pipeline.dedup.id_buckets import id_bucket

BUCKETS = 50


def _batches(rows: int, size: int) -> list[pa.Table]:
    table = pa.table({"id": [f"doc-{n:05d}" for n in range(rows)], "n": list(range(rows))})
    return [table.slice(start, size) for start in range(0, rows, size)]


def test_each_bucket_holds_its_rows_in_the_order_given_in_one_message():
    with BucketSpill(BUCKETS) as spill:
        for batch in _batches(2_000, 10):  # 200 batches, each over ~10 buckets
            spill.add(batch)
        back = {bucket: spill.read(bucket) for bucket in spill.buckets()}
    expected: dict[int, list[int]] = {}
    for n in range(2_000):
        expected.setdefault(id_bucket(f"doc-{n:05d}", BUCKETS), []).append(n)
    assert {bucket: table.column("n").to_pylist() for bucket, table in back.items()} == expected
    assert all(table.column("n").num_chunks == 1 for table in back.values())  # not one message per batch


def test_past_the_flush_size_the_rows_are_split_and_written_as_they_come(monkeypatch):
    monkeypatch.setattr(bucket_spill, "FLUSH_BYTES", 1)  # every add flushed
    with BucketSpill(BUCKETS) as spill:
        for batch in _batches(300, 100):
            spill.add(batch)
        back = [spill.read(bucket) for bucket in spill.buckets()]
    assert sorted(n for table in back for n in table.column("n").to_pylist()) == list(range(300))
    assert max(table.column("n").num_chunks for table in back) > 1  # a bucket's rows from several adds
