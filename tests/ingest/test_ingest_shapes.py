"""Files in the shapes other projects publish (generated here in the same shape: names, fields,
containers), each read with --format auto and nothing lost: every record is in the output or in
_rejected/ with its reason, and its other fields are in `metadata`."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard
from ingest_inputs import ingest, kept, rejected
from stage_fixtures import real_documents


def _docs(n: int) -> list[dict]:
    return real_documents(english=n // 2, chinese=n - n // 2)


def _nothing_lost(result, records: int) -> None:
    out, dropped = kept(result, ["id", "metadata"]), rejected(result)
    assert result.stats.docs_in == records == len(out) + len(dropped)
    assert all(r["reason"] and r["reject_detail"] is not None for r in dropped)


def test_dolma_documents_json_gz(tmp_path):
    """Dolma: documents/<source>-NNNN.json.gz, JSON lines with id, text, source, added, created, metadata."""
    docs = _docs(40)
    lines = [{"id": f"{n:05d}", "text": d["text"], "source": "c4", "added": "2023-03-24T17:32:58.000Z",
              "created": "2019-04-21T11:04:11.000Z", "metadata": {"url": d["url"], "length": len(d["text"])}}
             for n, d in enumerate(docs)]  # fmt: skip
    lines.append({"id": "blank", "text": "  ", "source": "c4"})
    (tmp_path / "documents").mkdir()
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines).encode()
    (tmp_path / "documents" / "c4-0000.json.gz").write_bytes(gzip.compress(body))
    result = ingest([tmp_path / "documents"], tmp_path / "out", "ingest.source_field=source")
    _nothing_lost(result, len(lines))
    row = kept(result, ["id", "source", "date", "url", "metadata"])[0]
    assert row["source"] == "c4" and row["date"] == lines[0]["created"]
    # Dolma's url is metadata.url: the url column by default, so no longer in the metadata JSON.
    assert row["url"] == docs[0]["url"]
    assert json.loads(row["metadata"]) == {"added": lines[0]["added"], "metadata": {"length": len(docs[0]["text"])}}
    assert rejected(result)[0]["id"] == "c4-0000.json.gz:line 41"


def test_fineweb_parquet(tmp_path):
    """FineWeb: data/CC-MAIN-2024-10/000_00000.parquet: text, id, dump, url, date, file_path,
    language, language_score, token_count."""
    docs = _docs(60)
    table = pa.table({
        "text": [d["text"] for d in docs], "id": [f"<urn:uuid:{n:08x}>" for n in range(60)],
        "dump": ["CC-MAIN-2024-10"] * 60, "url": [d["url"] for d in docs], "date": ["2024-02-20T10:00:00Z"] * 60,
        "file_path": ["s3://commoncrawl/crawl-data/CC-MAIN-2024-10/x.warc.gz"] * 60,
        "language": [d["language"] for d in docs], "language_score": pa.array([0.9] * 60, pa.float64()),
        "token_count": pa.array([100] * 60, pa.int64()),
    })  # fmt: skip
    (tmp_path / "data" / "CC-MAIN-2024-10").mkdir(parents=True)
    pq.write_table(table, tmp_path / "data" / "CC-MAIN-2024-10" / "000_00000.parquet")
    result = ingest([tmp_path / "data"], tmp_path / "out")
    _nothing_lost(result, 60)
    row = kept(result, ["id", "dump", "metadata"])[0]
    assert row["dump"] == "CC-MAIN-2024-10" and set(json.loads(row["metadata"])) == {
        "file_path",
        "language_score",
        "token_count",
    }


def test_redpajama_jsonl_zst(tmp_path):
    """RedPajama-1T: JSON lines with text and meta (no id), here zstd-compressed as .jsonl.zst."""
    docs = _docs(30)
    lines = [{"text": d["text"], "meta": {"url": d["url"], "language": d["language"], "timestamp": 1700000000}}
             for d in docs] + [{"text": docs[0]["text"], "meta": {}}]  # fmt: skip
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines).encode()
    (tmp_path / "en_head_0000.jsonl.zst").write_bytes(zstandard.compress(body))
    result = ingest([tmp_path / "en_head_0000.jsonl.zst"], tmp_path / "out", "ingest.url_field=meta.url")
    _nothing_lost(result, len(lines))
    assert {r["reason"] for r in rejected(result)} == {"duplicate_id"}  # the same text, hashed alike
    assert json.loads(kept(result, ["metadata"])[0]["metadata"])["meta"].keys() == {"language", "timestamp"}


def test_nemo_curator_parquet_and_jsonl(tmp_path):
    """NeMo Curator's examples: text, id (an integer) and file_name, as Parquet and JSON lines."""
    docs = _docs(20)
    records = [{"text": d["text"], "id": n, "file_name": "wiki.jsonl"} for n, d in enumerate(docs)]
    (tmp_path / "in").mkdir()
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "in" / "part.0.parquet")
    (tmp_path / "in" / "part.1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records) + "{broken\n")
    result = ingest([tmp_path / "in"], tmp_path / "out")
    _nothing_lost(result, 2 * len(records) + 1)
    assert {r["reason"] for r in rejected(result)} == {"not_json"}
    assert {r["metadata"] for r in kept(result, ["metadata"])} == {'{"file_name":"wiki.jsonl"}'}
