"""What both paths of the WARC reader (readers/warc.py, readers/warc_fast.py) build and share: the
record and fault items, the reading progress, and the test that a gzip member starts a record."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

# Read this much past the limit to know a payload is over it without reading it all.
OVER_LIMIT_PROBE = 1
GZIP_MAGIC = b"\x1f\x8b\x08"  # ID1, ID2, CM=deflate (RFC 1952): how every gzip member starts
# The 3-byte magic also occurs by chance inside compressed data (once per 16 MiB on average), so a
# candidate counts only when it inflates to the start of a WARC record; this much is inflated to see.
PROBE_COMPRESSED_BYTES = 4096


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
    error: str  # exception class, `Truncated` (the file ends inside a record) or `CorruptGzipMember`
    message: str
    # Bytes of the file that were not read as records because of this fault: from the end of the
    # last good record to the next readable gzip member, or to the end of the file (or of the span).
    skipped_bytes: int = 0
    # Where those bytes start, the fault's place: unique per fault of a file, and the same whether
    # the file is read whole or in spans (which record came before it, a span cannot know).
    unread_from: int = 0


@dataclass
class Progress:
    """Where reading got to, kept across a fault and across the hand-over from the fast path: what
    a resync or a fault row needs."""

    emitted: int = 0
    end: int = 0  # byte after the last complete record (its gzip member) in the file
    skips: int = 0  # corrupt stretches skipped so far
    gzipped: bool | None = None  # whether the file's first record came out of a gzip member


def inflates_to_a_record(compressed: bytes) -> bool:
    """Whether a gzip member starting with these bytes inflates to a WARC record's first line."""
    try:
        head = zlib.decompressobj(wbits=31).decompress(compressed, 16)
    except zlib.error:
        return False
    return head.startswith(b"WARC/")


def warc_record(
    rec_type: str,
    target_uri: str | None,
    header: Callable[[str], str | None],
    http,
    payload: bytes,
    offset: int,
    max_payload_bytes: int,
) -> WarcRecord:
    """The record from its WARC headers (`header(name)`), warcio's parsed HTTP headers (or None) and
    the payload read up to the limit plus one byte."""
    over_limit = len(payload) > max_payload_bytes
    status = None
    if http is not None and rec_type in ("response", "revisit"):
        try:
            status = int(http.get_statuscode())
        except (TypeError, ValueError):
            status = None
    content_type = http.get_header("Content-Type") if http is not None else header("Content-Type")
    rec = WarcRecord(
        rec_type=rec_type,
        target_uri=target_uri,
        date=header("WARC-Date"),
        record_id=header("WARC-Record-ID"),
        offset=offset,
        http_status=status,
        http_content_type=content_type,
        payload=b"" if over_limit else payload,
        payload_length=len(payload),
        over_limit=over_limit,
        warc_truncated=header("WARC-Truncated"),
    )
    if rec_type == "warcinfo":
        rec.is_part_of = _warcinfo_is_part_of(payload)
    return rec


def _warcinfo_is_part_of(payload: bytes) -> str | None:
    for line in payload.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == "ispartof":
            return value.strip() or None
    return None
