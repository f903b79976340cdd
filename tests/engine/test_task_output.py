"""A task's Parquet files depend on its rows only, not on the pieces they came in."""

from __future__ import annotations

import random

import pyarrow as pa

from corpus_pipeline.engine.store.task_output import ROWS_PER_WRITE, ArrowFile


def _written(tmp_path, pieces: list[pa.Table], name: str) -> bytes:
    path = tmp_path / f"{name}.parquet"
    file = ArrowFile(path, pieces[0].schema)
    for piece in pieces:
        file.write(piece)
    file.close()
    return path.read_bytes()


def test_the_same_rows_in_other_pieces_give_the_same_bytes(tmp_path):
    """Texts whose dictionary outgrows its page (2.6 MB of distinct texts): the writer falls back to
    plain pages where a chunk ends, so pieces of 7 rows gave another file than one table (as a dedup
    bucket's rows came batch by batch on Spark and in one table on the driver)."""
    chosen = random.Random(3)
    count = ROWS_PER_WRITE + 300
    rows = pa.table(
        {
            "id": [f"{number:032x}" for number in range(count)],
            "text": ["".join(chosen.choice("abcdefgh ") for _ in range(2_000)) for _ in range(count)],
        }
    )
    whole = _written(tmp_path, [rows], "whole")
    assert _written(tmp_path, [rows.slice(start, 7) for start in range(0, count, 7)], "sevens") == whole
    assert _written(tmp_path, [rows.slice(0, 999), rows.slice(999)], "two") == whole
