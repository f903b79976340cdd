"""Spark DataFrame jobs that decide, per method, which documents are duplicates of which.

Each method returns `(id, kept_id, reason)` for the documents it drops. Nothing is collected to the
driver; the largest unit of work is one task's band rows (candidate_pairs) or one component's members.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from corpus_pipeline.dedup.assign import Likeness, assign_members, minhash_likeness
from corpus_pipeline.dedup.batch_ops import BAND_SCHEMA, SIMILARITY_SCHEMA, band_batch, similarity_batch
from corpus_pipeline.dedup.components import connected_components
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.keep_rule import keep_key
from corpus_pipeline.dedup.lsh import bands_and_rows, bucket_pairs
from corpus_pipeline.engine.whole_corpus import spark_schema

_DROP_SCHEMA = pa.schema([("id", pa.string()), ("kept_id", pa.string())])
_PAIR_SCHEMA = pa.schema([("src", pa.string()), ("dst", pa.string())])
_PAIR_BATCH_ROWS = 65_536
# Band rows a band task holds (candidate_pairs): ~75 bytes each in its Python worker at the peak (52
# for a row with a 32-character id, the rest the sort's), so ~150 MB. At 858k documents (18 bands)
# that is 8 tasks, as many as adaptive execution made of the window's shuffle; 410 tasks of 38k rows
# (one an output bucket) took 563.8 CPU s there against 512.8 with the window, 22 more in the JVM.
# Counted from the input's and the index's rows (dedup/stage.py), so no task grows with the corpus.
BAND_ROWS_PER_TASK = 2_000_000


def _ordered(order: list[tuple[str, str]]):
    return [F.col(c).desc_nulls_last() if d == "desc" else F.col(c).asc_nulls_last() for c, d in order]


def component_drops(
    edges: DataFrame, members: DataFrame, order: list[tuple[str, str]], likeness: Likeness
) -> DataFrame:
    """Verified edges(src, dst), members(id, keep columns, likeness.column) -> (id, kept_id) of the
    members each connected component drops (assign.assign_members), one component a group: a task
    holds one component's members (a signature is 512 bytes at 128 permutations) and compares each
    with the members kept so far."""
    labelled = connected_components(edges).join(members, "id")

    def assign(table: pa.Table) -> pa.Table:  # typed: pyspark tells a grouped Arrow function by its hints
        return _component_group(table, order, likeness)

    return labelled.groupBy("component").applyInArrow(assign, spark_schema(_DROP_SCHEMA))


def _component_group(table: pa.Table, order: list[tuple[str, str]], likeness: Likeness) -> pa.Table:
    members = table.to_pylist()
    ordered = [member["id"] for member in sorted(members, key=keep_key(order))]
    values = {member["id"]: likeness.value(member[likeness.column]) for member in members}
    found = assign_members(ordered, values, likeness)
    return pa.Table.from_pylist([{"id": doc_id, "kept_id": kept} for doc_id, kept in found], schema=_DROP_SCHEMA)


def exact_duplicates(docs: DataFrame, order: list[tuple[str, str]]) -> DataFrame:
    """docs(id, exact_hash, keep columns) -> dropped (id, kept_id, reason)."""
    window = Window.partitionBy("exact_hash").orderBy(*_ordered(order))
    ranked = docs.withColumn("kept_id", F.first("id").over(window))
    return ranked.where(F.col("id") != F.col("kept_id")).select(
        "id", "kept_id", F.lit("exact_duplicate").alias("reason")
    )


def url_duplicates(docs: DataFrame) -> DataFrame:
    """docs(id, canonical_url, date) -> dropped (id, kept_id, reason): one page fetched several
    times keeps its latest fetch (then the smallest id); documents without a URL are left alone."""
    window = Window.partitionBy("canonical_url").orderBy(F.col("date").desc_nulls_last(), F.col("id"))
    ranked = docs.where(F.col("canonical_url").isNotNull()).withColumn("kept_id", F.first("id").over(window))
    return ranked.where(F.col("id") != F.col("kept_id")).select("id", "kept_id", F.lit("url_duplicate").alias("reason"))


def _similarities(pairs: DataFrame, signatures: DataFrame) -> DataFrame:
    """pairs(src, dst) -> (src, dst, similarity) by the signatures' estimated Jaccard. Each side
    reads every column of `signatures` (id, signature, keep columns): read alike by the bands and
    the members' join, the shuffle of those rows by id is one that all three reuse."""

    def side(name: str) -> DataFrame:
        return signatures.select(*(F.col(column).alias(f"{name}_{column}") for column in signatures.columns))

    joined = pairs.join(side("src"), F.col("src") == F.col("src_id")).join(side("dst"), F.col("dst") == F.col("dst_id"))
    return joined.mapInArrow(lambda batches: (similarity_batch(b) for b in batches), spark_schema(SIMILARITY_SCHEMA))


