"""A crawl object read in byte spans (engine.task_bytes): ranged reads through the storage layer
give the documents that one task over the local file gives, its snapshot name included."""

from __future__ import annotations

from conftest import shared_data
from s3_inputs import documents, run_source, upload

from corpus_pipeline.readers.warc_spans import warc_spans
from corpus_pipeline.storage import Storage

# Common Crawl's excerpt (136 KB, its warcinfo names the snapshot) and ClueWeb09's WARC/0.18 (261 KB).
FILES = ("cc-main-2020-34-excerpt.warc.gz", "clueweb09-ja-quirk.warc.gz")
TASK_BYTES = 65_536


def test_spans_of_objects_give_the_documents_of_whole_local_files(s3_server, bucket, tmp_path):
    files = [shared_data(f"warc/{name}") for name in FILES]
    uris = upload(s3_server, bucket, files, "crawl/warc")  # a `warc/` prefix, as the folder: same `dump`
    assert [len(warc_spans(uri, Storage(), TASK_BYTES)) for uri in uris] == [3, 4]
    local = run_source("extract", [str(p) for p in files], tmp_path / "local", "engine.task_bytes=1000000")
    spans = run_source("extract", uris, tmp_path / "s3", f"engine.task_bytes={TASK_BYTES}")
    assert (local.stats.tasks, spans.stats.tasks) == (2, 7)
    assert (spans.stats.docs_in, spans.stats.kept, spans.stats.dropped) == (
        local.stats.docs_in,
        local.stats.kept,
        local.stats.dropped,
    )
    assert documents(spans) == documents(local)
    assert {row["dump"] for row in documents(spans)} == {"CC-MAIN-2020-34", "clueweb09-ja"}, (
        "spans after the first know the snapshot"
    )
