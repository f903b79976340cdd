"""JSON lines are read in chunks of whole lines through one reused buffer: whatever the chunk size,
every line is read once, in order, with its own line number, including lines longer than a chunk
or than the room the buffer keeps for the line a chunk cut."""

from __future__ import annotations

import json

import pytest
from ingest_inputs import ingest, kept, rejected, web_docs

from corpus_pipeline.ingest import jsonl


@pytest.fixture(scope="module")
def pages() -> list[dict]:
    return [doc for doc in web_docs()[:120] if doc["text"].strip()][:80]


def test_small_chunks_give_the_rows_and_line_numbers_of_one_chunk(tmp_path, pages, monkeypatch):
    lines = [json.dumps(page, ensure_ascii=False).encode() + b"\n" for page in pages]
    lines.insert(37, b"not json at line 38\n")
    lines.insert(61, b'{"text": "caf\xe9"}\n')  # line 62
    source = tmp_path / "pages.jsonl"
    source.write_bytes(b"".join(lines))
    longest = max(len(line) for line in lines)
    whole = ingest([source], tmp_path / "whole")
    # Chunks of 4 KiB and 1 KiB of room for a cut line: most pages are longer than either.
    monkeypatch.setattr(jsonl, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(jsonl, "_TAIL_ROOM", 1024)
    monkeypatch.setattr(jsonl, "_READ_OPTIONS", jsonl.pj.ReadOptions(block_size=2048))
    assert longest > 4096 + 1024
    small = ingest([source], tmp_path / "small")
    columns = ["id", "text", "url", "metadata"]
    assert kept(small, columns) == kept(whole, columns) and len(kept(small, ["id"])) == len(pages)
    assert {r["id"]: r["reason"] for r in rejected(small)} == {
        "pages.jsonl:line 38": "not_json",
        "pages.jsonl:line 62": "invalid_utf8",
    }
    assert small.stats.docs_in == len(lines) == whole.stats.docs_in
