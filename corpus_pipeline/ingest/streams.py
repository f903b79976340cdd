"""An input file (local or an `s3://` object) as a binary stream, decompressed on the fly by its
suffix (gzip, bzip2, zstd): read a line or a block at a time, never whole."""

from __future__ import annotations

import bz2
import gzip
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from corpus_pipeline.storage import Storage


@contextmanager
def open_stream(path: str, storage: Storage) -> Iterator[BinaryIO]:
    with storage.open(path) as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw) as stream:
                yield stream
        elif path.endswith(".bz2"):
            with bz2.BZ2File(raw) as stream:
                yield stream
        elif path.endswith(".zst"):
            import zstandard

            # zstandard's reader has read() but no readline(): buffered, it iterates over lines.
            with io.BufferedReader(zstandard.open(raw, "rb")) as stream:
                yield stream
        else:
            yield raw
