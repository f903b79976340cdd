"""Ids that more than one row holds. Ingest rejects a repeat within one file (`duplicate_id`), but
two files may hold the same id (the parts of one Data-Juicer export did: 100 rows, 93 ids), and
such rows meet later: dedup keeps one row per id, and a dataset made of them has two documents
under one name. Ingest and export say so; neither drops a row for it.

Ids are counted by their 64-bit xxh3 (8 bytes a row, 80 MB for ten million documents; two
different ids of ten million share a hash with probability ~3e-6, and the count is a warning)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import xxhash


class IdCounter:
    def __init__(self) -> None:
        self.rows = 0
        self._hashes: list[np.ndarray] = []

    def add(self, ids: pa.Array | pa.ChunkedArray) -> None:
        values = [value for value in ids.to_pylist() if value is not None]
        self.rows += len(values)
        self._hashes.append(np.fromiter((xxhash.xxh3_64_intdigest(v.encode()) for v in values), np.uint64, len(values)))

    @property
    def repeated_rows(self) -> int:
        """Rows beyond the first of their id."""
        distinct = len(np.unique(np.concatenate(self._hashes))) if self._hashes else 0
        return self.rows - distinct

    def warning(self, verb: str, where: str) -> str | None:
        """One line when some id is held by more than one row, else None."""
        repeated = self.repeated_rows
        if not repeated:
            return None
        return (
            f"{verb}: warning: {where} holds {self.rows:,} rows under {self.rows - repeated:,} distinct ids: "
            f"{repeated:,} rows repeat the id of another (input files that share ids; dedup keeps one row per id)"
        )


def count_ids(tables: Iterable[pa.Table]) -> IdCounter:
    counter = IdCounter()
    for table in tables:
        if "id" in table.column_names:
            counter.add(table.column("id"))
    return counter
