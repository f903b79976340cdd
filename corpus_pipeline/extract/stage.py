"""extract: WARC/WET/ARC files -> documents with the main text of each HTML page (`extract.engine`).

Every record of a file becomes a row: a document, or a rejected row whose reason says why
(not a response, HTTP status, not HTML, too large, no main text, a read fault...). So
`records in == kept + dropped` holds per file (a large WARC is read in byte spans, one task each:
readers/warc_spans.py; each record is read by exactly one), and a corrupt file keeps every record
before the fault and, past a corrupt gzip member, every record after it (the skipped bytes in
`read_fault_skipped_bytes`).
The engine (extract/engines.py) runs in a child process with a time limit per page
(`extract.timeout_seconds`): a page that hangs it becomes an `extract_timeout` row and the task goes
on with the next record. The child also decodes the payload (`DecodedMainText`): bytes cross the
pipe without the UTF-8 encoding and decoding that pickling a str costs (1,410 of the 1,432 real
pages are not ASCII: pickling and unpickling them took 0.58 CPU s as text, 0.12 as bytes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath

import pyarrow as pa

from corpus_pipeline.config import DomainsConfig, StorageConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA, document_id, empty_document
from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.extract.engines import Engine, main_text_engine, preload
from corpus_pipeline.extract.timed_worker import CallFailed, CallTimeout, TimedWorker, shared_worker
from corpus_pipeline.inputs import expand_crawl_inputs, name_skipped_crawl_files
from corpus_pipeline.readers.html_decode import decode_html
from corpus_pipeline.readers.warc import ReadFault, WarcRecord, read_warc
from corpus_pipeline.readers.warc_spans import warc_spans
from corpus_pipeline.stages.base import Drop, SourceStage, Verdict
from corpus_pipeline.stages.domains import DomainRules
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import absolute

_HTML_TYPES = ("text/html", "application/xhtml+xml")
# Types servers send for HTML often enough to be worth a look at the bytes.
_SNIFF_TYPES = ("", "text/plain", "application/octet-stream", "application/x-httpd-php")
_HTML_SIGNATURE = re.compile(rb"<\s*(!doctype\s+html|html|head|body|title|meta|div|p)[\s>/]", re.IGNORECASE)
_SNIFF_BYTES = 2048


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def looks_like_html(payload: bytes) -> bool:
    head = payload[:_SNIFF_BYTES]
    return b"\x00" not in head and _HTML_SIGNATURE.search(head) is not None


def is_binary(payload: bytes) -> bool:
    # UTF-16 pages start with a BOM; any other NUL in the first 2 KB means images, PDFs, archives.
    return b"\x00" in payload[:_SNIFF_BYTES] and not payload.startswith((b"\xff\xfe", b"\xfe\xff"))


class ExtractStage(SourceStage):
    name = "extract"

    def __init__(
        self,
        config: ExtractConfig | None = None,
        domains: DomainsConfig | None = None,
        storage: StorageConfig | None = None,
    ):
        self.config = config or ExtractConfig()
        # The documents' `domain`: the run's `domains:` rules, else `extract.domain`.
        self.rules = DomainRules(domains)
        self.storage = Storage(storage)
        self.page_text = DecodedMainText(main_text_engine(self.config))

    def config_fingerprint(self) -> str:
        # Not `storage`: how the files are reached (endpoint, retries) does not change what they hold.
        return repr((self.config, self.rules.config))

    def input_files(self, arguments: list[str]) -> list[str]:
        name_skipped_crawl_files(arguments, self.storage)
        return expand_crawl_inputs(arguments, self.storage)

    def output_schema(self) -> pa.Schema:
        return DOCUMENT_SCHEMA

    def spans(self, path: str, task_bytes: int) -> list[tuple[int, int]]:
        return warc_spans(path, self.storage, task_bytes)

    def read(self, path: str, stats: StageStats, span: tuple[int, int] | None = None) -> Iterator[tuple[dict, Verdict]]:
        preload(self.config)  # before the worker forks, so no child imports the engine again
        # Forked on the first page and kept for the thread's next tasks; a new engine setting, a new one.
        worker = shared_worker(repr(self.config), self.page_text)
        yield from self._read(path, stats, worker, span)

    def _read(
        self, path: str, stats: StageStats, worker: TimedWorker, span: tuple[int, int] | None
    ) -> Iterator[tuple[dict, Verdict]]:
        dump = self.config.dump or self._file_dump(path, span)
        for item in read_warc(path, self.config.max_payload_bytes, self.storage, span):
            if isinstance(item, ReadFault):
                stats.count_in(0)
                stats.count("read_faults", item.error)
                # Bytes no record was read from (up to the next readable gzip member, or the end).
                stats.count("read_fault_skipped_bytes", item.error, item.skipped_bytes)
                row = empty_document(
                    id=f"fault:{path}:{item.unread_from}",
                    text="",
                    file_path=path,
                    warc_offset=item.unread_from,
                    dump=dump,
                    source=self.config.source,
                    domain=self.config.domain,
                )
                detail = f"{item.error} at byte {item.unread_from}, {item.skipped_bytes} bytes skipped"
                yield row, Drop("read_error", f"{detail}: {item.message}")
                continue
            if item.rec_type == "warcinfo" and item.is_part_of and self.config.dump is None:
                dump = item.is_part_of  # Common Crawl names its snapshot here: CC-MAIN-2024-22
            stats.count_in(item.payload_length)
            stats.count("record_types", item.rec_type)
            yield self._record_to_row(item, path, dump, stats, worker)

    def _file_dump(self, path: str, span: tuple[int, int] | None) -> str:
        """The snapshot a span's records start in: the file's warcinfo (its first record) names it,
        as it does for the first span, which reads that record; else the file's directory."""
        dump = PurePath(absolute(path)).parent.name
        if span is None or span[0] == 0:
            return dump
        for item in read_warc(path, self.config.max_payload_bytes, self.storage, (0, 1)):  # the first record
            if isinstance(item, WarcRecord) and item.rec_type == "warcinfo" and item.is_part_of:
                dump = item.is_part_of
            break  # a file read whole by its first span (warc_spans.py) would give them all
        return dump

    def _record_to_row(
        self, rec: WarcRecord, path: str, dump: str, stats: StageStats, worker: TimedWorker
    ) -> tuple[dict, Verdict]:
        row = empty_document(
            id="",
            text="",
            url=rec.target_uri,
            date=rec.date,
            dump=dump,
            source=self.config.source,
            file_path=path,
            warc_record_id=rec.record_id,
            warc_offset=rec.offset,
            content_type=media_type(rec.http_content_type) or None,
        )
        verdict = self._extract(rec, row, stats, worker)
        row["domain"] = self.rules.domain_of(
            rec.target_uri, self.config.domain, row["text"] if verdict is None else None
        )
        row["id"] = (
            document_id(rec.target_uri, row["text"]) if verdict is None else (rec.record_id or f"{path}:{rec.offset}")
        )
        return row, verdict

    def _extract(self, rec: WarcRecord, row: dict, stats: StageStats, worker: TimedWorker) -> Verdict:
        if rec.rec_type == "conversion":  # WET: Common Crawl already extracted the text
            row["text"] = rec.payload.decode("utf-8", errors="replace").strip()
            row["charset"] = "utf-8:wet"
            return None if len(row["text"]) >= self.config.min_text_chars else Drop("no_main_text")
        if rec.rec_type not in ("response", "resource"):
            return Drop("not_a_document", rec.rec_type)
        if rec.http_status is not None and not 200 <= rec.http_status < 300:
            return Drop("http_status", str(rec.http_status))
        if rec.over_limit:
            return Drop("too_large", f"payload over {self.config.max_payload_bytes} bytes")
        mtype = row["content_type"] or ""
        if mtype not in _HTML_TYPES:
            if mtype not in _SNIFF_TYPES or not looks_like_html(rec.payload):
                return Drop("not_html", mtype or "no content type")
            stats.count("sniffed_as_html", mtype or "none")
        if is_binary(rec.payload):
            return Drop("binary_content", "NUL bytes in an HTML payload")
        try:
            text, how = self._main_text(rec.payload, rec.http_content_type, rec.target_uri, worker)
        except (CallTimeout, CallFailed) as error:
            _, how = decode_html(rec.payload, rec.http_content_type)  # the child's answer never came
            _count_charset(row, stats, how)
            if isinstance(error, CallTimeout):
                return Drop("extract_timeout", f"{rec.target_uri}: no result within {self.config.timeout_seconds} s")
            return Drop("extract_error", str(error)[:500])
        _count_charset(row, stats, how)
        row["text"] = text or ""
        if len(row["text"]) < self.config.min_text_chars:
            return Drop("no_main_text")
        if rec.warc_truncated:
            stats.count("warc_truncated", rec.warc_truncated)
        return None

    def _main_text(
        self, payload: bytes, content_type: str | None, url: str | None, worker: TimedWorker
    ) -> tuple[str | None, str]:
        """Raises CallTimeout, or CallFailed when the engine raises; anything else is not the page's fault."""
        if self.config.timeout_seconds is not None:
            return worker.call(self.config.timeout_seconds, payload, content_type, url)
        try:
            return self.page_text(payload, content_type, url)
        except Exception as error:  # lxml and trafilatura raise a zoo of errors on broken markup
            raise CallFailed(f"{type(error).__name__}: {error}") from error


class DecodedMainText:
    """A page's payload decoded (readers/html_decode.py), then the engine's main text of it:
    (text, how the payload was decoded). What the worker runs per page."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def __call__(self, payload: bytes, content_type: str | None, url: str | None) -> tuple[str | None, str]:
        html, how = decode_html(payload, content_type)
        return self.engine(html, url), how


def _count_charset(row: dict, stats: StageStats, how: str) -> None:
    row["charset"] = how
    stats.count("charsets", how.split(":")[1])
