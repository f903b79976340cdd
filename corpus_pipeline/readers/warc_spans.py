"""Cut a large per-record-gzipped WARC into byte spans, one task each, from its size and its head.

A span (start, end) is nominal: the reader (read_warc) resolves both ends to the first record
member at or after them, so the plan needs no scan of the file, only its size, and depends on the
input alone. A file is split only when its first bytes (one small read on the driver, also on a
store) show a gzip member that inflates to a WARC record and is followed, within `_HEAD_BYTES`, by
another member: every record then has its own member (what crawlers write) and a resync from any byte finds the next
record; compressed payloads hide anything that looks like one. Left whole, one task: plain WARCs
(a .warc.gz kept as a payload would pass for record members), ARC files, whole-file-gzipped WARCs
(a first span would read them whole, the others find nothing: empty tasks), files of one span or less.
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
    file is read whole (module docstring)."""
    size = storage.size(path)
    if size <= task_bytes:
        return []
    with storage.open(path) as stream:
        head = stream.read(_HEAD_BYTES)
    if not _first_member_is_a_record(head):
        return []
    return [(start, min(start + task_bytes, size)) for start in range(0, size, task_bytes)]


def _first_member_is_a_record(head: bytes) -> bool:
    """Whether `head` starts with a gzip member that inflates to a WARC record and another member
    follows it inside `head` (in a whole-file gzip nothing follows the one member)."""
    if not head.startswith(GZIP_MAGIC):
        return False
    inflater = zlib.decompressobj(wbits=31)  # one gzip member; what follows it is `unused_data`
    try:
        text = inflater.decompress(head, _INFLATE_STEP)
        if not text.startswith(b"WARC/"):
            return False
        while not inflater.eof and inflater.unconsumed_tail:  # inflated in steps: a bomb costs no memory
            inflater.decompress(inflater.unconsumed_tail, _INFLATE_STEP)
    except zlib.error:
        return False
    return inflater.eof and inflater.unused_data.startswith(GZIP_MAGIC)
