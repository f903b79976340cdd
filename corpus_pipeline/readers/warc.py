"""Read WARC (gzip or plain, WARC/0.18 to 1.1), Common Crawl WET and ARC files record by record,
never losing what was readable before a fault.

fastwarc reads the records first (readers/warc_fast.py), as long as it can vouch for each one; the
first record it cannot, and the rest of the file, are read here with warcio, where every fault is
handled. What this adds to warcio: bounded payload reads (a 200 MB page is measured, not
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
from collections.abc import Iterator

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from corpus_pipeline.readers.warc_fast import fast_records
from corpus_pipeline.readers.warc_record import (
    GZIP_MAGIC,
    OVER_LIMIT_PROBE,
    PROBE_COMPRESSED_BYTES,
    Progress,
    ReadFault,
    WarcRecord,
    inflates_to_a_record,
    warc_record,
)
from corpus_pipeline.readers.warc_spans import first_member
from corpus_pipeline.storage import Storage

__all__ = ["ReadFault", "WarcRecord", "next_gzip_member", "read_warc"]

# Bytes after the last record that are not a fault: blank lines some writers add.
_TRAILING_SLACK = 8
_SCAN_BLOCK_BYTES = 1 << 20


class _TruncatedRecord(Exception):
    """The file ended inside a record: its block is shorter than its Content-Length."""


class _CorruptMember(Exception):
    """A gzip member that does not inflate: warcio then reads it as raw bytes, and with `arc2warc`
    a first line of five fields passes for an ARC header, so garbage would become a record."""


def _is_non_chunked_gzip(error: Exception) -> bool:
    return isinstance(error, ArchiveLoadFailed) and "non-chunked gzip" in str(error)


def _to_record(record, iterator: ArchiveIterator, max_payload_bytes: int) -> WarcRecord:
    headers = record.rec_headers
    payload = record.content_stream().read(max_payload_bytes + OVER_LIMIT_PROBE)
    # Only after the payload read: asking for the offset earlier makes warcio skip the record.
    offset = iterator.get_record_offset()
    # Content-Length is mandatory (WARC 1.1 section 5.2; warcio fills it for ARC). warcio parses a header
    # block cut by EOF as if it were whole: without this, a record of no type or an empty length and no body.
    if not (headers.get_header("Content-Length") or "").strip().isdigit():
        raise _TruncatedRecord(f"the record at byte {offset} is cut inside its WARC headers")
    missing = getattr(record.raw_stream, "limit", 0)
    if missing > 0:  # warcio stops quietly at EOF; a block shorter than declared is a cut file
        raise _TruncatedRecord(f"the record at byte {offset} is cut short: {missing} bytes of its block missing")
    return warc_record(
        record.rec_type,
        headers.get_header("WARC-Target-URI"),
        headers.get_header,
        record.http_headers,
        payload,
        offset,
        max_payload_bytes,
    )


def _iterate(
    stream, max_payload_bytes: int, skip: int, file_size: int | None, progress: Progress, stop: int | None = None
) -> Iterator[WarcRecord]:
    iterator = ArchiveIterator(stream, arc2warc=True)  # offsets from stream.tell(): absolute after a seek
    start = progress.end
    for index, record in enumerate(iterator):
        if stop is not None and iterator.offset >= stop:
            return  # the record of the next span
        gzipped = iterator.reader.decompressor is not None  # per member: None once one fails to inflate
        progress.gzipped = gzipped if progress.gzipped is None else progress.gzipped
        if progress.gzipped and not gzipped:
            raise _CorruptMember(f"the gzip member at byte {iterator.offset} does not inflate")
        rec = _to_record(record, iterator, max_payload_bytes)
        offset, length = iterator.member_info
        if index >= skip:
            progress.end = offset + length
            progress.emitted += 1
            yield rec
    # A file cut inside a record's headers ends the iteration without a word from warcio: the
    # bytes after the last complete record are what was lost.
    end = max(progress.end, start)
    if file_size is not None and file_size > end + _TRAILING_SLACK:
        raise _TruncatedRecord(
            f"{file_size - end} bytes after the last complete record (byte {end}) could not be read as a record"
        )


def read_warc(
    path: str, max_payload_bytes: int, storage: Storage, span: tuple[int, int] | None = None
) -> Iterator[WarcRecord | ReadFault]:
    """Every readable record of `path` (a file or an `s3://` object) in order, with a ReadFault for
    each corrupt gzip member skipped and at most one where reading stopped.

    With `span` (start, end) (readers/warc_spans.py plans them): only the records from the first
    record member at or after `start` (byte 0 for the first span) up to the first at or after
    `end`. Both bounds come from one scan (`next_gzip_member`), so consecutive spans meet at the
    same record and each record, fault and skipped byte of the file is read by exactly one of
    them. A file whose head is no per-record-gzipped WARC (`first_member`) is read whole by its
    first span; its other spans yield nothing."""
    start, end = span if span is not None else (0, None)
    try:
        size = storage.size(path)
        stream = storage.open(path)
    except Exception as error:  # vanished, unreadable: one fault for the whole file (span)
        yield _fault(error, start, start)
        return
    with stream:
        try:
            if span is not None and first_member(stream) is None:
                first, stop = (0, size) if start == 0 else (size, size)
            else:
                first = 0 if start == 0 else _record_member_from(stream, start, size)
                stop = size if end is None or end >= size else _record_member_from(stream, end, size)
        except Exception as error:  # the store keeps failing: the span's bytes are unread
            yield _fault(error, start, min(end if end is not None else size, size))
            return
        if first < stop:
            yield from _read_records(path, stream, max_payload_bytes, storage, size, Progress(end=first), stop)


def _read_records(path, stream, max_payload_bytes: int, storage: Storage, size: int, progress: Progress, stop: int):
    """The records of the members from `progress.end` up to `stop` (see read_warc)."""
    first = progress.end
    yield from fast_records(stream, max_payload_bytes, progress, stop)
    while progress.end < stop:
        try:
            stream.seek(progress.end)
            yield from _iterate(stream, max_payload_bytes, skip=0, file_size=size, progress=progress, stop=stop)
            return
        except Exception as error:  # warcio raises many kinds on corrupt input; all become a fault
            if progress.end >= stop:  # the member at `stop` failed: the next span's fault
                return
            # Read as one stream from byte 0 only while nothing was skipped: after a resync the
            # records already yielded could not be matched to the inflated stream's.
            if _is_non_chunked_gzip(error) and progress.skips == 0 and first == 0:
                yield from _whole_file_gzip(path, max_payload_bytes, storage, size, progress)
                return
            resume = _resync(stream, progress.end + 1)
            # `stop` starts a record: a resync never passes it (None only when the store failed).
            resume = stop if resume is None else min(resume, stop)
            yield _fault(error, progress.end, resume)
            progress.end = resume
            progress.skips += 1


def _whole_file_gzip(path, max_payload_bytes: int, storage: Storage, size: int, progress: Progress):
    """One gzip member for the whole file: valid, just not seekable per record. Decompress it as
    one stream and continue after the records already yielded."""
    whole = Progress()
    with storage.open(path) as raw:
        try:
            with gzip.GzipFile(fileobj=raw) as unzipped:
                yield from _iterate(io.BufferedReader(unzipped), max_payload_bytes, progress.emitted, None, whole)
        except Exception as error:
            # Offsets here are in the inflated stream: what is left of the file is all that can be said.
            yield _fault(error, min(raw.tell(), size), size)


def _record_member_from(stream, offset: int, size: int) -> int:
    """The first gzip member at or after `offset` that starts a record; the file's size if none."""
    found = next_gzip_member(stream, offset)
    return size if found is None else found


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
        block = stream.read(_SCAN_BLOCK_BYTES + len(GZIP_MAGIC) - 1)
        if len(block) < len(GZIP_MAGIC):
            return None
        found = block.find(GZIP_MAGIC)
        while 0 <= found <= len(block) - len(GZIP_MAGIC):
            if position + found >= start and _starts_a_record(stream, position + found):
                return position + found
            found = block.find(GZIP_MAGIC, found + 1)
        position += _SCAN_BLOCK_BYTES


def _starts_a_record(stream, offset: int) -> bool:
    stream.seek(offset)
    return inflates_to_a_record(stream.read(PROBE_COMPRESSED_BYTES))


def _fault(error: Exception, unread_from: int, read_again_at: int) -> ReadFault:
    kind = {_TruncatedRecord: "Truncated", _CorruptMember: "CorruptGzipMember"}.get(type(error), type(error).__name__)
    return ReadFault(kind, _first_line(error), max(read_again_at - unread_from, 0), unread_from)


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2])[:500] or repr(error)
