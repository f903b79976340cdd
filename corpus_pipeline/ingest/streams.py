"""An input file as a binary stream, decompressed on the fly by its suffix (gzip, bzip2, zstd):
read a line or a block at a time, never whole."""

from __future__ import annotations

import bz2
import gzip
import io
from typing import BinaryIO


def open_stream(path: str) -> BinaryIO:
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        return bz2.open(path, "rb")
    if path.endswith(".zst"):
        import zstandard

        # zstandard's reader has read() but no readline(): buffered, it iterates over lines.
        return io.BufferedReader(zstandard.open(path, "rb"))
    return open(path, "rb")  # noqa: SIM115 - closed by the caller's context
