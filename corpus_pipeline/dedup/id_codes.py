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
    encoded = pa.chunked_array(arrays, pa.string()).dictionary_encode()
    dictionary = encoded.chunk(0).dictionary  # every chunk carries the one, whole dictionary
    return dictionary, [chunk.indices.fill_null(NO_ID).to_numpy() for chunk in encoded.chunks]


class SortedIds:
    """String id columns, added batch by batch, -> codes into their distinct ids in sorted order.

    A batch keeps only its own distinct ids and their int32 codes, so an id repeated in a batch
    (a kept document with several duplicates, a star's centre) is held once, and the batch's
    string columns can go as soon as it is added."""

    def __init__(self, columns: int) -> None:
        self._columns = columns
        self._distinct: list[pa.Array] = []  # per batch
        self._codes: list[list[np.ndarray]] = []  # per batch: each column's codes into its distinct ids

    def add(self, *columns: pa.Array) -> None:
        if len(columns) != self._columns:
            raise ValueError(f"{len(columns)} id columns where {self._columns} were declared")
        distinct, codes = dictionary_codes(list(columns))
        self._distinct.append(distinct)
        self._codes.append(codes)

    def sorted(self) -> tuple[pa.Array, list[np.ndarray]]:
        """(every distinct id, sorted; each column's int32 codes into them over all batches, in the
        order the batches came, NO_ID for a null).

        By sorting, not hashing: the batches' distinct ids in one array, then sorted, then each
        run of equal ids kept once, so at most two copies of the ids are alive at a time (a hash
        table over them would be a third)."""
        sizes = [len(distinct) for distinct in self._distinct]
        everything = pa.concat_arrays(self._distinct) if self._distinct else pa.array([], pa.string())
        self._distinct = []
        order = pc.sort_indices(everything)
        ordered = everything.take(order)
        del everything
        starts = np.ones(len(ordered), dtype=bool)  # where a run of equal ids starts
        if len(ordered) > 1:
            equal = pc.equal(ordered.slice(1), ordered.slice(0, len(ordered) - 1))
            starts[1:] = ~equal.to_numpy(zero_copy_only=False)
        code = np.empty(len(ordered), dtype=np.int32)  # per batch's distinct id, in batch order
        code[order.to_numpy()] = np.cumsum(starts, dtype=np.int32) - 1
        names = ordered.filter(pa.array(starts))
        del ordered, order
        columns: list[list[np.ndarray]] = [[] for _ in range(self._columns)]
        for end, size, codes in zip(np.cumsum(sizes), sizes, self._codes, strict=True):
            ranked = np.append(code[end - size : end], NO_ID)  # NO_ID picks the appended NO_ID
            for column, local in zip(columns, codes, strict=True):
                column.append(ranked[local])
        self._codes = []
        return names, [np.concatenate(parts) if parts else np.empty(0, np.int32) for parts in columns]


def taken(names: pa.Array, codes: np.ndarray) -> pa.Array:
    """The names at `codes`, null where a code is NO_ID."""
    return names.take(pa.array(codes, mask=codes == NO_ID))
