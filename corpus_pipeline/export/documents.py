"""The documents of a finished stage, in order, as Arrow batches of the export's columns: a stage
of documents part by part (its `part-*.parquet`, as its `_SUCCESS` names them), or a mix in shard
order: its `documents.parquet` (one row per sequence of the shards, repeats included) joined by id
with the texts of the stages it mixed (the manifest's `inputs`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.store.stage_dir import Location, MissingInputError, input_parts, read_success, stage_file
from corpus_pipeline.storage import Storage

MIX_DOCUMENTS = "documents.parquet"
# A mix's own columns, kept beside the documents': the curriculum phase and the copy number.
MIX_COLUMNS = ("phase", "repeat")
_ROWS = 10_000


@dataclass
class StageDocuments:
    """What export reads: `rows` documents in `batches()`, of a stage named `stage`."""

    stage: str
    rows: int
    text_bytes: int
    columns: list[str]
    parts: list[str]
    mix: pa.Table | None = None  # a mix's documents, texts joined, in shard order

    def batches(self, storage: Storage) -> Iterator[pa.Table]:
        if self.mix is not None:
            for batch in self.mix.to_batches(max_chunksize=_ROWS):
                yield pa.Table.from_batches([batch])
            return
        for part in self.parts:
            file = pq.ParquetFile(storage.parquet_source(part))
            for batch in file.iter_batches(batch_size=_ROWS, columns=self.columns):
                yield pa.Table.from_batches([batch])


def _document_columns(schema: pa.Schema) -> list[str]:
    return [name for name in DOCUMENT_SCHEMA.names if name in schema.names]


def stage_documents(stage_dir: Location, storage: Storage) -> StageDocuments:
    success = read_success(stage_dir, storage)
    name = success.get("stage", "?")
    mix_file = stage_file(stage_dir, MIX_DOCUMENTS, storage)
    if mix_file is not None:
        return _mix_documents(name, str(mix_file), success, storage)
    parts = [str(part) for part in input_parts(stage_dir, storage)]
    if not parts:
        return StageDocuments(name, 0, 0, list(DOCUMENT_SCHEMA.names), [])
    columns = _document_columns(pq.ParquetFile(storage.parquet_source(parts[0])).schema_arrow)
    rows, text_bytes = 0, 0
    for part in parts:
        meta = pq.ParquetFile(storage.parquet_source(part)).metadata
        rows += meta.num_rows
        text = meta.schema.names.index("text") if "text" in meta.schema.names else None
        for group in range(meta.num_row_groups) if text is not None else ():
            text_bytes += meta.row_group(group).column(text).total_uncompressed_size
    return StageDocuments(name, rows, text_bytes, columns, parts)


def _mix_documents(name: str, documents_file: str, success: dict, storage: Storage) -> StageDocuments:
    order = pq.read_table(storage.parquet_source(documents_file))
    inputs = success.get("inputs") or []
    if not inputs:
        raise MissingInputError(f"{documents_file}: the mix's manifest names no inputs to take the texts from")
    tables = []
    for stage_dir in inputs:
        for part in input_parts(stage_dir, storage):
            table = pq.read_table(storage.parquet_source(str(part)))
            tables.append(table.select(_document_columns(table.schema)))
    texts = pa.concat_tables(tables, promote_options="permissive") if tables else None
    if texts is None:
        raise MissingInputError(f"the mix's inputs ({', '.join(map(str, inputs))}) hold no documents")
    mixed = [c for c in MIX_COLUMNS if c in order.column_names]
    # Each sequence's row of the texts by its id (a take, not a join: Arrow's join refuses list
    # columns such as language_topk); the first copy where two inputs hold one id.
    where = pc.index_in(order.column("id"), value_set=texts.column("id"))
    missing = where.null_count
    if missing:
        raise MissingInputError(f"{missing:,} documents of {documents_file} are in none of the mix's inputs {inputs}")
    table = texts.select(_document_columns(texts.schema)).take(where)
    for column in mixed:
        table = table.append_column(column, order.column(column))
    text_bytes = pc.sum(pc.binary_length(table.column("text"))).as_py() or 0
    return StageDocuments(name, table.num_rows, text_bytes, table.column_names, [], mix=table)
