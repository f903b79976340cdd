"""The driver's spill by output bucket (dedup/bucket_spill.py): every row back in its id's bucket,
in the order given, split in few messages however small the batches that were added; and the
buckets of a column of ids (id_buckets.py), which it splits by."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from corpus_pipeline.dedup import bucket_spill
from corpus_pipeline.dedup.bucket_spill import BucketSpill
from corpus_pipeline.dedup.id_buckets import id_bucket, id_buckets

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


def test_the_buckets_of_an_id_column_are_spark_s_hash_of_each_id():
    """id_buckets (numpy, by byte length) against id_bucket (Spark's Murmur3 byte by byte): every
    length from 0 to 40 bytes, so each tail of 1-3 sign-extended bytes, multi-byte characters,
    and an array that is a slice or in chunks."""
    rng = random.Random(7)
    alphabet = "abcXYZ019-_/é中文😀"
    ids = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(5_000)]
    ids += ["x" * length for length in range(41)] + [f"{n:032x}" for n in range(1_000)]
    for buckets in (1, 3, 410, 1_000_003):
        assert id_buckets(pa.array(ids), buckets).tolist() == [id_bucket(doc_id, buckets) for doc_id in ids]
    chunked = pa.chunked_array([pa.array(ids[:100]), pa.array(ids[100:300])])
    assert id_buckets(chunked, 7).tolist() == [id_bucket(doc_id, 7) for doc_id in ids[:300]]
    assert id_buckets(pa.array(ids).slice(5, 50), 7).tolist() == [id_bucket(doc_id, 7) for doc_id in ids[5:55]]
    with pytest.raises(ValueError, match="null"):
        id_buckets(pa.array(["a", None]), 7)
