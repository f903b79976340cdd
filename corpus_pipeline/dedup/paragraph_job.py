"""Paragraph boilerplate removal on Spark: count in how many documents each normalized paragraph
occurs, then remove from every document the paragraphs found in >= min_documents of them.

Three shuffles and nothing collected to the driver: (id, paragraph hash) rows are counted per hash;
the hashes over the bar are joined back to the rows, which are grouped per document (a group is one
document's paragraphs, never the corpus); only documents holding such a paragraph are rewritten.
"""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from corpus_pipeline.dedup.config import ParagraphDedupConfig
from corpus_pipeline.dedup.paragraph_batches import (
    CHARACTERS_REMOVED,
    CLEANED_SCHEMA,
    HASH_SCHEMA,
    PARAGRAPHS_REMOVED,
    REASON,
    cleaned_batch,
    paragraph_hash_batch,
)
from corpus_pipeline.engine.whole_corpus import spark_schema


def repeated_paragraphs(docs: DataFrame, min_documents: int) -> DataFrame:
    """docs(id, text) -> (id, repeated: sorted hashes of its paragraphs found in >= min_documents
    documents), for the documents holding at least one."""
    hashes = docs.mapInArrow(lambda batches: map(paragraph_hash_batch, batches), spark_schema(HASH_SCHEMA))
    frequent = hashes.groupBy("paragraph_hash").count().where(F.col("count") >= min_documents)
    flagged = hashes.join(frequent.select("paragraph_hash"), "paragraph_hash")
    return flagged.groupBy("id").agg(F.array_sort(F.collect_list("paragraph_hash")).alias("repeated"))


# A document's paragraph cleaning (remove_repeated_paragraphs): what the decide step writes for the
# documents it cleaned, and the write step puts back (spark_job.py).
CHANGE_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("cleaned_text", pa.string()),
        ("reject_detail", pa.string()),
        (PARAGRAPHS_REMOVED, pa.int64()),
        (CHARACTERS_REMOVED, pa.int64()),
    ]
)


def remove_repeated_paragraphs(
    docs: DataFrame, candidates: DataFrame, config: ParagraphDedupConfig
) -> tuple[DataFrame, DataFrame, DataFrame]:
    """docs (every column), candidates(id): the documents still in the chain ->
    (docs with the cleaned text and the hidden count columns, rejected (id, kept_id, reason, note),
    the changes (CHANGE_SCHEMA) that made the first from `docs`).

    Only candidates are counted and cleaned; a rejected document keeps its original text, so the
    `_rejected/` row shows what was removed."""
    current = docs.select("id", "text").join(candidates, "id", "left_semi")
    min_documents, min_chars = config.min_documents, config.min_chars
    cleaned = (
        current.join(repeated_paragraphs(current, min_documents), "id")
        .mapInArrow(
            lambda batches: (cleaned_batch(b, min_documents, min_chars) for b in batches),
            spark_schema(CLEANED_SCHEMA),
        )
        .localCheckpoint()
    )
    rejected = cleaned.where(F.col("reject_detail").isNotNull()).select(
        "id",
        F.lit(None).cast("string").alias("kept_id"),
        F.lit(REASON).alias("reason"),
        F.col("reject_detail").alias("note"),
    )
    changes = cleaned.select(
        "id",
        "cleaned_text",
        "reject_detail",
        F.col("paragraphs_removed").alias(PARAGRAPHS_REMOVED),
        F.col("characters_removed").alias(CHARACTERS_REMOVED),
    )
    return apply_paragraph_changes(docs, changes), rejected, changes


def apply_paragraph_changes(docs: DataFrame, changes: DataFrame) -> DataFrame:
    """docs with the cleaned text of each document `changes` (CHANGE_SCHEMA) cleaned and kept, and
    the hidden count columns (null for a document not cleaned)."""
    keep_cleaned = F.col("cleaned_text").isNotNull() & F.col("reject_detail").isNull()
    rewritten = docs.join(changes, "id", "left")
    rewritten = rewritten.withColumn("text", F.when(keep_cleaned, F.col("cleaned_text")).otherwise(F.col("text")))
    return rewritten.drop("cleaned_text", "reject_detail")
