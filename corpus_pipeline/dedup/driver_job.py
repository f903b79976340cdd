"""The dedup stage with no Spark: an input whose decision fits the driver's memory budget
(driver_budget.py, engine.memory_mb), under either runner (under Spark's, while one core's pass is
quicker than the jobs on the runner's cores), is decided and written in this process,
from hashes and ids only. The text is read batch by batch and never held for the whole input:

1. scan: each batch of BATCH_ROWS rows gives its signature rows (batch_ops.signature_batch, held
   as one Arrow table: driver_rows.py), each row's order columns and a digest of its text (for the
   rows that repeat an id, repeats.py), and is put aside by output bucket in a local spill file
   (bucket_spill.py);
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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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
from corpus_pipeline.dedup.driver_rows import RowChunks, as_mask
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
DIGEST = "_dedup_digest"  # a row's text digest, for the rows that repeat an id (repeats.py)


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


def signed_rows(table: pa.Table, dedup: DedupConfig, carried: list[str]) -> pa.Table:
    """As chain_job.signatures, without the index: the signature rows of `table`'s documents."""
    selected = table.select(list(dict.fromkeys([*_SIGNED, *carried])))
    batches = selected.to_batches() or [pa.RecordBatch.from_pylist([], schema=selected.schema)]
    signed = pa.Table.from_batches(
        [signature_batch(batch, dedup, "simhash" in dedup.methods, carried) for batch in batches]
    )
    return signed.append_column(IN_INDEX, pa.array(np.zeros(signed.num_rows, dtype=bool)))


def later_rows(keys: pa.Table) -> dict[int, bool]:
    """As repeats.first_rows and write_task.RepeatStates, from every row's order columns (row_order),
    ROW_NUMBER and DIGEST: {row number of each later row of a repeated id: whether its text is the
    earliest row's}. A null on either side counts as the same."""
    order = [(name, "ascending", "at_end") for name in [*row_order(keys.column_names), ROW_NUMBER]]
    sorted_rows = pc.sort_indices(keys, sort_keys=order).to_numpy()
    ids = keys.column("id").take(sorted_rows)  # only the ids: the other columns for few rows
    same_id = np.zeros(keys.num_rows, dtype=bool)
    if keys.num_rows > 1:
        first, second = ids.slice(1), ids.slice(0, keys.num_rows - 1)
        both_null = pc.and_(pc.is_null(first), pc.is_null(second))
        same_id[1:] = as_mask(pc.or_kleene(pc.equal(first, second), both_null))
    later = np.flatnonzero(same_id)
    earliest = np.maximum.accumulate(np.where(same_id, 0, np.arange(keys.num_rows)))[later]
    digests = keys.column(DIGEST)
    own, kept = digests.take(sorted_rows[later]), digests.take(sorted_rows[earliest])
    same = pc.or_kleene(pc.or_kleene(pc.is_null(own), pc.is_null(kept)), pc.equal(own, kept)).fill_null(True)
    numbers = keys.column(ROW_NUMBER).take(sorted_rows[later])
    return dict(zip(numbers.to_pylist(), same.to_pylist(), strict=True))


def _digests(texts: pa.ChunkedArray) -> pa.Array:
    return pa.array([_text_digest(text) for text in texts.to_pylist()], pa.binary())


def _scan(batches: Iterator[pa.Table], spill: BucketSpill, signed: RowChunks, dedup, carried) -> dict[int, bool]:
    """Pass 1: every row's signature row into `signed`, in file order (the row numbered i its row
    i); -> later_rows."""
    keys = []
    for table in batches:
        spill.add(table)
        keys.append(
            table.select([*row_order(table.column_names), ROW_NUMBER]).append_column(
                DIGEST, _digests(table.column("text"))
            )
        )
        signed.add(signed_rows(table, dedup, carried))
    return later_rows(pa.concat_tables(keys)) if keys else {}


def published_rows(parts: list[str], schema: pa.Schema, storage: Storage) -> pa.Table:
    """The index's documents as signature rows (`schema`, the input's): members that always win,
    never written."""
    from corpus_pipeline.dedup.index import INDEX_SCHEMA

    published = conform(read_table(parts, INDEX_SCHEMA, storage), schema.remove(schema.get_field_index(IN_INDEX)))
    return published.append_column(IN_INDEX, pa.array(np.ones(published.num_rows, dtype=bool)))


