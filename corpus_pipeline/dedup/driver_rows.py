"""The driver's signature rows (small_decisions.py) as one Arrow table of few large chunks, and the
row takes that read it.

Arrow's take on a chunked column joins its chunks into one first: a copy of the whole column each
call (850k signatures of 512 bytes in 250-row chunks, 418 MB: 84 ms a take of 65k rows, and the
peak 489 MB higher). A take chunk by chunk copies only the rows taken, and the scan's 250-row batches
are joined into chunks of CHUNK_ROWS as they come, so a take makes tens of calls, not thousands.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

# Rows a chunk: 42 MB of signature rows at 647 bytes a row, copied once while the scan joins them.
CHUNK_ROWS = 65_536


class RowChunks:
    """`add` tables of one schema, then `table()`: the rows in the order added, in chunks of
    CHUNK_ROWS (the last one shorter)."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self._chunks: list[pa.Table] = []
        self._pending: list[pa.Table] = []
        self._pending_rows = 0

    def add(self, rows: pa.Table) -> None:
        self._pending.append(rows)
        self._pending_rows += rows.num_rows
        if self._pending_rows >= CHUNK_ROWS:
            self._join()

    def _join(self) -> None:
        if self._pending_rows:
            self._chunks.append(pa.concat_tables(self._pending).combine_chunks())
        self._pending, self._pending_rows = [], 0

    def table(self) -> pa.Table:
        self._join()
        return pa.concat_tables(self._chunks) if self._chunks else self.schema.empty_table()


def take(values: pa.Table | pa.ChunkedArray, rows: np.ndarray) -> pa.Table | pa.Array:
    """`values.take(rows)`, one take per chunk: the rows in the order of `rows`."""
    pieces = values.to_batches() if isinstance(values, pa.Table) else values.chunks
    rows = np.asarray(rows, dtype=np.int64)
    starts = np.cumsum([0, *(len(piece) for piece in pieces)])
    if len(rows) and (rows.min() < 0 or rows.max() >= starts[-1]):
        raise IndexError(f"rows {rows.min()}..{rows.max()} of a table of {starts[-1]}")
    piece_of = np.searchsorted(starts, rows, side="right") - 1
    by_piece = np.argsort(piece_of, kind="stable")
    bounds = np.searchsorted(piece_of[by_piece], np.arange(len(pieces) + 1))
    taken = [
        piece.take(pa.array(rows[by_piece[bounds[number] : bounds[number + 1]]] - starts[number]))
        for number, piece in enumerate(pieces)
        if bounds[number + 1] > bounds[number]
    ]
    back = pa.array(np.argsort(by_piece, kind="stable"))
    if isinstance(values, pa.Table):
        return pa.Table.from_batches(taken, values.schema).combine_chunks().take(back)
    return (pa.concat_arrays(taken) if taken else pa.array([], values.type)).take(back)


def as_mask(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean Arrow column as a numpy mask, null as False."""
    return np.asarray(values.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
