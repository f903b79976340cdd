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
            # Buffered, it reads lines (a raw stream has read() but no readline()).
            with io.BufferedReader(ZstdFrames(raw)) as stream:
                yield stream
        else:
            yield raw


class ZstdFrames(io.RawIOBase):
    """A zstd stream of one frame or many, decompressed frame after frame. A frame cut short raises
    ZstdError at the end of the input (zstandard's own reader ends there silently: a file cut inside
    its second frame gave the records of the first and nothing said the rest was lost)."""

    _CHUNK = 1 << 20

    def __init__(self, raw: BinaryIO):
        import zstandard

        self._raw, self._zstandard = raw, zstandard
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._fed = False  # whether the current frame has been given any input
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            chunk = self._raw.read(self._CHUNK)
            if not chunk:
                if self._fed and not self._frame.eof:
                    raise self._zstandard.ZstdError("the input ends inside a zstd frame: the file is cut short")
                return 0
            self._pending = self._decompress(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def _decompress(self, chunk: bytes) -> bytes:
        out = []
        while chunk:
            self._fed = True
            out.append(self._frame.decompress(chunk))
            if not self._frame.eof:
                break
            chunk = self._frame.unused_data  # the next frame starts in this chunk
            self._frame = self._zstandard.ZstdDecompressor().decompressobj()
            self._fed = False
        return b"".join(out)
