"""Spark DataFrame jobs that decide, per method, which documents are duplicates of which.

Each method returns `(id, kept_id, reason)` for the documents it drops. Nothing is collected to the
driver; the largest unit of work is one LSH bucket, streamed through a sorted window.
"""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from corpus_pipeline.dedup.assign import Likeness, assign_members, minhash_likeness
from corpus_pipeline.dedup.batch_ops import BAND_SCHEMA, SIMILARITY_SCHEMA, band_batch, similarity_batch
from corpus_pipeline.dedup.components import connected_components
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.keep_rule import keep_key
from corpus_pipeline.dedup.lsh import bands_and_rows
from corpus_pipeline.engine.whole_corpus import spark_schema

_DROP_SCHEMA = pa.schema([("id", pa.string()), ("kept_id", pa.string())])


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


def candidate_pairs(signatures: DataFrame, bands: int, rows: int) -> DataFrame:
    """Documents sharing a band key. A bucket of k members emits at most 2k pairs: each member with
    the bucket's smallest id (a star) and with its predecessor (a chain), never k^2/2, so a bucket
    of 100,000 boilerplate pages costs 200,000 pairs, not 5 * 10^9."""
    keyed = signatures.mapInArrow(
        lambda batches: (band_batch(b, bands, rows) for b in batches), spark_schema(BAND_SCHEMA)
    )
    # The key first: a sort compares the 8-byte prefix of its first column before whole rows, and
    # the band's (~9 values) tied on nearly every comparison: 33 % of the JVM's samples at 86k docs.
    bucket = Window.partitionBy("key", "band").orderBy("id")
    ranked = keyed.select(
        "id", F.first("id").over(bucket).alias("first"), F.lag("id").over(bucket).alias("previous")
    ).where(F.col("previous").isNotNull())
    star = F.struct(F.col("first").alias("src"), F.col("id").alias("dst"))
    chain = F.when(
        F.col("previous") != F.col("first"), F.struct(F.col("previous").alias("src"), F.col("id").alias("dst"))
    )
    # Both pairs of a row from one window: a union of two selects ran its sort and window twice.
    pairs = ranked.select(F.explode(F.array(star, chain)).alias("pair")).where(F.col("pair").isNotNull())
    # By src, so that one shuffle serves both the distinct and _similarities' join on src.
    return pairs.select("pair.src", "pair.dst").repartition("src").distinct()


def minhash_duplicates(signatures: DataFrame, config: DedupConfig, order) -> DataFrame:
    """signatures(id, signature, keep columns) -> dropped (id, kept_id, reason).

    Guards against chained clusters (A~B~C~D with A and D unrelated): a candidate pair joins the
    graph only if its estimated Jaccard passes the threshold, and a member is dropped only for a
    kept document it is itself similar enough to (assign.py); the others stay."""
    bands, rows = bands_and_rows(
        config.threshold, config.num_perm, config.false_positive_weight, config.false_negative_weight
    )
    # Every reader of these rows reads all their columns, under one filter (the joins on id would
    # infer their own not-null id), so the rows cross one shuffle by id, not one per reader.
    with_signature = signatures.where(F.col("signature").isNotNull() & F.col("id").isNotNull())
    similar = _similarities(candidate_pairs(with_signature, bands, rows), with_signature)
    edges = similar.where(F.col("similarity") >= config.threshold).select("src", "dst")
    dropped = component_drops(edges, with_signature, order, minhash_likeness(config.threshold))
    return dropped.select("id", "kept_id", F.lit("minhash_duplicate").alias("reason"))
