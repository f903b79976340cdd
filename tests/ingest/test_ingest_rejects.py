"""Each bad record is a rejected row with its reason and the task goes on; a file that cannot be
read to the end keeps what came before the fault and adds one `read_error` row."""

from __future__ import annotations

import bz2
import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ingest_inputs import ingest, kept, reasons, rejected, web_docs, wikipedia_dump, write_jsonl


@pytest.fixture(scope="module")
def pages() -> list[dict]:
    return [doc for doc in web_docs()[:40] if doc["text"].strip()][:20]


BAD_LINES = {  # line -> the reason it gets, in any chunk of good lines
    b"this is not json\n": "not_json",
    b"[1, 2, 3]\n": "not_json",
    b'{"url": "https://example.org/no-text"}\n': "missing_text",
    b'{"text": null}\n': "missing_text",
    b'{"text": 42}\n': "text_not_string",
    b'{"text": "caf\xe9 au lait"}\n': "invalid_utf8",
    b'{"text": "half a pair \\ud83d here"}\n': "invalid_utf8",
    b'{"text": ""}\n': "empty_text",
    b'{"text": " \\n\\t "}\n': "empty_text",
    b'{"id": {"nested": 1}, "text": "an id that is an object"}\n': "invalid_id",
}


def test_each_bad_json_line_is_rejected_with_its_reason_and_the_rest_kept(tmp_path, pages):
    lines = [json.dumps(page, ensure_ascii=False).encode() + b"\n" for page in pages]
    for number, bad in enumerate(BAD_LINES):
        lines.insert(2 * number + 1, bad)
    lines.append(lines[0])  # the first page again: a duplicate id
    lines.insert(5, b"\n")  # a blank line holds no record
    source = tmp_path / "mixed.jsonl"
    source.write_bytes(b"".join(lines))
    result = ingest([source], tmp_path / "out")
    expected = {}
    for reason in [*BAD_LINES.values(), "duplicate_id"]:
        expected[reason] = expected.get(reason, 0) + 1
    assert reasons(result) == expected
    # Read line by line (pyarrow refuses the chunk), the good lines give what the fast path gives.
    clean = ingest([write_jsonl(tmp_path / "clean.jsonl", pages)], tmp_path / "clean")
    columns = ["id", "text", "url", "date", "source", "domain"]
    assert kept(result, columns) == kept(clean, columns) and [r["id"] for r in kept(clean, ["id"])] == [
        page["id"] for page in pages
    ]
    rows = {r["id"]: r for r in rejected(result)}
    assert (
        rows["mixed.jsonl:line 2"]["reason"] == "not_json" and rows["mixed.jsonl:line 2"]["text"] == "this is not json"
    )
    invalid = next(r for r in rows.values() if r["text"].startswith('{"text": "caf'))
    assert invalid["reason"] == "invalid_utf8" and "\ufffd" in invalid["text"]
    duplicate = next(r for r in rows.values() if r["reason"] == "duplicate_id")
    assert duplicate["id"] == pages[0]["id"] and "earlier record" in duplicate["reject_detail"]
    assert result.stats.docs_in == len(lines) - 1 == result.stats.kept + sum(result.stats.dropped.values())


def test_same_text_without_ids_is_a_duplicate_within_the_file(tmp_path, pages):
    records = [{"text": page["text"]} for page in pages[:5]] + [{"text": pages[2]["text"]}]
    result = ingest([write_jsonl(tmp_path / "no-ids.jsonl", records)], tmp_path / "out")
    assert reasons(result) == {"duplicate_id": 1} and result.stats.kept == 5
    assert "same source and text" in rejected(result)[0]["reject_detail"]
    nulls = write_jsonl(tmp_path / "null-ids.jsonl", [{"id": None, **record} for record in records])
    assert kept(ingest([nulls], tmp_path / "nulls"), ["id"]) == kept(result, ["id"])  # a null id: none given


def test_a_text_over_the_limit_is_rejected_unstored(tmp_path, pages):
    source = write_jsonl(tmp_path / "big.jsonl", pages[:3])
    limit = sorted(len(page["text"].encode()) for page in pages[:3])[1]
    result = ingest([source], tmp_path / "out", f"ingest.max_text_bytes={limit}")
    assert reasons(result) == {"too_large": 1}
    assert rejected(result)[0]["text"] == "" and str(limit) in rejected(result)[0]["reject_detail"]


