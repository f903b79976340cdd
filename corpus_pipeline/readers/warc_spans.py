"""Cut a large WARC into byte spans, one task each, from its size alone; and tell, from its head,
whether a span can start inside it.

A span (start, end) is nominal: the reader (read_warc) resolves both ends to the first record
member at or after them, so the plan reads nothing of the file (its size comes from the listing)
and depends on the input alone. Spans start inside a file only when its head shows a gzip member
that inflates to a WARC record and another member after it (`first_member`): every record then
has its own member (what crawlers write), a resync from any byte finds the next record, and
compressed payloads hide anything that looks like one. Any other file (a plain WARC, where a
.warc.gz kept as a payload would pass for record members; ARC; a whole-file-gzipped WARC) is read
whole by its first span, and its other spans are empty: every task decides the same from the
same head.
"""

from __future__ import annotations

import zlib

from corpus_pipeline.readers.warc_record import GZIP_MAGIC
from corpus_pipeline.storage import Storage

# The first member of a Common Crawl WARC is its warcinfo record (~500 bytes gzipped); 1 MiB also
# holds a first response record of a few MB of HTML (gzip shrinks HTML ~5x).
_HEAD_BYTES = 1 << 20
_INFLATE_STEP = 1 << 20


def warc_spans(path: str, storage: Storage, task_bytes: int) -> list[tuple[int, int]]:
    """The spans of `path`, `task_bytes` each (the last one shorter), in file order; [] when the
    file is one span or less (one task)."""
    size = storage.size(path)
    if size <= task_bytes:
        return []
    return [(start, min(start + task_bytes, size)) for start in range(0, size, task_bytes)]


def first_member(stream) -> bytes | None:
    """The file's first gzip member when it inflates to a WARC record and another member follows
    it within `_HEAD_BYTES`; else None (module docstring). The stream is left anywhere."""
    head = _head(stream)
    if not head.startswith(GZIP_MAGIC):
        return None
    inflater = zlib.decompressobj(wbits=31)  # one gzip member; what follows it is `unused_data`
    try:
        text = inflater.decompress(head, _INFLATE_STEP)
        if not text.startswith(b"WARC/"):
            return None
        while not inflater.eof and inflater.unconsumed_tail:  # inflated in steps: a bomb costs no memory
            inflater.decompress(inflater.unconsumed_tail, _INFLATE_STEP)
    except zlib.error:
        return None
    if not (inflater.eof and inflater.unused_data.startswith(GZIP_MAGIC)):
        return None
    return head[: len(head) - len(inflater.unused_data)]


def _head(stream) -> bytes:
    """The first `_HEAD_BYTES` of the file, or all of a smaller one: every task must see the same
    head, so a short read is read on. Past the buffer: small ranged reads on a store, not a whole
    read block (8 MiB)."""
    stream.seek(0)
    raw = getattr(stream, "raw", stream)
    parts: list[bytes] = []
    wanted = _HEAD_BYTES
    while wanted > 0 and (part := raw.read(wanted)):
        parts.append(part)
        wanted -= len(part)
    return b"".join(parts)
