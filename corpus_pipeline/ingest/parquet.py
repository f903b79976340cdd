"""Parquet datasets (FineWeb, Dolma, RedPajama...): read in record batches of the mapped columns
only, and checked column-wise (`batches.documents`)."""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.ingest.batches import documents
from corpus_pipeline.ingest.records import Records
from corpus_pipeline.stages.base import VerdictTable
from corpus_pipeline.storage import Storage


class ParquetReadError(OSError):
    """The Parquet file cannot be read (not Parquet, truncated, a corrupt page)."""


def _batches(path: str, columns: list[str], rows: int, storage: Storage) -> Iterator[pa.RecordBatch]:
    """The file's batches; an Arrow error reading them is the file's fault, not the stage's."""
    try:
        file = pq.ParquetFile(storage.parquet_source(path))
        batches = file.iter_batches(batch_size=rows, columns=[c for c in columns if c in file.schema_arrow.names])
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
    fields = (config.text_field, config.id_field, config.url_field, config.date_field, config.dump_field)
    columns = sorted({name.split(".")[0] for name in (*fields, config.language_field) if name})
    first = 0
    for batch in _batches(path, columns, rows, storage):
        yield documents(batch, records, first, "row")
        first += batch.num_rows
        records.position = f"row {first - 1}"