def candidate_pairs(signatures: DataFrame, bands: int, rows: int, tasks: int) -> DataFrame:
    """Documents sharing a band key (lsh.bucket_pairs: stars and chains, at most 2k pairs from a
    bucket of k). The band rows are shuffled by key into `tasks` tasks, and each task's rows are
    bucketed in numpy, as the driver's path buckets them. The window over (key, band) by id that
    this replaced sorted all 15.4M band rows of 858k documents in the JVM for 147k pairs: the JVM's
    CPU at 1M went 125.8 -> 102.3 s."""
    keyed = signatures.mapInArrow(
        lambda batches: (band_batch(b, bands, rows) for b in batches), spark_schema(BAND_SCHEMA)
    )
    pairs = keyed.repartition(tasks, "key").mapInArrow(_task_pairs, spark_schema(_PAIR_SCHEMA))
    # By src, so that one shuffle serves both the distinct and _similarities' join on src.
    return pairs.repartition("src").distinct()


def _task_pairs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """One task's band rows (every row of their buckets: shuffled by key) -> their candidate pairs."""
    rows = pa.Table.from_batches(list(batches), schema=BAND_SCHEMA)
    yield from bucket_pairs(rows).cast(_PAIR_SCHEMA).to_batches(max_chunksize=_PAIR_BATCH_ROWS)


def band_task_count(signatures: int, config: DedupConfig) -> int:
    """Tasks for the band rows of `signatures` documents: BAND_ROWS_PER_TASK rows each at most."""
    bands, _ = bands_and_rows(
        config.threshold, config.num_perm, config.false_positive_weight, config.false_negative_weight
    )
    return max(1, math.ceil(signatures * bands / BAND_ROWS_PER_TASK))


def minhash_duplicates(signatures: DataFrame, config: DedupConfig, order, band_tasks: int) -> DataFrame:
    """signatures(id, signature, keep columns) -> dropped (id, kept_id, reason); the band rows
    bucketed in `band_tasks` tasks (candidate_pairs).

    Guards against chained clusters (A~B~C~D with A and D unrelated): a candidate pair joins the
    graph only if its estimated Jaccard passes the threshold, and a member is dropped only for a
    kept document it is itself similar enough to (assign.py); the others stay."""
    bands, rows = bands_and_rows(
        config.threshold, config.num_perm, config.false_positive_weight, config.false_negative_weight
    )
    # Every reader of these rows reads all their columns, under one filter (the joins on id would
    # infer their own not-null id), so the rows cross one shuffle by id, not one per reader.
    with_signature = signatures.where(F.col("signature").isNotNull() & F.col("id").isNotNull())
    similar = _similarities(candidate_pairs(with_signature, bands, rows, band_tasks), with_signature)
    edges = similar.where(F.col("similarity") >= config.threshold).select("src", "dst")
    dropped = component_drops(edges, with_signature, order, minhash_likeness(config.threshold))
    return dropped.select("id", "kept_id", F.lit("minhash_duplicate").alias("reason"))
