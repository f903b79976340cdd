"""ingest on real text in each format: every record kept with its text, id and provenance, and the
same documents whatever the container (plain, gzip or zstd JSON lines; Parquet)."""

from __future__ import annotations

import gzip

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard
from ingest_inputs import ingest, kept, reasons, rejected, web_docs, wikipedia_dump, write_jsonl
from stage_fixtures import real_documents


def test_jsonl_of_the_real_pages_keeps_every_page_with_a_text(tmp_path):
    docs = web_docs()
    source = write_jsonl(tmp_path / "pages.jsonl", docs)
    result = ingest([source], tmp_path / "out", "ingest.source=webdocs")
    with_text = {d["id"]: d for d in docs if d["text"].strip()}
    rows = kept(result, ["id", "text", "url", "source", "domain", "file_path"])
    assert {r["id"] for r in rows} == set(with_text)
    assert all(r["text"] == with_text[r["id"]]["text"] and r["url"] == with_text[r["id"]]["url"] for r in rows)
    assert {(r["source"], r["domain"], r["file_path"]) for r in rows} == {("webdocs", "general", str(source))}
    assert reasons(result) == ({"empty_text": len(docs) - len(with_text)} if len(docs) > len(with_text) else {})
    assert result.stats.docs_in == len(docs) == result.stats.kept + sum(result.stats.dropped.values())


def test_gzip_and_zstd_json_lines_give_the_same_documents(tmp_path):
    docs = web_docs()[:300]
    plain = write_jsonl(tmp_path / "plain.jsonl", docs)
    (tmp_path / "docs.jsonl.gz").write_bytes(gzip.compress(plain.read_bytes()))
    (tmp_path / "docs.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    tables = [
        kept(ingest([tmp_path / name], tmp_path / f"out-{number}"), ["id", "text", "url"])
        for number, name in enumerate(("plain.jsonl", "docs.jsonl.gz", "docs.jsonl.zst"))
    ]
    assert tables[0] == tables[1] == tables[2] and len(tables[0]) > 290


def test_fineweb_style_parquet_maps_its_columns(tmp_path):
    docs = real_documents(english=60, chinese=60)
    rows = [
        {"text": d["text"], "id": f"<urn:uuid:{n}>", "url": d["url"], "date": "2024-05-18T10:00:00Z",
         "dump": "CC-MAIN-2024-22", "language": d["language"], "token_count": 7}
        for n, d in enumerate(docs)
    ]  # fmt: skip
    (tmp_path / "in").mkdir()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in" / "000_00000.parquet")
    result = ingest([tmp_path / "in"], tmp_path / "out", "ingest.source=fineweb", "ingest.domain=web")
    out = kept(result, ["id", "text", "url", "date", "dump", "language", "source", "domain"])
    assert out == [
        {k: r[k] for k in ("id", "text", "url", "date", "dump", "language")} | {"source": "fineweb", "domain": "web"}
        for r in rows
    ]


def test_dolma_style_parquet_reads_nested_and_renamed_fields(tmp_path):
    docs = real_documents(english=10, chinese=10)
    table = pa.table(
        {
            "doc_id": pa.array(range(len(docs)), pa.int64()),
            "raw_content": [d["text"] for d in docs],
            "created": pa.array([1_700_000_000] * len(docs), pa.timestamp("s")),
            "metadata": [{"url": d["url"], "length": len(d["text"])} for d in docs],
        }
    )
    pq.write_table(table, tmp_path / "dolma.parquet")
    overrides = ("ingest.text_field=raw_content", "ingest.id_field=doc_id", "ingest.date_field=created")
    result = ingest([tmp_path / "dolma.parquet"], tmp_path / "out", *overrides, "ingest.url_field=metadata.url")
    out = kept(result, ["id", "text", "url", "date"])
    assert [r["id"] for r in out] == [str(n) for n in range(len(docs))]
    assert [(r["text"], r["url"]) for r in out] == [(d["text"], d["url"]) for d in docs]
    assert {r["date"] for r in out} == {"2023-11-14T22:13:20Z"}


def test_text_as_blocks_and_as_whole_files(tmp_path):
    docs = real_documents(english=8, chinese=8)
    blocks = tmp_path / "daily.txt"
    blocks.write_text("\n\n\n".join(d["text"] for d in docs) + "\n", encoding="utf-8")
    result = ingest([blocks], tmp_path / "blocks", "ingest.text_unit=block")
    assert [r["text"] for r in kept(result, ["text"])] == [d["text"] for d in docs]
    for number, doc in enumerate(docs[:3]):
        (tmp_path / "files").mkdir(exist_ok=True)
        (tmp_path / "files" / f"{number}.txt").write_text("\ufeff" + doc["text"] + "\n", encoding="utf-8")
    whole = ingest([tmp_path / "files"], tmp_path / "whole")
    assert [r["text"] for r in kept(whole, ["text"])] == [d["text"] for d in docs[:3]]
    assert whole.stats.tasks == 3


def test_text_as_lines_skips_blank_ones_and_rejects_a_bad_line_by_its_number(tmp_path):
    docs = [d["text"].replace("\n", " ") for d in real_documents(english=4, chinese=4)]
    lines = tmp_path / "sentences.txt"
    lines.write_bytes(("\n".join(docs[:5]) + "\n\n").encode() + b"caf\xe9\n" + "\n".join(docs[5:]).encode())
    result = ingest([lines], tmp_path / "lines", "ingest.text_unit=line")
    assert [r["text"] for r in kept(result, ["text"])] == docs
    (bad,) = rejected(result)
    assert bad["reason"] == "invalid_utf8" and "line 7" in bad["id"], bad


def test_wikipedia_dump_keeps_articles_with_their_urls_and_rejects_redirects(tmp_path):
    dump = wikipedia_dump(tmp_path / "enwiki.xml.bz2", pages=60)
    result = ingest([dump], tmp_path / "out", "ingest.source=wikipedia", "ingest.domain=encyclopedia")
    articles = kept(result, ["id", "text", "url", "date", "dump", "domain"])
    redirects = [r for r in rejected(result) if r["reason"] == "wiki_redirect"]
    assert len(articles) + len(redirects) == 60 and articles and redirects
    first = articles[0]
    assert first["id"] == "enwiki:12" and first["url"] == "https://en.wikipedia.org/wiki/Anarchism"
    assert first["text"].startswith("Anarchism is a political philosophy") and first["dump"] == "enwiki"
    assert first["date"].endswith("Z") and {r["domain"] for r in articles} == {"encyclopedia"}
    for article in articles:  # markup, references, file and category links are gone
        assert not any(mark in article["text"] for mark in ("{{", "[[", "<ref", "Category:", "thumb|"))
    assert all(" -> " in r["reject_detail"] for r in redirects)


def test_a_folder_of_wikipedia_dump_parts_is_read_by_their_names(tmp_path):
    """Wikipedia names the parts of a split dump `...-pages-articles1.xml-p1p41242.bz2`."""
    (tmp_path / "dumps").mkdir()
    wikipedia_dump(tmp_path / "dumps" / "enwiki-20240601-pages-articles1.xml-p1p41242.bz2", pages=10)
    wikipedia_dump(tmp_path / "dumps" / "enwiki-20240601-pages-articles2.xml-p41243p151573.bz2", pages=20)
    result = ingest([tmp_path / "dumps"], tmp_path / "out")
    assert result.stats.tasks == 2 and result.stats.extra["formats"] == {"wikipedia": 2}
    assert result.stats.docs_in == 30
