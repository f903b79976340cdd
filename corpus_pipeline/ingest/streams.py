"""An input file (local or an `s3://` object) as a binary stream, decompressed on the fly by its
content (the magic bytes of gzip, bzip2, xz, zstd; formats.COMPRESSIONS), whatever its name says:
read a line or a block at a time, never whole."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from corpus_pipeline.ingest.formats import compression_of
from corpus_pipeline.storage import Storage


@contextmanager
def open_stream(path: str, storage: Storage) -> Iterator[BinaryIO]:
    with storage.open(path) as raw:
        compression = compression_of(raw.peek(8)[:8])  # both kinds of stream are io.BufferedReader
        if compression == "gzip":
            with gzip.GzipFile(fileobj=raw) as stream:
                yield stream
        elif compression == "bzip2":
            with bz2.BZ2File(raw) as stream:
                yield stream
        elif compression == "xz":
            with lzma.LZMAFile(raw) as stream:
                yield stream
        elif compression == "zstd":
            import zstandard

            # zstandard's reader has read() but no readline(): buffered, it iterates over lines.
            with io.BufferedReader(zstandard.open(raw, "rb")) as stream:
                yield stream
        else:
            yield raw
