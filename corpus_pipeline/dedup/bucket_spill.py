"""The driver's documents put aside by output bucket while it decides: the batches it reads are split
by id bucket (id_buckets.py) into one local Arrow IPC file per bucket, lz4-compressed, so the write
reads back one bucket at a time and the text is never held for the whole input. The files live in
a temporary directory of this process and go with it.

Batches are split FLUSH_BYTES at a time, not as they come: a 250-row batch over 410 buckets (the
count of 4.9 GB of text) wrote nearly one IPC message a row. Put aside and read back, 34,709 of the
scale bench's documents in 250-row batches cost 145 µs a row over 410 buckets and 35 over 20; split
32 MB at a time, 40 and 27 (16 MB: 59 and 29; 64 MB: 38 and 34), and with numpy's stable argsort
for the order, 37 and 16."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

from corpus_pipeline.dedup.id_buckets import id_buckets

_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")
# Rows are held until this many bytes are buffered, then split by bucket at once (twice this held
# while they are: the rows and their copy in bucket order; driver_budget.py counts it).
FLUSH_BYTES = 32 << 20


class BucketSpill:
    """`add` tables (same schema), then `read(bucket)` for each of `buckets()`; use as a context."""

    def __init__(self, buckets: int):
        self.count = buckets
        self._directory = tempfile.TemporaryDirectory(prefix="dedup-spill-")
        self._writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
        self._pending: list[pa.Table] = []
        self._pending_bytes = 0

    def __enter__(self) -> BucketSpill:
        return self

    def __exit__(self, *exc) -> None:
        self._close_writers()
        self._directory.cleanup()

    def _path(self, bucket: int) -> Path:
        return Path(self._directory.name) / f"{bucket}.arrows"

    def add(self, table: pa.Table) -> None:
        """Each row of `table` to its id's bucket, in the order given."""
        self._pending.append(table)
        self._pending_bytes += table.nbytes
        if self._pending_bytes >= FLUSH_BYTES:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        table = pa.concat_tables(self._pending)
        self._pending, self._pending_bytes = [], 0
        numbers = id_buckets(table.column("id"), self.count)
        # One take puts the rows in bucket order (stable: a bucket keeps the given order), then
        # each bucket's run is a slice.
        grouped = table.take(pa.array(np.argsort(numbers, kind="stable")))
        start = 0
        for bucket, rows in zip(*(values.tolist() for values in np.unique(numbers, return_counts=True)), strict=True):
            writer = self._writers.get(bucket)
            if writer is None:
                writer = pa.ipc.new_stream(str(self._path(bucket)), table.schema, options=_OPTIONS)
                self._writers[bucket] = writer
            writer.write_table(grouped.slice(start, rows))
            start += rows

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    def buckets(self) -> list[int]:
        """The buckets that hold rows, ascending; no `add` after this."""
        self._flush()
        numbers = sorted(self._writers)
        self._close_writers()
        return numbers

    def read(self, bucket: int) -> pa.Table:
        # An OSFile, not the path: pyarrow memory-maps a path, and the mapped pages stay in RSS.
        with pa.OSFile(str(self._path(bucket))) as file, pa.ipc.open_stream(file) as reader:
            return reader.read_all()
