"""The fast path of the WARC reader: fastwarc frames and inflates the records, and gives way to the
warcio path (readers/warc.py) at the first record it cannot vouch for.

fastwarc (Rust) frames and inflates the 1,432 gold pages in a fraction of warcio's CPU time
(benchmarks/README.md). It is lenient where the warcio path keeps account: a file cut inside a
record's block gives a short block and no error, a record split over two gzip members reads as
one, a whole-file-gzipped WARC reads with no usable record offsets. So a record is yielded only
once it is vouched for:

* its block is as long as its Content-Length (not cut);
* it starts where its own gzip member starts (the member inflates to `WARC/`; in a plain file the
  bytes there are `WARC/`), after the record before it: its offset is one a reader can seek to;
* the next record passed the same checks (the last record of a file is read by the warcio path,
  whose end-of-file check says whether bytes that are no record follow it).

The first record that fails, and everything after it, go to the warcio path from that record's
offset, so truncation, corrupt-member resync with its skipped bytes, ARC files, whole-file gzip
and the trailing-bytes check keep the one implementation they have there. HTTP headers and payload
decoding (chunked, gzip, br) are warcio's own parsers run on fastwarc's block: a payload is byte
for byte what the warcio path reads.
"""

from __future__ import annotations

import io
from collections import deque
from collections.abc import Iterator

from fastwarc.warc import ArchiveIterator
from warcio.recordloader import ArcWarcRecord, ArcWarcRecordLoader

from corpus_pipeline.readers.warc_record import (
    GZIP_MAGIC,
    OVER_LIMIT_PROBE,
    PROBE_COMPRESSED_BYTES,
    Progress,
    WarcRecord,
    inflates_to_a_record,
    warc_record,
)

_WARC_MAGIC = b"WARC/"
# fastwarc parses a record's headers from the reads just before it yields the record, so its first
# bytes are in the last reads; this much is kept (beyond the latest read) to look at them.
_WINDOW_BYTES = 1 << 20
_DRAIN_BYTES = 1 << 20
# A block up to this size is read in one call (the 1,432 gold pages are 173 KB on average, and
# io.BufferedReader's 8 KB reads cost as much as fastwarc's inflating); larger ones stream.
_WHOLE_BLOCK_BYTES = 4 << 20
_LOADER = ArcWarcRecordLoader()


class _Tap:
    """The file as fastwarc reads it, keeping its latest reads, so a record's first bytes can be
    looked at without reading the file twice (one object on a store). A read error ends the file
    here; the warcio path then meets it again and reports it as it always has."""

    def __init__(self, stream, position: int):
        self.stream = stream
        self.position = position  # where `stream` stands: fastwarc's record offsets count from it
        self.chunks: deque[tuple[int, bytes]] = deque()  # (offset in the file, bytes)
        self.kept = 0

    def read(self, size: int = -1) -> bytes:
        try:
            data = self.stream.read(size)
        except Exception:  # a Python error inside fastwarc's read is a panic, not an exception
            return b""
        if data:
            self.chunks.append((self.position, data))
            self.position += len(data)
            self.kept += len(data)
            while self.kept - len(self.chunks[0][1]) >= _WINDOW_BYTES + len(data):
                self.kept -= len(self.chunks.popleft()[1])
        return data

    def tell(self) -> int:
        return self.position

    def head(self, offset: int, size: int) -> bytes | None:
        """Up to `size` bytes of the file from `offset`, or None when they are no longer kept."""
        if not self.chunks or offset < self.chunks[0][0]:
            return None
        parts, wanted = [], size
        for start, data in self.chunks:
            if start + len(data) > offset and wanted > 0:
                part = data[max(offset - start, 0) :][:wanted]
                parts.append(part)
                wanted -= len(part)
        return b"".join(parts)


