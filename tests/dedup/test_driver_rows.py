"""The driver's signature rows: chunked as the scan adds them, taken chunk by chunk, and the rows
that repeat an id found on Arrow columns."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from corpus_pipeline.dedup import driver_rows
from corpus_pipeline.dedup.driver_job import DIGEST, ROW_NUMBER, later_rows
from corpus_pipeline.dedup.driver_rows import RowChunks, as_mask, take


def _chunked(monkeypatch, sizes: list[int]) -> pa.Table:
    monkeypatch.setattr(driver_rows, "CHUNK_ROWS", 10)
    chunks, start = RowChunks(pa.schema([("n", pa.int64()), ("s", pa.string())])), 0
    for size in sizes:
        numbers = list(range(start, start + size))
        chunks.add(pa.table({"n": numbers, "s": [f"row {n}" for n in numbers]}))
        start += size
    return chunks.table()


def test_the_scans_batches_become_chunks_of_chunk_rows_in_order(monkeypatch):
    table = _chunked(monkeypatch, [3, 4, 5, 1, 9, 2])
    assert table.column("n").to_pylist() == list(range(24))
    assert [len(chunk) for chunk in table.column("n").chunks] == [12, 10, 2]


def test_no_batch_gives_an_empty_table_of_the_schema(monkeypatch):
    assert _chunked(monkeypatch, []).schema.names == ["n", "s"]


def test_a_take_chunk_by_chunk_gives_arrows_take(monkeypatch):
    table = _chunked(monkeypatch, [7] * 9)
    rows = np.random.default_rng(3).integers(0, table.num_rows, 40)
    expected = table.combine_chunks().take(pa.array(rows))
    assert take(table, rows).equals(expected)
    assert take(table.column("s"), rows).to_pylist() == expected.column("s").to_pylist()
    assert take(table, np.zeros(0, np.int64)).num_rows == 0
    with pytest.raises(IndexError):
        take(table, np.array([table.num_rows]))


def test_a_mask_reads_null_as_false():
    assert as_mask(pa.chunked_array([[True, None], [False, True]])).tolist() == [True, False, False, True]


def _reference_later_rows(rows: list[tuple]) -> dict[int, bool]:
    """The rule in plain Python: by (id, date, file_path, row number), nulls last; a later row of an
    id matches when either digest is null or they are equal."""

    def key(row):
        return tuple((1,) if value is None else (0, value) for value in row[:3]) + (row[3],)

    later, previous, kept = {}, object(), None
    for doc_id, _, _, number, digest in sorted(rows, key=key):
        if doc_id == previous:
            later[number] = digest is None or kept is None or digest == kept
        else:
            kept = digest
        previous = doc_id
    return later


def test_later_rows_of_repeated_ids_match_the_plain_rule():
    rng = random.Random(7)
    rows = [
        (
            rng.choice("abcdé"),
            rng.choice([None, "2024-01-01", "2023-12-31"]),
            rng.choice([None, "b.warc", "a.warc"]),
            number,
            rng.choice([None, b"x", b"y"]),
        )
        for number in range(300)
    ]
    rng.shuffle(rows)
    names = ["id", "date", "file_path", ROW_NUMBER, DIGEST]
    keys = pa.table(dict(zip(names, map(list, zip(*rows, strict=True)), strict=True)))
    found = later_rows(keys)
    assert found == _reference_later_rows(rows)
    assert len(found) == 300 - 5
