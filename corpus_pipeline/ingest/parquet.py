"""Parquet datasets (FineWeb, Dolma, RedPajama...): read in record batches (every column when the
others go into `metadata`, else the mapped ones only) and checked column-wise (`batches.documents`)."""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.ingest.ahead import Ahead
from corpus_pipeline.ingest.batches import check_rows, documents, pieces
from corpus_pipeline.ingest.records import Records
from corpus_pipeline.stages.base import VerdictTable
from corpus_pipeline.storage import Storage


class ParquetReadError(OSError):
    """The Parquet file cannot be read (not Parquet, truncated, a corrupt page)."""


def _batches(path: str, columns: list[str] | None, rows: int, storage: Storage) -> Iterator[pa.RecordBatch]:
    """The file's batches (of `columns`, None: all); an Arrow error reading them is the file's
    fault, not the stage's."""
    try:
        # A local file memory-mapped (an object is read as a stream whatever this says): its pages
        # are decoded where they lie, not copied in first; 22 MB of FineWeb-shaped Parquet in
        # 0.067 CPU s instead of 0.072 (pq.read_table's default, the raw peer, reads it).
        file = pq.ParquetFile(storage.parquet_source(path), memory_map=True)
        names = file.schema_arrow.names
        batches = file.iter_batches(
            batch_size=rows, columns=None if columns is None else [c for c in columns if c in names]
        )
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            yield batch
    except pa.ArrowException as error:
        raise ParquetReadError(str(error)) from error


def read_parquet(path: str, records: Records, rows: int, storage: Storage) -> Iterator[VerdictTable]:
    config = records.config
    fields = (config.text_field, config.id_field, config.dump_field, config.language_field)
    fields += (config.source_field, *config.date_fields(), *config.url_fields())
    # Every column when the others go into `metadata`, else only the mapped ones.
    columns = None if config.keep_metadata else sorted({name.split(".")[0] for name in fields if name})
    first = 0
    # The next batch decoded in a thread (pyarrow's decoding releases the GIL) while this one is
    # checked: 22 MB in 0.07-0.08 s wall instead of 0.10 when the second core is free; one batch
    # more in memory (8,192 rows: Arrow's peak 32 -> 48 MiB for 2 KB documents).
    with Ahead(_batches(path, columns, check_rows(records, rows), storage)) as batches:
        for batch in batches:
            yield from pieces(documents(batch, records, first, "row"), rows)
            first += batch.num_rows
            records.position = f"row {first - 1}"
