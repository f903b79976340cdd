"""WARC/1.1 output: one gzip member per record, files rolled at a size and renamed when complete.

Each file starts with a warcinfo record; then a request and its response (or, for a page the
server reported unchanged, a request and a `revisit` record) per fetch. warcio computes the
block and payload digests. A file is written under a hidden name (storage.local_files.WholeFile) and
renamed to NAME only when closed,
so readers (the extract stage) never see a half-written WARC.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpus_pipeline.storage import local_files

SERVER_NOT_MODIFIED = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
# The body is stored decoded (as Common Crawl does), so these headers no longer describe it;
# they are kept under X-Crawler-* names for the record.
_REWRITTEN_HEADERS = ("content-encoding", "transfer-encoding", "content-length")


def warc_date(moment: datetime | None = None) -> str:
    moment = moment or datetime.now(timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _record_id() -> str:
    return f"<urn:uuid:{uuid.uuid4()}>"


def stored_response_headers(headers: list[tuple[str, str]], body_length: int) -> list[tuple[str, str]]:
    stored = []
    for name, value in headers:
        if name.lower() in _REWRITTEN_HEADERS:
            stored.append((f"X-Crawler-{name}", value))
        else:
            stored.append((name, value))
    stored.append(("Content-Length", str(body_length)))
    return stored


class RollingWarcWriter:
    def __init__(self, directory: Path, prefix: str, max_bytes: int, software: str, user_agent: str):
        self.directory = Path(directory)
        self.prefix = prefix
        self.max_bytes = max_bytes
        self.info = f"software: {software}\r\nformat: WARC File Format 1.1\r\nhttp-header-user-agent: {user_agent}\r\n"
        self.files: list[Path] = []
        self._stream = None
        self._writer: WARCWriter | None = None
        self._path: Path | None = None

    def _open(self) -> WARCWriter:
        if self._writer is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._path = self.directory / f"{self.prefix}-{len(self.files):05d}.warc.gz"
            self._whole = local_files.WholeFile(self._path)
            self._stream = open(self._whole.temporary, "wb")  # noqa: SIM115 - closed in _close
            self._writer = WARCWriter(self._stream, gzip=True, warc_version="1.1")
            info = self.info.encode()
            self._writer.write_record(
                self._writer.create_warc_record(
                    "",
                    "warcinfo",
                    payload=BytesIO(info),
                    length=len(info),
                    warc_headers_dict={"WARC-Filename": self._path.name, "WARC-Date": warc_date()},
                )
            )
        return self._writer

    def _close(self) -> None:
        if self._writer is None:
            return
        self._stream.close()
        self._whole.commit()
        self.files.append(self._path)
        self._writer = self._stream = self._path = None

    def _request_record(self, writer: WARCWriter, url: str, request_line: str, headers, date: str, concurrent: str):
        http = StatusAndHeaders(request_line, list(headers), is_http_request=True)
        extra = {"WARC-Date": date, "WARC-Concurrent-To": concurrent}
        return writer.create_warc_record(url, "request", http_headers=http, warc_headers_dict=extra)

    def write_exchange(
        self,
        url: str,
        request_line: str,
        request_headers: list[tuple[str, str]],
        status_line: str,
        response_headers: list[tuple[str, str]],
        body: bytes,
        ip: str | None,
        truncated: str | None = None,
        protocol: str = "HTTP/1.1",
    ) -> None:
        """A request record then its response record; `truncated` is the WARC-Truncated reason."""
        writer = self._open()
        date, response_id = warc_date(), _record_id()
        warc_headers = {"WARC-Record-ID": response_id, "WARC-Date": date}
        if ip:
            warc_headers["WARC-IP-Address"] = ip
        if truncated:
            warc_headers["WARC-Truncated"] = truncated
        http = StatusAndHeaders(status_line, stored_response_headers(response_headers, len(body)), protocol=protocol)
        response = writer.create_warc_record(
            url, "response", payload=BytesIO(body), length=len(body), http_headers=http, warc_headers_dict=warc_headers
        )
        writer.write_record(self._request_record(writer, url, request_line, request_headers, date, response_id))
        writer.write_record(response)
        self._roll_if_full()

    def write_not_modified(
        self,
        url: str,
        request_line: str,
        request_headers: list[tuple[str, str]],
        status_line: str,
        response_headers: list[tuple[str, str]],
        ip: str | None,
        refers_to_date: str | None,
    ) -> None:
        """A request record then a server-not-modified revisit record (the 304 headers, no body)."""
        writer = self._open()
        date, revisit_id = warc_date(), _record_id()
        warc_headers = {"WARC-Record-ID": revisit_id, "WARC-Date": date, "WARC-Profile": SERVER_NOT_MODIFIED}
        warc_headers["WARC-Refers-To-Target-URI"] = url
        if refers_to_date:
            warc_headers["WARC-Refers-To-Date"] = refers_to_date
        if ip:
            warc_headers["WARC-IP-Address"] = ip
        http = StatusAndHeaders(status_line, list(response_headers), protocol="HTTP/1.1")
        revisit = writer.create_warc_record(
            url, "revisit", payload=BytesIO(b""), length=0, http_headers=http, warc_headers_dict=warc_headers
        )
        writer.write_record(self._request_record(writer, url, request_line, request_headers, date, revisit_id))
        writer.write_record(revisit)
        self._roll_if_full()

    def _roll_if_full(self) -> None:
        if self._stream.tell() >= self.max_bytes:
            self._close()

    def close(self) -> list[Path]:
        self._close()
        return self.files
