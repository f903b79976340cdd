"""The dedup stage with no Spark: an input whose decision fits the driver's memory budget
(driver_budget.py, engine.memory_mb), under either runner, is decided and written in this process,
from hashes and ids only. The text is read batch by batch and never held for the whole input:

1. scan: each batch of BATCH_ROWS rows gives its signature rows (batch_ops.signature_batch), each
   row's order columns and a digest of its text (for the rows that repeat an id, repeats.py), and
   is put aside by output bucket in a local spill file (bucket_spill.py);
2. decide: each method's drops by small_decisions.py on the signature rows; paragraph removal reads
   the input again for the texts it counts and cleans (driver_paragraphs.py); the clusters by
   chain.cluster_verdicts;
3. write: one bucket at a time, read back from the spill, sorted as Spark sorts it, its decisions
   attached, handed to bucket_writer.write_bucket.

Every step is the Spark path's (spark_job.py, chain_job.py, paragraph_job.py), so both write the
same bytes (the tests compare them). A JVM start is ~7 s of an idle machine (40 s on a busy one) for
a stage whose work on 1,432 pages is ~1 s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from functools import partial

import pyarrow as pa

from corpus_pipeline.dedup.batch_ops import signature_batch
from corpus_pipeline.dedup.bucket_spill import BucketSpill
from corpus_pipeline.dedup.bucket_writer import bucket_done, write_bucket
from corpus_pipeline.dedup.chain import (
    CLUSTER_FIELDS,
    DecisionColumns,
    chained,
    cluster_verdicts,
    decision_columns,
)
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.driver_budget import fits_driver
from corpus_pipeline.dedup.driver_paragraphs import Cleaning, remove_repeated_paragraphs
from corpus_pipeline.dedup.id_buckets import bucket_identity, row_order
from corpus_pipeline.dedup.keep_rule import SOURCE_RANK, ranked_batch
from corpus_pipeline.dedup.small_decisions import IN_INDEX, decision_order, method_duplicates
from corpus_pipeline.engine.whole_corpus import conform
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location
from corpus_pipeline.storage.parquet import columns_present, open_parquet

COLUMNS = DecisionColumns()
_SIGNED = ("id", "url", "text", "language")
# Rows read at a time: 250 pages of 50 kB are 12 MB of text, and a batch's signature work holds
# several times its text (1,000 rows: a peak of 459 MB at 10k documents, 250: 427 MB).
BATCH_ROWS = 250
# The input row number of a row (its part, then its place in the part), carried to the write.
ROW_NUMBER = "_dedup_row"


def read_table(parts: list, schema: pa.Schema, storage: Storage) -> pa.Table:
    """Every row of `parts` in `schema`, in file order; a column a part lacks is null there."""
    tables = []
    for part in parts:
        with open_parquet(storage, str(part)) as parquet:
            present = columns_present(parquet, schema.names)
            tables.append(conform(parquet.read(columns=present), schema))
    return pa.concat_tables(tables) if tables else schema.empty_table()


def input_batches(parts: list, schema: pa.Schema, priority: list[str], storage: Storage) -> Iterator[pa.Table]:
    """Every row of `parts` in `schema` (with its source rank and ROW_NUMBER), BATCH_ROWS at a
    time, in file order."""
    start = 0
    for part in parts:
        with open_parquet(storage, str(part)) as parquet:
            present = columns_present(parquet, schema.names)
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=present):
                table = ranked_batch(conform(batch, schema), priority)
                numbers = pa.array(range(start, start + table.num_rows), pa.int64())
                start += table.num_rows
                yield table.append_column(ROW_NUMBER, numbers)


def _ascending_key(values: tuple) -> tuple:
    """Spark's ascending, nulls-last sort of a row's values: strings by code point (UTF-8 byte order)."""
    return tuple((1,) if v is None else (0, v) for v in values)


def ascending(table: pa.Table, columns: list[str]) -> list[int]:
    """The row numbers of `table` sorted by `columns` as the Spark path sorts a bucket
    (spark_job.bucket_order; a stable sort)."""
    values = list(zip(*(table.column(name).to_pylist() for name in columns), strict=True))
    return sorted(range(table.num_rows), key=lambda row: _ascending_key(values[row]))


def _text_digest(text: str | None) -> bytes | None:
    return None if text is None else hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def signed_rows(table: pa.Table, dedup: DedupConfig, carried: list[str]) -> list[dict]:
    """As chain_job.signatures, without the index: one dict per document."""
    with_simhash = "simhash" in dedup.methods
    rows = []
    for batch in table.select(list(dict.fromkeys([*_SIGNED, *carried]))).to_batches():
        rows += signature_batch(batch, dedup, with_simhash, carried).to_pylist()
    for row in rows:
        row[IN_INDEX] = False
    return rows


def later_rows(keys: list[tuple]) -> dict[int, bool]:
    """As repeats.first_rows and write_task.RepeatStates, from (order values, row number, text
    digest) of every row: {row number of each later row of a repeated id: whether its text is the
    earliest row's}. A null on either side counts as the same."""
    later, previous, kept_digest = {}, None, None
    for values, number, digest in sorted(keys, key=lambda key: (_ascending_key(key[0]), key[1])):
        if values[0] == previous:
            later[number] = digest is None or kept_digest is None or digest == kept_digest
        else:
            kept_digest = digest
        previous = values[0]
    return later


def _scan(batches: Iterator[pa.Table], spill: BucketSpill, dedup: DedupConfig, carried) -> tuple[list, dict]:
    """Pass 1: (the signature row of every id's earliest row, in file order; later_rows)."""
    signed, keys = [], []
    for table in batches:
        spill.add(table)
        numbers = table.column(ROW_NUMBER).to_pylist()
        values = zip(*(table.column(name).to_pylist() for name in row_order(table.column_names)), strict=True)
        texts = map(_text_digest, table.column("text").to_pylist())
        keys += zip(values, numbers, texts, strict=True)
        signed += zip(numbers, signed_rows(table, dedup, carried), strict=True)
    later = later_rows(keys)
    return [row for number, row in signed if number not in later], later


def published_rows(parts: list[str], carried: list[str], storage: Storage) -> list[dict]:
    """The index's documents as signature rows: members that always win, never written."""
    from corpus_pipeline.dedup.index import INDEX_SCHEMA

    rows = read_table(parts, INDEX_SCHEMA, storage).to_pylist()
    for row in rows:
        row.update(dict.fromkeys(carried))
        row.update({"canonical_url": None, IN_INDEX: True})
    return rows


def _decisions(
    survivors: list[dict], first_batches, dedup: DedupConfig, order, carried
) -> tuple[dict, Cleaning | None]:
    """The method chain on the driver: (verdict per id, the paragraph cleaning when it ran)."""
    doc_ids = {row["id"] for row in survivors if not row[IN_INDEX]}
    dropped, cleaning = {}, None
    for method in dedup.methods:
        if method == "paragraph":
            candidates = {row["id"] for row in survivors if not row[IN_INDEX]}
            cleaning, found, resigned = remove_repeated_paragraphs(
                first_batches, candidates, dedup, carried, signed_rows
            )
            emptied = {doc_id for doc_id, *_ in found}
            survivors = [resigned.get(row["id"], row) for row in survivors if row["id"] not in emptied]
        else:
            found = [(*drop, None) for drop in method_duplicates(method, survivors, dedup, order)]
        dropped = chained(dropped, found)
        survivors = [row for row in survivors if row["id"] not in dropped]
    return {row["id"]: row for row in cluster_verdicts(dropped, doc_ids)}, cleaning


def _decided_bucket(rows: pa.Table, verdicts, later, cleaning: Cleaning | None) -> pa.Table:
    """A bucket's rows sorted as the Spark path sorts them (id, then a repeated id's earliest row
    first: ascending, nulls last), with their decisions (and paragraph cleaning). One table, not
    slices: the Parquet writer pages a table's chunks as they come, so slices would give other bytes
    for the same rows."""
    rows = rows.take(pa.array(ascending(rows, row_order(rows.column_names)), pa.int64()))
    repeats = [later.get(number) for number in rows.column(ROW_NUMBER).to_pylist()]
    if cleaning is not None:
        rows = cleaning.apply(rows, [same is None for same in repeats])
    return decision_columns(rows, verdicts, repeats)


def decide_and_write(
    parts: list,
    size: tuple[int, int],
    input_schema: pa.Schema,
    schema: pa.Schema,
    dedup: DedupConfig,
    index_dir: Location | None,
    target: tuple[str, int],
    memory_mb: int,
    storage: Storage,
) -> bool:
    """Decide `parts` (of `size`: driver_budget.input_size) and write output bucket i of n
    (target: the work directory, n) for each bucket that holds documents, committed as its task
    unless a resumed run already did; False (nothing done) when the input (and the index) do not
    fit the driver's memory budget: then Spark decides."""
    work, buckets = target
    index_parts = []
    if index_dir is not None:
        from corpus_pipeline.dedup.index import index_parts as published_parts

        index_parts = published_parts(index_dir, dedup, storage)
    if not fits_driver(size, index_parts, dedup, buckets, memory_mb, storage):
        return False
    clusters = {field.name for field in CLUSTER_FIELDS}  # decided again here
    selected = pa.schema([field for field in input_schema if field.name not in clusters])
    batches = partial(input_batches, parts, selected, dedup.source_priority, storage)
    columns = [*selected.names, *([SOURCE_RANK] if dedup.source_priority and "source" in selected.names else [])]
    order, carried = decision_order(dedup, columns, with_index=bool(index_parts))
    with BucketSpill(buckets) as spill:
        signed, later = _scan(batches(), spill, dedup, carried)

        def first_batches() -> Iterator[pa.Table]:
            for table in batches():
                yield table.filter(pa.array([n not in later for n in table.column(ROW_NUMBER).to_pylist()]))

        published = published_rows(index_parts, carried, storage) if index_parts else []
        verdicts, cleaning = _decisions(signed + published, first_batches, dedup, order, carried)
        for bucket in spill.buckets():
            identity = bucket_identity(bucket, buckets)
            if not bucket_done(work, bucket, identity, storage):
                decided = _decided_bucket(spill.read(bucket), verdicts, later, cleaning)
                write_bucket([decided], COLUMNS, schema, work, bucket, identity, storage)
    return True
