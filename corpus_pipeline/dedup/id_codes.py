"""Document ids as integer codes, for the work one process does on every duplicate's id at once
(the union-find of components.py, the chain of chain_job.py): each distinct id is held once, as
Arrow string data (~64 bytes for a 60-character id, where a Python str in a dict costs several
hundred), and the work is numpy on int32 codes.

Codes follow the ids' sorted order, so the smallest code is the smallest id: Arrow sorts strings by
their UTF-8 bytes, which is the order of their code points, Python's order of str
(tests/dedup/test_gathered_columnar.py holds the two together on non-ASCII ids).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

NO_ID = -1  # the code of a null id


def dictionary_codes(arrays: list[pa.Array]) -> tuple[pa.Array, list[np.ndarray]]:
    """String arrays -> (their distinct non-null values, first seen first; each array's int32 codes
    into them, NO_ID for a null). One hash table over all the arrays: no copy of them is made."""
    if not arrays:
        return pa.array([], pa.string()), []
    strings = [array if array.type == pa.string() else array.cast(pa.string()) for array in arrays]  # a null column
    encoded = pa.chunked_array(strings, pa.string()).dictionary_encode()
    dictionary = encoded.chunk(0).dictionary  # every chunk carries the one, whole dictionary
    return dictionary, [chunk.indices.fill_null(NO_ID).to_numpy() for chunk in encoded.chunks]


# Ids (repeats included) whose batches are encoded together into one chunk of their distinct ids:
# its hash table, ~8 MB at 64 bytes an id, is the only copy made while batches arrive, and a read
# of ids back costs a take a chunk (23 chunks at 3M ids). 2^16 and 2^17 measured alike; 2^18 took
# the 3M-edge task from 399 to 487 MB.
_CHUNK_IDS = 1 << 17
# Ids read back at a time while looking for runs of equal ones in sorted order.
_WINDOW = 1 << 16


class SortedIds:
    """String id columns, added batch by batch, -> int32 codes into their distinct ids in sorted
    order, the ids held once: each group of batches keeps its own distinct ids (an id repeated in
    it, a kept document with several duplicates, a star's centre, once), the batches' string
    columns go, and the sort orders positions in those groups, not a copy of the strings."""

    def __init__(self, columns: int) -> None:
        self._columns = columns
        self._pending: list[pa.Array] = []  # id columns not yet encoded, batch after batch
        self._pending_ids = 0
        self._chunks: list[pa.Array] = []  # each group's distinct ids
        self._codes: list[tuple[int, np.ndarray]] = []  # per column of a batch: (its group, codes in it)

    def add(self, *columns: pa.Array) -> None:
        if len(columns) != self._columns:
            raise ValueError(f"{len(columns)} id columns where {self._columns} were declared")
        self._pending.extend(columns)
        self._pending_ids += sum(len(column) for column in columns)
        if self._pending_ids >= _CHUNK_IDS:
            self._encode_pending()

    def _encode_pending(self) -> None:
        distinct, codes = dictionary_codes(self._pending)
        self._codes.extend((len(self._chunks), local) for local in codes)
        self._chunks.append(distinct)
        self._pending, self._pending_ids = [], 0
        _give_back_freed()

    def sorted(self) -> tuple[IdNames, list[np.ndarray]]:
        """(every distinct id, in sorted order; each column's int32 codes into them over all
        batches, in the order the batches came, NO_ID for a null)."""
        if self._pending:
            self._encode_pending()
        chunks, starts = self._chunks, np.cumsum([0, *(len(chunk) for chunk in self._chunks)])
        order = pc.sort_indices(pa.chunked_array(chunks, pa.string())).to_numpy().astype(np.int64)  # no concatenation
        first_of_run = np.ones(len(order), dtype=bool)
        for window in range(0, len(order), _WINDOW):
            low = max(window - 1, 0)  # one back: a run may start at the window's first id
            ids = _gathered(chunks, starts, order[low : window + _WINDOW])
            equal = pc.equal(ids.slice(1), ids.slice(0, len(ids) - 1)).to_numpy(zero_copy_only=False)
            first_of_run[low + 1 : low + len(ids)] = ~equal
        code = np.empty(len(order), dtype=np.int32)  # of each position in the chunks
        code[order] = np.cumsum(first_of_run, dtype=np.int32) - 1
        names = IdNames(chunks, starts, order[first_of_run])
        columns: list[list[np.ndarray]] = [[] for _ in range(self._columns)]
        for number, (chunk, local) in enumerate(self._codes):
            ranked = np.append(code[starts[chunk] : starts[chunk + 1]], NO_ID)  # NO_ID picks the appended one
            columns[number % self._columns].append(ranked[local])
        self._chunks, self._codes = [], []
        return names, [np.concatenate(parts) if parts else np.empty(0, np.int32) for parts in columns]


class IdNames:
    """The distinct ids in code order, read where SortedIds' chunks hold them."""

    def __init__(self, chunks: list[pa.Array], starts: np.ndarray, positions: np.ndarray) -> None:
        self._chunks, self._starts, self._positions = chunks, starts, positions

    def __len__(self) -> int:
        return len(self._positions)

    def taken(self, codes: np.ndarray) -> pa.Array:
        """The ids of `codes`, null where a code is NO_ID."""
        missing = codes == NO_ID
        positions = np.zeros(len(codes), dtype=np.int64)
        positions[~missing] = self._positions[codes[~missing]]
        return _gathered(self._chunks, self._starts, positions, missing)


def _gathered(chunks: list[pa.Array], starts: np.ndarray, positions: np.ndarray, missing=None) -> pa.Array:
    """The strings at `positions` of the chunks laid end to end (`starts`: where each begins), null
    where `missing`: one take a chunk, then one to put them back in order."""
    chunk = np.searchsorted(starts, positions, side="right") - 1
    by_chunk = np.argsort(chunk, kind="stable")
    bounds = np.searchsorted(chunk[by_chunk], np.arange(len(chunks) + 1))
    parts = [
        chunks[number].take(pa.array(positions[by_chunk[bounds[number] : bounds[number + 1]]] - starts[number]))
        for number in range(len(chunks))
        if bounds[number + 1] > bounds[number]
    ]
    grouped = pa.concat_arrays(parts) if parts else pa.array([], pa.string())
    back = np.empty(len(positions), dtype=np.int64)
    back[by_chunk] = np.arange(len(positions))
    values = grouped.take(pa.array(back, mask=missing))
    del parts, grouped
    _give_back_freed()
    return values


def _give_back_freed() -> None:
    """Arrow's allocator (mimalloc) keeps the pages of what was freed: handed back after each
    chunk's hash table and each read, the 300k-verdict task peaked at 66 MB, not 92."""
    pa.default_memory_pool().release_unused()


def taken(names: pa.Array, codes: np.ndarray) -> pa.Array:
    """The names at `codes`, null where a code is NO_ID."""
    return names.take(pa.array(codes, mask=codes == NO_ID))
