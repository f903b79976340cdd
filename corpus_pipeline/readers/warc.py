"""Read WARC (gzip or plain, WARC/0.18 to 1.1), Common Crawl WET and ARC files record by record,
never losing what was readable before a fault.

warcio does the parsing. What this adds: bounded payload reads (a 200 MB page is measured, not
loaded), the byte offset of every record, recovery of whole-file-gzipped WARCs (warcio refuses them,
though every record is intact), and a `ReadFault` item instead of an exception when a file is
truncated or corrupt, so the records before the fault are kept and the fault is accounted for.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from corpus_pipeline.storage import Storage

# Bytes after the last record that are not a fault: blank lines some writers add.
_TRAILING_SLACK = 8
# Read this much past the limit to know a payload is over it without reading it all.
_OVER_LIMIT_PROBE = 1


@dataclass
class WarcRecord:
    rec_type: str  # response, resource, conversion (WET), request, warcinfo, metadata, revisit
    target_uri: str | None
    date: str | None
    record_id: str | None
    offset: int  # byte offset of the record in the file (in the decompressed stream when recovered)
    http_status: int | None
    http_content_type: str | None  # the HTTP header (or WARC Content-Type for resource/conversion)
    payload: bytes  # empty when over the limit
    payload_length: int  # bytes read, capped at limit + 1
    over_limit: bool
    warc_truncated: str | None  # WARC-Truncated header: the crawler cut the body
    is_part_of: str | None = None  # warcinfo `isPartOf` (Common Crawl's snapshot name)


@dataclass
class ReadFault:
    offset: int
    error: str  # exception class, or `Truncated` when the file ends inside a record
    message: str


class _TruncatedRecord(Exception):
    """The file ended inside a record: its block is shorter than its Content-Length."""


def _is_non_chunked_gzip(error: Exception) -> bool:
    return isinstance(error, ArchiveLoadFailed) and "non-chunked gzip" in str(error)


def _warcinfo_is_part_of(payload: bytes) -> str | None:
    for line in payload.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == "ispartof":
            return value.strip() or None
    return None


def _to_record(record, iterator: ArchiveIterator, max_payload_bytes: int) -> WarcRecord:
    headers = record.rec_headers
    http = record.http_headers
    payload = record.content_stream().read(max_payload_bytes + _OVER_LIMIT_PROBE)
    over_limit = len(payload) > max_payload_bytes
    # Only after the payload read: asking for the offset earlier makes warcio skip the record.
    offset = iterator.get_record_offset()
    missing = getattr(record.raw_stream, "limit", 0)
    if missing > 0:  # warcio stops quietly at EOF; a block shorter than declared is a cut file
        raise _TruncatedRecord(f"the record at byte {offset} is cut short: {missing} bytes of its block missing")
    status = None
    if http is not None and record.rec_type in ("response", "revisit"):
        try:
            status = int(http.get_statuscode())
        except (TypeError, ValueError):
            status = None
    content_type = http.get_header("Content-Type") if http is not None else headers.get_header("Content-Type")
    rec = WarcRecord(
        rec_type=record.rec_type,
        target_uri=headers.get_header("WARC-Target-URI"),
        date=headers.get_header("WARC-Date"),
        record_id=headers.get_header("WARC-Record-ID"),
        offset=offset,
        http_status=status,
        http_content_type=content_type,
        payload=b"" if over_limit else payload,
        payload_length=len(payload),
        over_limit=over_limit,
        warc_truncated=headers.get_header("WARC-Truncated"),
    )
    if record.rec_type == "warcinfo":
        rec.is_part_of = _warcinfo_is_part_of(payload)
    return rec


def _iterate(stream, max_payload_bytes: int, skip: int, file_size: int | None) -> Iterator[WarcRecord]:
    iterator = ArchiveIterator(stream, arc2warc=True)
    end = 0
    for index, record in enumerate(iterator):
        rec = _to_record(record, iterator, max_payload_bytes)
        offset, length = iterator.member_info
        end = offset + length
        if index >= skip:
            yield rec
    # A file cut inside a record's headers ends the iteration without a word from warcio: the
    # bytes after the last complete record are what was lost.
    if file_size is not None and file_size > end + _TRAILING_SLACK:
        raise _TruncatedRecord(
            f"{file_size - end} bytes after the last complete record (byte {end}) could not be read as a record"
        )


def read_warc(path: str, max_payload_bytes: int, storage: Storage) -> Iterator[WarcRecord | ReadFault]:
    """Every readable record of `path` (a file or an `s3://` object) in order, then at most one
    ReadFault where reading stopped."""
    emitted = 0
    last_offset = 0
    try:
        with storage.open(path) as stream:
            for rec in _iterate(stream, max_payload_bytes, skip=0, file_size=storage.size(path)):
                emitted += 1
                last_offset = rec.offset
                yield rec
        return
    except Exception as error:  # warcio raises many kinds on corrupt input; all become a fault
        if not _is_non_chunked_gzip(error):
            yield _fault(error, last_offset)
            return
    # One gzip member for the whole file: valid, just not seekable per record. Decompress it as
    # one stream and continue after the records already yielded.
    try:
        with storage.open(path) as raw, gzip.GzipFile(fileobj=raw) as unzipped:
            for rec in _iterate(io.BufferedReader(unzipped), max_payload_bytes, skip=emitted, file_size=None):
                last_offset = rec.offset
                yield rec
    except Exception as error:
        yield _fault(error, last_offset)


def _fault(error: Exception, last_offset: int) -> ReadFault:
    kind = "Truncated" if isinstance(error, _TruncatedRecord) else type(error).__name__
    return ReadFault(last_offset, kind, _first_line(error))


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2])[:500] or repr(error)
