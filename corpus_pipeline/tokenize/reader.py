"""Read token shards for training: memory-mapped, nothing loaded, random access by document and by
contiguous token windows that run across shard boundaries.

The shards of a directory form one token stream, in manifest order (shard 0's tokens, then shard
1's...). Every shard file is mapped read-only: opening a directory of any size costs a few small
arrays (two offsets per shard), and reading a window touches only its pages. Windows are views of
the map when they fall inside one shard (no copy) and a fresh array when they cross a boundary.
Measured in benchmarks/bench_tokenize.py: random 2,048-token windows at hundreds of millions of
tokens per second on one core, far above what a GPU consumes.
"""

from __future__ import annotations

import bisect
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.indexed_dataset import ShardFormatError, ShardIndex, read_index
from corpus_pipeline.tokenize.manifest import read_manifest


@dataclass
class _Shard:
    name: str
    index: ShardIndex
    tokens: np.ndarray  # a read-only view of the mapped .bin


def _map_tokens(path: Path, dtype: np.dtype, expected_tokens: int) -> np.ndarray:
    size = path.stat().st_size
    if size != expected_tokens * dtype.itemsize:
        raise ShardFormatError(
            f"{path.name}: {size:,} bytes, the index says {expected_tokens:,} tokens = "
            f"{expected_tokens * dtype.itemsize:,} bytes (truncated or wrong .bin)"
        )
    if size == 0:
        return np.zeros(0, dtype=dtype)
    with open(path, "rb") as stream:
        mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    # frombuffer, not np.memmap: slicing a memmap subclass costs ~4x more per window.
    return np.frombuffer(mapped, dtype=dtype)


class TokenShards:
    """All shards of a tokenize output directory, as one stream of documents and tokens."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.manifest = read_manifest(self.directory, Storage())  # a local directory (train reads files)
        self.dtype = np.dtype(self.manifest["dtype"])
        self.eod_id: int = self.manifest["tokenizer"]["eod_id"]
        self.vocab_size: int = self.manifest["tokenizer"]["vocab_size"]
        self._shards: list[_Shard] = []
        for entry in self.manifest["shards"]:
            index = read_index(self.directory / f"{entry['name']}.idx")
            if index.dtype != self.dtype:
                raise ShardFormatError(f"{entry['name']}.idx: dtype {index.dtype}, the manifest says {self.dtype}")
            if index.sequences != index.documents:
                raise ShardFormatError(
                    f"{entry['name']}.idx: {index.sequences} sequences for {index.documents} documents"
                )
            tokens = _map_tokens(self.directory / f"{entry['name']}.bin", self.dtype, index.tokens)
            self._shards.append(_Shard(entry["name"], index, tokens))
        # Python lists: bisect on them beats np.searchsorted for one scalar by ~5x.
        self._first_document = [0]
        self._first_token = [0]
        for shard in self._shards:
            self._first_document.append(self._first_document[-1] + shard.index.documents)
            self._first_token.append(self._first_token[-1] + len(shard.tokens))

    def __len__(self) -> int:
        return self._first_document[-1]

    @property
    def num_tokens(self) -> int:
        """Tokens in the stream, end-of-document tokens included."""
        return self._first_token[-1]

    def shard_lengths(self) -> Iterator[np.ndarray]:
        """Each shard's document lengths in tokens (end-of-document token included), from the .idx."""
        for shard in self._shards:
            yield shard.index.lengths

    def document(self, number: int, with_eod: bool = False) -> np.ndarray:
        """Document `number` (0-based over all shards, in shard order) as a view of the map."""
        if not 0 <= number < len(self):
            raise IndexError(f"document {number} out of range: {len(self)} documents")
        which = bisect.bisect_right(self._first_document, number) - 1
        shard = self._shards[which]
        local = number - self._first_document[which]
        start = int(shard.index.pointers[local]) // self.dtype.itemsize
        length = int(shard.index.lengths[local]) - (0 if with_eod else 1)
        return shard.tokens[start : start + length]

    def window(self, start: int, length: int) -> np.ndarray:
        """Tokens [start, start + length) of the stream: a view inside one shard, else a copy."""
        if start < 0 or length < 0 or start + length > self.num_tokens:
            raise IndexError(f"window [{start}, {start + length}) out of range: {self.num_tokens} tokens")
        which = bisect.bisect_right(self._first_token, start) - 1
        offset = start - self._first_token[which]
        tokens = self._shards[which].tokens
        if offset + length <= len(tokens):
            return tokens[offset : offset + length]
        pieces = []
        while length > 0:
            tokens = self._shards[which].tokens
            piece = tokens[offset : offset + length]
            pieces.append(piece)
            length -= len(piece)
            which, offset = which + 1, 0
        return np.concatenate(pieces)

    def windows(self, starts, length: int, dtype=np.int64) -> np.ndarray:
        """A (len(starts), length) batch of windows, converted to `dtype` (int64 for embeddings)."""
        batch = np.empty((len(starts), length), dtype=dtype)
        for row, start in enumerate(starts):
            batch[row] = self.window(int(start), length)
        return batch
