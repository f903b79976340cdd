"""The Spark write step's task (dedup/write_task.py): a repeated id's later rows found in a bucket's
sorted batches, across batch boundaries too, and the decide step's parts found by bucket."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.dedup.write_task import RepeatStates, decide_parts_by_bucket


def _batch(rows: list[tuple[str, str | None]]) -> pa.Table:
    return pa.table({"id": [doc_id for doc_id, _ in rows], "text": [text for _, text in rows]})


def test_later_rows_of_an_id_are_told_by_their_text_across_batches():
    states = RepeatStates()
    first = states.of(_batch([("a", "x"), ("b", "y"), ("b", "y"), ("b", "other")]))
    second = states.of(_batch([("b", "y"), ("c", "z")]))
    third = states.of(_batch([("c", "not z"), ("d", None)]))
    fourth = states.of(_batch([("d", "w"), ("e", "v"), ("e", None)]))
    assert first == [None, None, True, False]
    assert second == [True, None]  # b's first text carried over the batch boundary
    assert third == [False, None]
    assert fourth == [True, None, True]  # a null text on either side counts as the same page


def test_decide_parts_are_found_by_the_bucket_in_their_name():
    parts = ["s3://bucket/run/_work/steps/decide/part-00000.parquet", "/tmp/decide/part-00012.parquet"]
    assert decide_parts_by_bucket(parts) == {0: parts[0], 12: parts[1]}
