"""extract on a WARC cut into byte spans (engine.task_bytes): several tasks, every record counted
once, and the same documents in the same order with the same ids as one task for the whole file."""

from __future__ import annotations

import io
from functools import partial

import pyarrow.parquet as pq
from conftest import word_pages
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.task_plan import plan_file_tasks
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

SNAPSHOT = "CC-MAIN-2099-01"


def _warc_with_warcinfo(path, pages):
    """A per-record-gzipped WARC whose first record names its snapshot, as Common Crawl's do."""
    with open(path, "wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        writer.write_record(writer.create_warcinfo_record(path.name, {"isPartOf": SNAPSHOT}))
        for page in pages:
            http = StatusAndHeaders("200 OK", [("Content-Type", page["content_type"])], protocol="HTTP/1.1")
            record = writer.create_warc_record(
                page["url"], "response", payload=io.BytesIO(page["payload"]), http_headers=http
            )
            writer.write_record(record)
    return path


def _extract(warc, output, task_bytes: int):
    config = load_config(None, [f"engine.task_bytes={task_bytes}"])
    return run_stage("extract", [str(warc)], output, config, LocalExecutor())


def test_spans_give_the_documents_of_one_task(tmp_path):
    warc = _warc_with_warcinfo(tmp_path / "pages.warc.gz", word_pages(150, seed=3))
    size = warc.stat().st_size
    assert size > 4 * 65_536, "big enough for four spans of the smallest task size"
    whole = _extract(warc, tmp_path / "whole", size)
    spans = _extract(warc, tmp_path / "spans", 65_536)
    assert whole.stats.tasks == 1 and spans.stats.tasks == -(-size // 65_536)
    assert spans.stats.docs_in == whole.stats.docs_in == 151  # the warcinfo record too
    assert spans.stats.kept + sum(spans.stats.dropped.values()) == spans.stats.docs_in
    kept = [pq.read_table(part).to_pylist() for part in sorted((tmp_path / "spans").glob("part-*.parquet"))]
    assert sum(1 for part in kept if part) > 1, "the documents come from several tasks"
    one = pq.read_table(tmp_path / "whole").to_pylist()
    assert [row for part in kept for row in part] == one
    assert {row["dump"] for row in one} == {SNAPSHOT}, "every span knows the file's snapshot"
    tasks = plan_file_tasks([str(warc)], Storage(), partial(ExtractStage().spans, task_bytes=65_536))
    assert tasks[1].identity == f"{Storage().identity(str(warc))}|bytes 65536-131072" and tasks[1].span == (
        65_536,
        131_072,
    )