def test_bad_parquet_rows_are_rejected_with_their_reasons(tmp_path, pages):
    texts = [page["text"] for page in pages[:4]]
    raw = pa.array([t.encode() for t in texts] + [b"caf\xe9", b"", None, texts[0].encode()], pa.binary())
    table = pa.table({"id": [f"p{n}" for n in range(7)] + ["p0"], "text": raw.view(pa.string())})
    pq.write_table(table, tmp_path / "bad.parquet")
    result = ingest([tmp_path / "bad.parquet"], tmp_path / "out")
    assert reasons(result) == {"invalid_utf8": 1, "empty_text": 1, "missing_text": 1, "duplicate_id": 1}
    assert [r["text"] for r in kept(result, ["text"])] == texts
    assert {r["id"] for r in rejected(result) if r["reason"] != "duplicate_id"} == {
        f"bad.parquet:row {n}" for n in (4, 5, 6)
    }
    many = pa.table({"id": [f"r{n}" for n in range(1500)], "text": [f"row {n}" for n in range(1500)]})
    pq.write_table(pa.concat_tables([many, many.slice(3, 1)]), tmp_path / "repeat.parquet")  # batches of 1,000
    repeat = ingest([tmp_path / "repeat.parquet"], tmp_path / "repeat")
    assert reasons(repeat) == {"duplicate_id": 1} and rejected(repeat)[0]["text"] == "row 3"
    pq.write_table(pa.table({"text": pa.array([b"bytes"], pa.binary())}), tmp_path / "binary.parquet")
    assert reasons(ingest([tmp_path / "binary.parquet"], tmp_path / "out2")) == {}
    pq.write_table(pa.table({"text": pa.array([1, 2], pa.int64())}), tmp_path / "numbers.parquet")
    assert reasons(ingest([tmp_path / "numbers.parquet"], tmp_path / "out3")) == {"text_not_string": 2}


def test_pages_outside_the_article_namespace_are_rejected(tmp_path):
    dump = wikipedia_dump(tmp_path / "dump.xml.bz2", pages=60)
    markup = bz2.decompress(dump.read_bytes()).decode("utf-8")
    article = "<title>Anarchism</title>\n    <ns>0</ns>"
    assert article in markup
    talk = tmp_path / "talk.xml.bz2"
    talk.write_bytes(bz2.compress(markup.replace(article, "<title>Talk:Anarchism</title>\n    <ns>1</ns>").encode()))
    result = ingest([talk], tmp_path / "out")
    (row,) = [r for r in rejected(result) if r["reason"] == "not_an_article"]
    assert row["reject_detail"] == "namespace 1" and row["url"] == "https://en.wikipedia.org/wiki/Talk:Anarchism"
    assert "enwiki:12" not in {r["id"] for r in kept(result, ["id"])}


def test_truncated_and_corrupt_files_are_read_faults_after_their_good_records(tmp_path, pages):
    whole = gzip.compress(b"".join(json.dumps(p).encode() + b"\n" for p in pages))
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    pq.write_table(pa.Table.from_pylist(pages), tmp_path / "cut.parquet")
    data = (tmp_path / "cut.parquet").read_bytes()
    (tmp_path / "cut.parquet").write_bytes(data[: len(data) - 100])
    dump = wikipedia_dump(tmp_path / "full.xml.bz2", pages=30).read_bytes()
    (tmp_path / "cut.xml.bz2").write_bytes(dump[: len(dump) // 2])
    good = write_jsonl(tmp_path / "good.jsonl", pages[:3])
    inputs = [tmp_path / "cut.jsonl.gz", tmp_path / "cut.parquet", tmp_path / "cut.xml.bz2", good]
    result = ingest(inputs, tmp_path / "out")
    faults = [r for r in rejected(result) if r["reason"] == "read_error"]
    assert sorted(r["file_path"] for r in faults) == sorted(str(p) for p in inputs[:3])
    assert result.stats.extra["read_faults"] and result.stats.tasks == 4
    by_file = {}
    for row in kept(result, ["file_path"]):
        by_file[row["file_path"]] = by_file.get(row["file_path"], 0) + 1
    assert by_file[str(good)] == 3 and 0 < by_file.get(str(tmp_path / "cut.jsonl.gz"), 0) < len(pages)
    assert all("after" in r["reject_detail"] for r in faults)
    assert result.stats.docs_in == result.stats.kept + sum(result.stats.dropped.values())


def test_a_zstd_file_cut_inside_its_second_frame_is_a_read_fault_after_the_first(tmp_path, pages):
    import zstandard

    lines = [json.dumps(p).encode() + b"\n" for p in pages[:50]]
    first, second = (zstandard.ZstdCompressor().compress(b"".join(part)) for part in (lines[:20], lines[20:]))
    (tmp_path / "cut.jsonl.zst").write_bytes(first + second[: len(second) // 2])
    result = ingest([tmp_path / "cut.jsonl.zst"], tmp_path / "out")
    (fault,) = [r for r in rejected(result) if r["reason"] == "read_error"]
    assert "cut short" in fault["reject_detail"]
    assert 20 <= result.stats.kept < 50
    assert result.stats.docs_in == result.stats.kept + sum(result.stats.dropped.values())