def _documents(rows: pa.Table, standing: np.ndarray) -> pa.Array:
    """The ids of the standing rows that are this run's documents, not the index's."""
    return rows.column("id").filter(standing & ~as_mask(rows.column(IN_INDEX))).combine_chunks()


def _decisions(rows: pa.Table, standing: np.ndarray, first_batches, dedup: DedupConfig, order, carried):
    """The method chain on the driver over the `standing` rows of `rows` (the index's last): (verdict
    per id, the paragraph cleaning when it ran)."""
    documents = _documents(rows, standing)
    dropped, cleaning = {}, None
    for method in dedup.methods:
        if method == "paragraph":
            candidates = _documents(rows, standing)
            cleaning, found, resigned = remove_repeated_paragraphs(
                first_batches, candidates, dedup, carried, signed_rows
            )
            changed = {doc_id for doc_id, *_ in found} | {
                i for table in resigned for i in table.column("id").to_pylist()
            }
            unchanged = standing & ~as_mask(
                pc.is_in(rows.column("id"), value_set=pa.array(sorted(changed), pa.string()))
            )
            rows = pa.concat_tables([rows.filter(unchanged), *resigned])
            standing = np.ones(rows.num_rows, dtype=bool)
        else:
            found = [(*drop, None) for drop in method_duplicates(method, rows, dedup, order, standing)]
        dropped = chained(dropped, found)
        if dropped:
            gone = pa.array(sorted(dropped), pa.string())
            standing = standing & ~as_mask(pc.is_in(rows.column("id"), value_set=gone))
    # cluster_verdicts asks which kept documents are this run's: only they are looked up.
    kept = pa.array(sorted({kept for kept, _, _ in dropped.values() if kept is not None}), pa.string())
    ours = set(kept.filter(pc.is_in(kept, value_set=documents)).to_pylist())
    return {row["id"]: row for row in cluster_verdicts(dropped, ours)}, cleaning


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
    budget: tuple[int, int],
    storage: Storage,
) -> bool:
    """Decide `parts` (of `size`: driver_budget.input_size) and write output bucket i of n
    (target: the work directory, n) for each bucket that holds documents, committed as its task
    unless a resumed run already did; False (nothing done) when the input (and the index) do not
    fit the driver's `budget` (engine.memory_mb, the runner's cores: driver_budget.fits_driver):
    then Spark decides."""
    work, buckets = target
    index_parts = []
    if index_dir is not None:
        from corpus_pipeline.dedup.index import index_parts as published_parts

        index_parts = published_parts(index_dir, dedup, storage)
    if not fits_driver(size, index_parts, dedup, budget, buckets, storage):
        return False
    clusters = {field.name for field in CLUSTER_FIELDS}  # decided again here
    selected = pa.schema([field for field in input_schema if field.name not in clusters])
    batches = partial(input_batches, parts, selected, dedup.source_priority, storage)
    columns = [*selected.names, *([SOURCE_RANK] if dedup.source_priority and "source" in selected.names else [])]
    order, carried = decision_order(dedup, columns, with_index=bool(index_parts))
    with BucketSpill(buckets) as spill:
        signed = RowChunks(
            signed_rows(ranked_batch(selected.empty_table(), dedup.source_priority), dedup, carried).schema
        )
        later = _scan(batches(), spill, signed, dedup, carried)
        rows = signed.table()
        standing = np.ones(rows.num_rows, dtype=bool)
        standing[list(later)] = False

        def first_batches() -> Iterator[pa.Table]:
            for table in batches():
                yield table.filter(pa.array([n not in later for n in table.column(ROW_NUMBER).to_pylist()]))

        if index_parts:
            published = published_rows(index_parts, rows.schema, storage)
            rows = pa.concat_tables([rows, published])
            standing = np.concatenate((standing, np.ones(published.num_rows, dtype=bool)))
        verdicts, cleaning = _decisions(rows, standing, first_batches, dedup, order, carried)
        for bucket in spill.buckets():
            identity = bucket_identity(bucket, buckets)
            if not bucket_done(work, bucket, identity, storage):
                decided = _decided_bucket(spill.read(bucket), verdicts, later, cleaning)
                write_bucket([decided], COLUMNS, schema, work, bucket, identity, storage)
    return True