class _Block(io.RawIOBase):
    """fastwarc's block reader as a raw stream that counts what it gave; warcio's HTTP parser reads
    lines of any length through an io.BufferedReader on top of it."""

    def __init__(self, reader):
        self.reader = reader
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.reader.read(len(buffer))
        buffer[: len(data)] = data
        self.consumed += len(data)
        return len(data)

    def read_all(self) -> bytes:
        data = self.reader.read()
        self.consumed += len(data)
        return data


def fast_records(stream, max_payload_bytes: int, progress: Progress, stop: int) -> Iterator[WarcRecord]:
    """The records of `stream` from `progress.end` (a record's start) up to the record that starts
    at `stop` (exclusive) that fastwarc reads and the module docstring's checks vouch for, in order.
    After the last one, `progress.end` is the offset of the first record not yielded: where the
    warcio path goes on from (`stop` when every record before it was yielded)."""
    first = progress.end
    stream.seek(first)
    tap = _Tap(stream, first)
    gzipped: bool | None = None
    held: tuple[int, WarcRecord] | None = None  # yielded once the record after it is vouched for
    try:
        for record in ArchiveIterator(tap, parse_http=False):
            offset = record.stream_pos
            if gzipped is None:
                gzipped = tap.head(first, len(GZIP_MAGIC)) == GZIP_MAGIC
            if held is not None and offset <= held[0] or not _starts_a_record_at(tap, offset, gzipped):
                break
            if offset >= stop:  # the next span's first record vouches for the last one of this span
                if offset == stop and held is not None:
                    yield _emit(held, offset, progress)
                    held = None
                break
            rec = _vouched_record(record, offset, max_payload_bytes)
            if rec is None:
                break
            if held is not None:
                yield _emit(held, offset, progress)
            held = (offset, rec)
    except Exception:  # fastwarc's OSError on a corrupt member or a bad header: the warcio path's case
        pass
    # The last record vouched for is left to the warcio path too, even after a clean end: where its
    # member ends, and whether bytes that are no record follow, is that path's end-of-file check.
    if held is not None:
        progress.end = held[0]
    if progress.emitted:
        progress.gzipped = gzipped


def _emit(held: tuple[int, WarcRecord], end: int, progress: Progress) -> WarcRecord:
    progress.emitted += 1
    progress.end = end  # where the next record starts: where the warcio path would go on
    return held[1]


def _starts_a_record_at(tap: _Tap, offset: int, gzipped: bool) -> bool:
    head = tap.head(offset, PROBE_COMPRESSED_BYTES if gzipped else len(_WARC_MAGIC))
    if head is None:
        return False
    return inflates_to_a_record(head) if gzipped else head == _WARC_MAGIC


def _vouched_record(record, offset: int, max_payload_bytes: int) -> WarcRecord | None:
    """The record as the warcio path builds it, or None where that path must judge it: no type, an
    HTTP record without a target URI or whose HTTP head does not parse, a block cut short."""
    rec_type = record.headers.get("WARC-Type")
    uri = record.headers.get("WARC-Target-URI")
    length = record.content_length
    if rec_type is None or uri is None and rec_type in _LOADER.HTTP_RECORDS:
        return None
    if uri is not None and uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1]  # what warcio does to a target URI, so urls and ids stay the same
    if uri is not None and " " in uri:
        uri = uri.replace(" ", "%20")
    block = _Block(record.reader)
    raw = io.BytesIO(block.read_all()) if length <= _WHOLE_BLOCK_BYTES else io.BufferedReader(block, _DRAIN_BYTES)
    try:
        http = _LOADER.load_http_headers(rec_type, uri or "", raw, length)
        content = ArcWarcRecord("warc", rec_type, None, raw, http, None, length).content_stream()
        payload = content.read(max_payload_bytes + OVER_LIMIT_PROBE)
    except Exception:  # warcio's parsers raise many kinds on a broken HTTP head or body
        return None
    while raw.read(_DRAIN_BYTES):  # the rest of an over-limit block: is it all there?
        pass
    if block.consumed < length:
        return None
    return warc_record(rec_type, uri, record.headers.get, http, payload, offset, max_payload_bytes)
