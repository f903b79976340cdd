"""Megatron-LM's indexed dataset (MMIDIDX), the format of our token shards: a writer and an index parser.

`.bin`: the tokens of every sequence, back to back, in the shard's dtype, little endian, no header.
`.idx` (all little endian):
    9 bytes   b"MMIDIDX\\x00\\x00"
    uint64    version, 1
    uint8     dtype code (Megatron's DType: 1 uint8, 2 int8, 3 int16, 4 int32, 5 int64, 6 float64,
              7 float32, 8 uint16; from megatron/core/datasets/indexed_dataset.py, megatron-core 0.16)
    uint64    sequence count S
    uint64    document-index count D + 1 (the length of the array below, not the document count)
    int32[S]  sequence lengths, in tokens
    int64[S]  sequence pointers, in bytes from the start of .bin
    int64[D+1] document indices: document d is sequences [idx[d], idx[d+1]); idx[0] = 0, idx[D] = S
We write one sequence per document (its tokens, then the end-of-document token), as Megatron's own
preprocess_data.py does without sentence splitting, so S = D and the document indices are 0..D.
schemas/token_shards.md holds the same description for people.
"""

from __future__ import annotations

import hashlib
import struct
from array import array
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_pipeline.storage import local_files

MAGIC = b"MMIDIDX\x00\x00"
VERSION = 1
DTYPE_CODES = {1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float64", 7: "float32", 8: "uint16"}
CODE_OF_DTYPE = {name: code for code, name in DTYPE_CODES.items()}
_HEADER = struct.Struct("<9sQBQQ")
HEADER_BYTES = _HEADER.size  # 34
_WRITE_BUFFER = 4 * 2**20
_MAX_SEQUENCE = 2**31 - 1  # lengths are int32


class ShardFormatError(ValueError):
    """A shard file that is not what the format says; the message names the file and the fault."""


@dataclass(frozen=True)
class ShardFile:
    """One written shard pair, as the manifest records it."""

    name: str  # the prefix: `name.bin`, `name.idx`
    documents: int
    tokens: int  # in .bin, end-of-document tokens included
    bin_bytes: int
    idx_bytes: int
    bin_sha256: str
    idx_sha256: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def idx_bytes(sequences: int, documents: int) -> int:
    return HEADER_BYTES + sequences * (4 + 8) + (documents + 1) * 8


class ShardWriter:
    """Streams documents into `<path>.bin` and writes `<path>.idx` on close; both appear under their
    names only when complete (written as hidden .inprogress files, then renamed)."""

    def __init__(self, path: Path, dtype: np.dtype, eod_id: int):
        self.path = path
        self.dtype = np.dtype(dtype).newbyteorder("<")
        if self.dtype.name not in CODE_OF_DTYPE:
            raise ShardFormatError(f"{path.name}: dtype {self.dtype} has no MMIDIDX code")
        self.eod = np.array([eod_id], dtype=self.dtype)
        self.lengths = array("i")
        self.tokens = 0
        self._whole = local_files.WholeFile(path.with_name(path.name + ".bin"))
        self._bin = open(self._whole.temporary, "wb", buffering=_WRITE_BUFFER)  # noqa: SIM115 - closed in close/abort
        self._bin_sha = hashlib.sha256()

    @property
    def bin_bytes(self) -> int:
        return self.tokens * self.dtype.itemsize

    def _write(self, tokens: np.ndarray) -> None:
        data = np.ascontiguousarray(tokens, dtype=self.dtype)
        self._bin.write(data)
        self._bin_sha.update(data)

    def add_document(self, pieces: list[np.ndarray]) -> int:
        """Append one document (its token arrays in order) and its end-of-document token; returns
        the sequence length."""
        length = sum(len(piece) for piece in pieces) + 1
        if length > _MAX_SEQUENCE:
            raise ShardFormatError(f"{self.path.name}: a document of {length:,} tokens exceeds int32 lengths")
        for piece in pieces:
            self._write(piece)
        self._write(self.eod)
        self.lengths.append(length)
        self.tokens += length
        return length

    def close(self) -> ShardFile:
        self._bin.close()
        lengths = np.frombuffer(self.lengths, dtype=np.int32) if self.lengths else np.zeros(0, np.int32)
        pointers = np.zeros(len(lengths), dtype=np.int64)
        np.cumsum(lengths[:-1], dtype=np.int64, out=pointers[1:])
        pointers *= self.dtype.itemsize
        documents = np.arange(len(lengths) + 1, dtype=np.int64)
        header = _HEADER.pack(MAGIC, VERSION, CODE_OF_DTYPE[self.dtype.name], len(lengths), len(documents))
        index = b"".join(
            [header, lengths.astype("<i4").tobytes(), pointers.astype("<i8").tobytes(), documents.tobytes()]
        )
        self._whole.commit()  # the .bin first: an .idx never names a missing .bin
        local_files.put_bytes(self.path.with_name(self.path.name + ".idx"), index)
        return ShardFile(
            name=self.path.name,
            documents=len(lengths),
            tokens=self.tokens,
            bin_bytes=self.bin_bytes,
            idx_bytes=len(index),
            bin_sha256=self._bin_sha.hexdigest(),
            idx_sha256=hashlib.sha256(index).hexdigest(),
        )

    def abort(self) -> None:
        self._bin.close()
        self._whole.discard()


@dataclass
class ShardIndex:
    """A parsed .idx: arrays are read-only views of the mapped file (nothing copied)."""

    path: Path
    dtype: np.dtype
    lengths: np.ndarray  # int32[S]
    pointers: np.ndarray  # int64[S], bytes
    document_indices: np.ndarray  # int64[D+1]

    @property
    def sequences(self) -> int:
        return len(self.lengths)

    @property
    def documents(self) -> int:
        return len(self.document_indices) - 1

    @property
    def tokens(self) -> int:
        return int(self.lengths.sum(dtype=np.int64))


def read_index(path: Path) -> ShardIndex:
    """Parse a .idx, checking its header and that its size is exactly what its counts imply."""
    size = path.stat().st_size
    if size < HEADER_BYTES:
        raise ShardFormatError(f"{path.name}: {size} bytes, shorter than the {HEADER_BYTES}-byte header")
    with open(path, "rb") as stream:
        magic, version, code, sequences, document_entries = _HEADER.unpack(stream.read(HEADER_BYTES))
    if magic != MAGIC:
        raise ShardFormatError(f"{path.name}: bad magic {magic!r}, expected {MAGIC!r} (not an MMIDIDX index)")
    if version != VERSION:
        raise ShardFormatError(f"{path.name}: version {version}, expected {VERSION}")
    if code not in DTYPE_CODES:
        raise ShardFormatError(f"{path.name}: unknown dtype code {code} (known: {sorted(DTYPE_CODES)})")
    if document_entries < 1:
        raise ShardFormatError(f"{path.name}: document-index count 0 (it holds at least the leading 0)")
    expected = idx_bytes(sequences, document_entries - 1)
    if size != expected:
        raise ShardFormatError(
            f"{path.name}: {size:,} bytes, but {sequences:,} sequences and {document_entries - 1:,} documents "
            f"need {expected:,} (truncated or corrupt index)"
        )
    data = np.memmap(path, mode="r", dtype=np.uint8)
    lengths_end = HEADER_BYTES + 4 * sequences
    pointers_end = lengths_end + 8 * sequences
    return ShardIndex(
        path=path,
        dtype=np.dtype(DTYPE_CODES[code]),
        lengths=np.frombuffer(data, dtype="<i4", count=sequences, offset=HEADER_BYTES),
        pointers=np.frombuffer(data, dtype="<i8", count=sequences, offset=lengths_end),
        document_indices=np.frombuffer(data, dtype="<i8", count=document_entries, offset=pointers_end),
    )
