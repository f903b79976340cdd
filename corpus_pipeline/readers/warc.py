"""Read WARC (gzip or plain, WARC/0.18 to 1.1), Common Crawl WET and ARC files record by record,
never losing what was readable before a fault.

warcio does the parsing. What this adds: bounded payload reads (a 200 MB page is measured, not
loaded), the byte offset of every record, recovery of whole-file-gzipped WARCs (warcio refuses them,
though every record is intact), and a `ReadFault` item instead of an exception when a file is
truncated or corrupt, so the records before the fault are kept and the fault is accounted for.

A corrupt gzip member in the middle of a file (a flipped block on a disk, a bad copy) does not end
the file: the reader looks for the next gzip member that starts a WARC record and goes on from
there, and the fault says how many bytes it skipped (`ReadFault.skipped_bytes`). Per-record gzip is
what makes this possible (the WARC standard's recommendation, and what every crawler writes); a
fault in a plain or whole-file-gzipped WARC still ends the file, the rest counted as skipped.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from corpus_pipeline.storage import Storage

# Bytes after the last record that are not a fault: blank lines some writers add.
_TRAILING_SLACK = 8
# Read this much past the limit to know a payload is over it without reading it all.
_OVER_LIMIT_PROBE = 1
_GZIP_MAGIC = b"\x1f\x8b\x08"  # ID1, ID2, CM=deflate (RFC 1952): how every gzip member starts
# The 3-byte magic also occurs by chance inside compressed data (once per 16 MiB on average), so a
# candidate counts only when it inflates to the start of a WARC record; this much is inflated to see.
_PROBE_COMPRESSED_BYTES = 4096
_SCAN_BLOCK_BYTES = 1 << 20


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
    error: str  # exception class, `Truncated` (the file ends inside a record) or `CorruptGzipMember`
    message: str
    # Bytes of the file that were not read as records because of this fault: from the end of the
    # last good record to the next readable gzip member, or to the end of the file.
    skipped_bytes: int = 0
    unread_from: int = 0  # where those bytes start: unique per fault of a file


class _TruncatedRecord(Exception):
    """The file ended inside a record: its block is shorter than its Content-Length."""


class _CorruptMember(Exception):
    """A gzip member that does not inflate: warcio then reads it as raw bytes, and with `arc2warc`
    a first line of five fields passes for an ARC header, so garbage would become a record."""


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


@dataclass
class _Progress:
    """Where reading got to, kept across a fault: what a resync or a fault row needs."""

    emitted: int = 0
    last_offset: int = 0  # offset of the last record read
    end: int = 0  # byte after the last complete record (its gzip member) in the file
    skips: int = 0  # corrupt stretches skipped so far
    gzipped: bool | None = None  # whether the file's first record came out of a gzip member


def _iterate(
    stream, max_payload_bytes: int, skip: int, file_size: int | None, progress: _Progress
) -> Iterator[WarcRecord]:
    iterator = ArchiveIterator(stream, arc2warc=True)  # offsets from stream.tell(): absolute after a seek
    start = progress.end
    for index, record in enumerate(iterator):
        gzipped = iterator.reader.decompressor is not None  # per member: None once one fails to inflate
        progress.gzipped = gzipped if progress.gzipped is None else progress.gzipped
        if progress.gzipped and not gzipped:
            raise _CorruptMember(f"the gzip member at byte {iterator.offset} does not inflate")
        rec = _to_record(record, iterator, max_payload_bytes)
        offset, length = iterator.member_info
        if index >= skip:
            progress.end = offset + length
            progress.last_offset = rec.offset
            progress.emitted += 1
            yield rec
    # A file cut inside a record's headers ends the iteration without a word from warcio: the
    # bytes after the last complete record are what was lost.
    end = max(progress.end, start)
    if file_size is not None and file_size > end + _TRAILING_SLACK:
        raise _TruncatedRecord(
            f"{file_size - end} bytes after the last complete record (byte {end}) could not be read as a record"
        )


def read_warc(path: str, max_payload_bytes: int, storage: Storage) -> Iterator[WarcRecord | ReadFault]:
    """Every readable record of `path` (a file or an `s3://` object) in order, with a ReadFault for
    each corrupt gzip member skipped and at most one where reading stopped."""
    progress = _Progress()
    try:
        size = storage.size(path)
        stream = storage.open(path)
    except Exception as error:  # vanished, unreadable: one fault for the whole file
        yield _fault(error, 0, 0, 0)
        return
    with stream:
        while True:
            try:
                stream.seek(progress.end)
                yield from _iterate(stream, max_payload_bytes, skip=0, file_size=size, progress=progress)
                return
            except Exception as error:  # warcio raises many kinds on corrupt input; all become a fault
                # Read as one stream from byte 0 only while nothing was skipped: after a resync the
                # records already yielded could not be matched to the inflated stream's.
                if _is_non_chunked_gzip(error) and progress.skips == 0:
                    break
                resume = _resync(stream, progress.end + 1)
                yield _fault(error, progress.last_offset, progress.end, size if resume is None else resume)
                if resume is None:
                    return
                progress.end = resume
                progress.skips += 1
    # One gzip member for the whole file: valid, just not seekable per record. Decompress it as
    # one stream and continue after the records already yielded.
    whole = _Progress(last_offset=progress.last_offset)
    with storage.open(path) as raw:
        try:
            with gzip.GzipFile(fileobj=raw) as unzipped:
                yield from _iterate(io.BufferedReader(unzipped), max_payload_bytes, progress.emitted, None, whole)
        except Exception as error:
            # Offsets here are in the inflated stream: what is left of the file is all that can be said.
            yield _fault(error, whole.last_offset, min(raw.tell(), size), size)


def _resync(stream, start: int) -> int | None:
    try:
        return next_gzip_member(stream, start)
    except Exception:  # the file itself cannot be read (a store that keeps failing): stop at the fault
        return None


def next_gzip_member(stream, start: int) -> int | None:
    """Offset of the first gzip member at or after `start` that inflates to a WARC record's first
    line, or None. Reads the file block by block; the stream is left anywhere."""
    position = start
    while True:
        stream.seek(position)
        block = stream.read(_SCAN_BLOCK_BYTES + len(_GZIP_MAGIC) - 1)
        if len(block) < len(_GZIP_MAGIC):
            return None
        found = block.find(_GZIP_MAGIC)
        while 0 <= found <= len(block) - len(_GZIP_MAGIC):
            if position + found >= start and _starts_a_record(stream, position + found):
                return position + found
            found = block.find(_GZIP_MAGIC, found + 1)
        position += _SCAN_BLOCK_BYTES


def _starts_a_record(stream, offset: int) -> bool:
    stream.seek(offset)
    try:
        head = zlib.decompressobj(wbits=31).decompress(stream.read(_PROBE_COMPRESSED_BYTES), 16)
    except zlib.error:
        return False
    return head.startswith(b"WARC/")


def _fault(error: Exception, last_offset: int, unread_from: int, read_again_at: int) -> ReadFault:
    kind = {_TruncatedRecord: "Truncated", _CorruptMember: "CorruptGzipMember"}.get(type(error), type(error).__name__)
    return ReadFault(last_offset, kind, _first_line(error), max(read_again_at - unread_from, 0), unread_from)


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2])[:500] or repr(error)
