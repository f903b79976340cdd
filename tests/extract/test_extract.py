"""extract on WARCs made here (every branch) and on the real edge-case files of ../shared/data."""

from __future__ import annotations

import gzip

import pyarrow.parquet as pq
import pytest
from conftest import html_page, shared_data, write_warc

from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.inputs import expand_crawl_inputs
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

ARTICLE = "<p>" + "The committee approved the new river restoration plan after a long debate. " * 6 + "</p>"
CHINESE = "<p>" + "国务院总理在北京主持召开常务会议，研究部署进一步促进经济平稳运行的措施。" * 4 + "</p>"


def extract_all(path, **config):
    stats = StageStats("extract")
    rows = list(ExtractStage(ExtractConfig(**config)).read(str(path), stats))
    stats.kept = sum(v is None for _, v in rows)
    stats.dropped.update(v.reason for _, v in rows if v is not None)
    stats.check_balanced()
    return rows, stats


def test_each_record_is_kept_or_rejected_with_a_reason(tmp_path):
    warc = write_warc(
        tmp_path / "mixed.warc.gz",
        [
            {"url": "https://news.example/a", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"},
            {"url": "https://news.example/a", "payload": b"GET /a HTTP/1.1\r\n\r\n", "rec_type": "request"},
            {
                "url": "https://news.example/missing",
                "payload": b"<html>gone</html>",
                "status": 404,
                "content_type": "text/html",
            },
            {"url": "https://news.example/doc.pdf", "payload": b"%PDF-1.4 \x00\x01", "content_type": "application/pdf"},
            {
                "url": "https://news.example/empty",
                "payload": b"<html><body></body></html>",
                "content_type": "text/html",
            },
            {
                "url": "https://news.example/big",
                "payload": html_page(ARTICLE * 50).encode(),
                "content_type": "text/html",
            },
            {"url": "https://news.example/bin", "payload": b"<html>\x00\x00\x00binary", "content_type": "text/html"},
        ],
    )
    rows, stats = extract_all(warc, max_payload_bytes=20_000)
    reasons = [(row["url"], verdict.reason if verdict else None) for row, verdict in rows]
    assert reasons == [
        ("https://news.example/a", None),
        ("https://news.example/a", "not_a_document"),
        ("https://news.example/missing", "http_status"),
        ("https://news.example/doc.pdf", "not_html"),
        ("https://news.example/empty", "no_main_text"),
        ("https://news.example/big", "too_large"),
        ("https://news.example/bin", "binary_content"),
    ]
    kept = rows[0][0]
    assert "river restoration plan" in kept["text"] and "Contact us" not in kept["text"]
    assert kept["warc_record_id"].startswith("<urn:uuid:") and kept["warc_offset"] == 0
    assert kept["file_path"] == str(warc) and kept["date"] and kept["content_type"] == "text/html"
    assert stats.docs_in == 7


def test_charset_from_meta_when_the_header_has_none(tmp_path):
    page = html_page(CHINESE, head_extra='<meta charset="gb2312">').encode("gb18030")
    warc = write_warc(
        tmp_path / "gbk.warc.gz", [{"url": "http://cn.example/", "payload": page, "content_type": "text/html"}]
    )
    ((row, verdict),) = extract_all(warc)[0]
    assert verdict is None
    assert "国务院总理在北京主持召开常务会议" in row["text"]
    assert row["charset"] == "gb18030:meta"


def test_a_gb18030_page_with_a_lying_latin1_header_keeps_its_chinese(tmp_path):
    page = html_page(CHINESE).encode("gb18030")
    warc = write_warc(
        tmp_path / "lying.warc.gz",
        [{"url": "http://cn.example/", "payload": page, "content_type": "text/html; charset=iso-8859-15"}],
    )
    rows, stats = extract_all(warc)
    ((row, verdict),) = rows
    assert verdict is None and "国务院总理在北京主持召开常务会议" in row["text"]
    assert row["charset"] == "gb18030:override" and stats.extra["charsets"] == {"override": 1}


def test_html_served_with_a_generic_type_is_sniffed(tmp_path):
    warc = write_warc(
        tmp_path / "sniff.warc.gz",
        [
            {
                "url": "http://x.example/",
                "payload": b"  \n" + html_page(ARTICLE).encode(),
                "content_type": "application/octet-stream",
            },
            {"url": "http://x.example/data", "payload": b'{"a": 1}', "content_type": "application/octet-stream"},
        ],
    )
    (_, first), (_, second) = extract_all(warc)[0]
    assert first is None and second.reason == "not_html"


def test_truncated_file_keeps_records_before_the_fault(tmp_path):
    records = [
        {
            "url": f"https://news.example/{i}",
            "payload": html_page(ARTICLE + f"<p>Story {i}.</p>").encode(),
            "content_type": "text/html",
        }
        for i in range(5)
    ]
    full = write_warc(tmp_path / "full.warc.gz", records).read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(full[: int(len(full) * 0.7)])
    rows, stats = extract_all(cut)
    kept = [row for row, verdict in rows if verdict is None]
    faults = [(row, verdict) for row, verdict in rows if verdict is not None]
    assert 2 <= len(kept) < 5
    assert [verdict.reason for _, verdict in faults] == ["read_error"]
    assert faults[0][0]["file_path"] == str(cut)
    assert sum(stats.extra["read_faults"].values()) == 1


def test_whole_file_gzip_is_recovered(tmp_path):
    records = [
        {"url": f"https://news.example/{i}", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"}
        for i in range(3)
    ]
    plain = tmp_path / "plain.warc"
    write_warc(tmp_path / "members.warc.gz", records)
    plain.write_bytes(gzip.decompress((tmp_path / "members.warc.gz").read_bytes()))
    single_member = tmp_path / "single.warc.gz"
    single_member.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, single_member):
        rows, _ = extract_all(path)
        assert [v for _, v in rows] == [None, None, None], path.name


def test_wet_conversion_records_are_taken_as_text(tmp_path):
    wet = shared_data("warc/cc-main-2024-22-one-page.warc.wet.gz")
    rows, _ = extract_all(wet)
    kept = [row for row, verdict in rows if verdict is None]
    assert len(kept) == 1 and kept[0]["charset"] == "utf-8:wet" and len(kept[0]["text"]) > 500
    assert kept[0]["dump"] == "CC-MAIN-2024-22"


@pytest.mark.realdata
def test_every_edge_case_file_gets_a_per_file_account():
    edge = shared_data("warc/edge")
    for path in sorted(edge.iterdir()):
        rows, stats = extract_all(path)
        assert stats.docs_in == len(rows) >= 1, path.name
    rows, _ = extract_all(edge / "example-wrong-chunks.warc.gz")
    assert "read_error" in [v.reason for _, v in rows if v is not None]
    rows, _ = extract_all(edge / "example.arc.gz")
    assert [r["url"] for r, v in rows if v is None] == ["http://example.com/"]
    rows, _ = extract_all(edge / "example-bad-non-chunked.warc.gz")
    assert len(rows) == 6 and not any(v and v.reason == "read_error" for _, v in rows)


@pytest.mark.realdata
def test_common_crawl_chinese_pages_decode(tmp_path):
    rows, stats = extract_all(shared_data("warc/cc-main-2020-34-excerpt.warc.gz"))
    kept = [row for row, verdict in rows if verdict is None]
    chinese = [row for row in kept if sum("\u4e00" <= ch <= "\u9fff" for ch in row["text"]) > 50]
    assert len(chinese) >= 8, [r["url"] for r in kept]
    assert all("\ufffd" not in row["text"] for row in chinese)
    assert {row["dump"] for row in kept} == {"CC-MAIN-2020-34"}


def test_the_stage_writes_parquet_through_the_runner(tmp_path):
    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.engine.lifecycle import run_chain

    warc = write_warc(
        tmp_path / "one.warc.gz",
        [{"url": "https://a.example/", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"}],
    )
    result = run_chain([ExtractStage()], [str(warc)], [tmp_path / "out"], LocalExecutor(), storage=Storage())[0]
    table = pq.read_table(result.output / "part-00000.parquet")
    assert table.num_rows == 1 and table.schema.field("text").type == "string"
    assert pq.ParquetFile(result.output / "part-00000.parquet").metadata.row_group(0).column(0).compression == "ZSTD"


def test_a_folder_s_files_that_are_no_crawl_are_named_as_skipped_once(tmp_path, caplog):
    """As ingest names the files of a folder it skips; a listing alone (run's preflight) names none."""
    page = {"url": "https://a.example/", "payload": html_page("text " * 50).encode(), "content_type": "text/html"}
    (tmp_path / "crawl").mkdir()
    warc = write_warc(tmp_path / "crawl" / "a.warc.gz", [page])
    (tmp_path / "crawl" / "README.md").write_text("where these came from")
    (tmp_path / "crawl" / ".notes").write_text("hidden: not named")
    stage = ExtractStage()
    with caplog.at_level("WARNING", logger="corpus_pipeline.inputs"):
        assert expand_crawl_inputs([str(tmp_path / "crawl")], Storage()) == [str(warc)]
        assert stage.input_files([str(tmp_path / "crawl")]) == [str(warc)]
        stage.input_files([str(warc)])  # run's step gives the stage the files it listed
    skipped = [record.getMessage() for record in caplog.records]
    assert skipped == [f"extract: skipped {tmp_path / 'crawl' / 'README.md'}: not a WARC, ARC or WET file name "
                       "(.warc, .warc.gz, .arc, .arc.gz, .wet, .wet.gz, .warc.wet.gz)"]  # fmt: skip
