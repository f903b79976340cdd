"""The Parquet reader makes its next batch in a thread (`ingest.ahead.Ahead`): the items come in
order, at most `depth` ahead of the one the caller holds; an error comes after the items made before
it, as the same exception; and a caller that stops early (`ingest.limit`) stops the thread."""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ingest_inputs import ingest, web_docs

from corpus_pipeline.config import load_config
from corpus_pipeline.ingest.ahead import Ahead
from corpus_pipeline.ingest.stage import IngestStage
from corpus_pipeline.stats import StageStats


def _threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "ingest-ahead"]


def test_items_come_in_order_and_at_most_depth_ahead():
    taken: list[int] = []
    ahead_of_caller: list[int] = []

    def numbers():
        for number in range(20):
            ahead_of_caller.append(number - len(taken))
            yield number

    with Ahead(numbers(), depth=2) as items:
        for item in items:
            time.sleep(0.002)  # the thread has time to run ahead, as far as it may
            taken.append(item)
    assert taken == list(range(20))
    assert max(ahead_of_caller) == 2 and not _threads()


def test_an_error_comes_after_the_items_made_before_it():
    def failing():
        yield 1
        yield 2
        raise OSError("the disk went away")

    got = []
    with pytest.raises(OSError, match="^the disk went away$"), Ahead(failing()) as items:
        for item in items:
            got.append(item)
    assert got == [1, 2] and not _threads()


def test_a_caller_that_stops_early_stops_the_thread_and_the_generator():
    closed = threading.Event()

    def endless():
        try:
            number = 0
            while True:
                number += 1
                yield number
        finally:
            closed.set()

    with Ahead(endless()) as items:
        assert next(items) == 1
    assert closed.is_set() and not _threads()


def test_a_parquet_reader_closed_after_its_first_table_leaves_no_thread(tmp_path):
    pages = [page for page in web_docs()[:200] if page["text"].strip()]
    path = tmp_path / "pages.parquet"
    pq.write_table(pa.Table.from_pylist(pages), path, row_group_size=10)
    config = load_config(None, ["ingest.limit=1000"]).ingest  # Parquet batches of 10 rows
    parts = IngestStage(config).read_tables(str(path), StageStats("ingest"), 10)
    assert next(parts).table.num_rows
    assert _threads()  # the next batch is being decoded
    parts.close()
    assert not _threads()


def test_a_limit_that_stops_the_file_early_leaves_no_thread(tmp_path):
    pages = [{**page, "id": f"{copy}-{page['id']}"} for copy in range(20) for page in web_docs()[:300]]
    path = tmp_path / "pages.parquet"
    pq.write_table(pa.Table.from_pylist(pages), path, row_group_size=100)  # 60 row groups
    result = ingest([path], tmp_path / "out", "ingest.limit=50")
    assert result.stats.docs_in == 50 and not _threads()
