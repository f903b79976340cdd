import zlib

from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.crawl.warc_writer import RollingWarcWriter


def _gzip_members(data: bytes) -> int:
    members = 0
    while data:
        inflater = zlib.decompressobj(wbits=31)
        inflater.decompress(data)
        data = inflater.unused_data
        members += 1
    return members


def _write(writer: RollingWarcWriter, n: int) -> None:
    for i in range(n):
        body = f"<html><body>page {i}</body></html>".encode() * 50
        headers = [("Content-Type", "text/html"), ("Content-Encoding", "gzip")]
        writer.write_exchange(
            f"http://example.com/{i}",
            f"GET /{i} HTTP/1.1",
            [("Host", "example.com")],
            "200 OK",
            headers,
            body,
            "1.2.3.4",
        )


def test_files_roll_at_the_size_and_each_is_complete_warc_1_1(tmp_path):
    writer = RollingWarcWriter(tmp_path, "crawl-00000", max_bytes=3_000, software="test", user_agent="ua")
    _write(writer, 12)
    files = writer.close()
    assert len(files) > 2 and sorted(tmp_path.iterdir()) == files  # no temporary file left behind
    for path in files:
        data = path.read_bytes()
        assert zlib.decompress(data, wbits=31).startswith(b"WARC/1.1\r\n")
        with path.open("rb") as stream:
            records = list(ArchiveIterator(stream, check_digests="raise"))
        assert records[0].rec_type == "warcinfo"
        assert [r.rec_type for r in records[1:]] == ["request", "response"] * ((len(records) - 1) // 2)
        assert _gzip_members(data) == len(records)  # one gzip member per record


def test_file_is_invisible_until_closed_and_encoding_headers_are_renamed(tmp_path):
    writer = RollingWarcWriter(tmp_path, "crawl-00001", max_bytes=10**9, software="test", user_agent="ua")
    _write(writer, 1)
    (hidden,) = [p.name for p in tmp_path.iterdir()]
    assert hidden.startswith(".crawl-00001-00000.warc.gz.") and hidden.endswith(".tmp")
    (path,) = writer.close()
    with path.open("rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == "response":
                http, body = record.http_headers, record.content_stream().read()
    assert http.get_header("X-Crawler-Content-Encoding") == "gzip"
    assert http.get_header("Content-Encoding") is None
    assert int(http.get_header("Content-Length")) == len(body) == 1600
