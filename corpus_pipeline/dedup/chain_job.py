"""The dedup method chain on Spark: every document's signature once, each method on what the
previous ones kept, then the clusters. An input whose decision fits the driver's memory budget
(driver_budget.py, engine.memory_mb) never gets here: it is decided on the driver with no Spark
at all (driver_job.py, small_decisions.py, chain.py), under either runner.

Why two paths: adaptive execution runs every shuffle as a Spark job of its own, and a small input
pays for the jobs, not for the work. On the 1,418 real pages (default config, local[1], a warm
session on an idle 2-core machine) the Spark chain runs 31 jobs in 8-9 s for ~1.3 s of signature
work. Past that budget the Spark chain keeps the work on the executors and nothing large on
the driver. Both paths make the same choices: the tests compare their output bytes.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from corpus_pipeline.dedup.batch_ops import SIGNATURE_SCHEMA, signature_batch
from corpus_pipeline.dedup.chain import VERDICT_SCHEMA
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.decisions import exact_duplicates, minhash_duplicates, url_duplicates
from corpus_pipeline.dedup.paragraph_job import remove_repeated_paragraphs
from corpus_pipeline.dedup.simhash_decisions import simhash_duplicates
from corpus_pipeline.dedup.small_decisions import IN_INDEX, SEMANTIC_COLUMNS, decision_order, method_duplicates
from corpus_pipeline.engine.whole_corpus import spark_schema

_REPRESENTATIVE = "_representative"
_FOUND_SCHEMA = pa.schema([("id", pa.string()), ("kept_id", pa.string()), ("reason", pa.string())])


def signatures(docs: DataFrame, dedup: DedupConfig, index: DataFrame | None, carried: list[str]) -> DataFrame:
    """(id, canonical_url, exact_hash, signature, simhash, *carried, _in_index) of the documents
    and of the index (whose carried columns are null)."""
    with_simhash = "simhash" in dedup.methods
    schema = StructType(spark_schema(SIGNATURE_SCHEMA).fields + [docs.schema[name] for name in carried])
    signed = docs.select(*dict.fromkeys(["id", "url", "text", "language", *carried])).mapInArrow(
        lambda batches: (signature_batch(b, dedup, with_simhash, carried) for b in batches), schema
    )
    signed = signed.withColumn(IN_INDEX, F.lit(False))
    if index is None:
        return signed
    published = index.select(
        "id",
        F.lit(None).cast("string").alias("canonical_url"),
        "exact_hash",
        "signature",
        "simhash",
        *(F.lit(None).cast(docs.schema[name].dataType).alias(name) for name in carried),
        F.lit(True).alias(IN_INDEX),
    )
    return signed.unionByName(published)


def dedup_decisions(docs: DataFrame, dedup: DedupConfig, index: DataFrame | None = None) -> tuple[DataFrame, DataFrame]:
    """docs -> (docs, verdicts). `docs` comes back with the text the chain leaves (the paragraph
    method rewrites it); verdicts has one row (VERDICT_SCHEMA) per document dropped or standing for
    dropped ones: kept_id the document finally kept (null for a document no other stands for), note
    the reject detail when it is not the kept id, and the cluster, named by its smallest id; a
    document without a row is kept, alone in its cluster. With an index (id, exact_hash, signature,
    simhash), published documents join every method as members that always win the keep rule and
    are never written."""
    order, carried = decision_order(dedup, docs.columns, with_index=index is not None)
    signed = signatures(docs, dedup, index, carried).localCheckpoint()
    return _spark_decisions(docs, signed, dedup, order, lambda d: signatures(d, dedup, index, carried))


def _spark_decisions(
    docs: DataFrame, signed: DataFrame, dedup: DedupConfig, order, sign: Callable[[DataFrame], DataFrame]
) -> tuple[DataFrame, DataFrame]:
    """The chain as Spark jobs: every method's drops materialized before the next method runs."""
    keys = signed.select(*dict.fromkeys(column for column, _ in order))
    survivors, dropped = signed, None
    for method in dedup.methods:
        if method == "paragraph":
            docs, found = remove_repeated_paragraphs(docs, survivors.select("id"), dedup.paragraph)
            remaining = docs.join(survivors.select("id"), "id", "left_semi").join(found.select("id"), "id", "left_anti")
            survivors = sign(remaining).localCheckpoint()
        else:
            if method == "url":
                found = url_duplicates(survivors)
            elif method == "exact":
                found = exact_duplicates(survivors, order)
            elif method == "simhash":
                found = simhash_duplicates(survivors.select("id", "simhash"), keys, dedup.simhash, order)
            elif method == "semantic":
                found = _semantic_on_driver(survivors, dedup, order)
            else:
                found = minhash_duplicates(survivors.select("id", "signature"), keys, dedup, order)
            found = found.withColumn("note", F.lit(None).cast("string"))
        found = found.localCheckpoint()
        if dropped is not None:
            # A document kept by an earlier method and dropped now takes its duplicates with it.
            moved = found.select(F.col("id").alias("kept_id"), F.col("kept_id").alias("final_id"))
            dropped = dropped.join(moved, "kept_id", "left").select(
                "id", F.coalesce("final_id", "kept_id").alias("kept_id"), "reason", "note"
            )
            dropped = dropped.unionByName(found)
        else:
            dropped = found
        survivors = survivors.join(found.select("id"), "id", "left_anti")
    return docs, cluster_verdict_frame(dropped, signed.where(~F.col(IN_INDEX)).select("id"))


def _semantic_on_driver(survivors: DataFrame, dedup: DedupConfig, order) -> DataFrame:
    """The semantic method on the survivors' vectors gathered on the driver (768 bytes a document
    at 384 dimensions; at most dedup.semantic.max_documents, one more to refuse past it): k-means
    and the pairs are numpy work on one matrix, not a shuffle. -> (id, kept_id, reason)."""
    columns = dict.fromkeys(["id", *SEMANTIC_COLUMNS, *(column for column, _ in order)])
    embedded = survivors.where(F.col(SEMANTIC_COLUMNS[0]).isNotNull()).select(*columns)
    rows = embedded.limit(dedup.semantic.max_documents + 1).toArrow().to_pylist()
    found = method_duplicates("semantic", rows, dedup, order)
    table = pa.Table.from_pylist(
        [dict(zip(_FOUND_SCHEMA.names, drop, strict=True)) for drop in found], schema=_FOUND_SCHEMA
    )
    return survivors.sparkSession.createDataFrame(table)


def cluster_verdict_frame(dropped: DataFrame, doc_ids: DataFrame) -> DataFrame:
    """chain.cluster_verdicts as Spark jobs: dropped (id, kept_id, reason, note) -> verdicts."""
    kept = dropped.where(F.col("kept_id").isNotNull()).select(F.col("kept_id").alias("id")).distinct()
    standing = kept.join(doc_ids, "id", "left_semi").join(dropped.select("id"), "id", "left_anti")
    members = dropped.select("id", F.coalesce("kept_id", "id").alias(_REPRESENTATIVE)).unionByName(
        standing.select("id", F.col("id").alias(_REPRESENTATIVE))
    )
    clusters = members.groupBy(_REPRESENTATIVE).agg(
        F.min("id").alias("dup_cluster_id"), F.count("*").alias("dup_cluster_size")
    )
    decided = members.join(clusters, _REPRESENTATIVE).join(dropped, "id", "left")
    return decided.select(*VERDICT_SCHEMA.names)
