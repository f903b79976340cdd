"""Rows that repeat a document id: one page in two WARC files of a run (a recrawl, two overlapping
crawls, a file given twice). The id is the canonical URL plus the text's digest, so such rows are
the same document, and every method and the clustering key on id: left in, they multiplied each
other in the joins (a run read 62 documents and wrote 68). The earliest fetch stays (then the
smaller file path and offset: a total order); the other rows are exact duplicates of it."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from corpus_pipeline.dedup.id_buckets import row_order

_RANK = "_repeat_rank"
# On a repeated row: true when its text is the kept row's (the same page fetched twice), false when
# two inputs give one id to different texts (dataset ids that collide): dedup's `id_collision`
# (chain.ID_COLLISION).
SAME_TEXT = "_repeat_same_text"


def split_repeats(docs: DataFrame, partitions: int | None = None) -> tuple[DataFrame, DataFrame]:
    """(one row per id, the repeated rows with SAME_TEXT), hash-partitioned by id into `partitions`
    (spark.sql.shuffle.partitions when None). The write step gives its bucket count: its buckets are
    Murmur3(id) mod that count, so Spark's repartition by bucket finds the rows already placed and
    the documents cross one shuffle, not two (spark_job.decided_documents)."""
    order = [F.col(column).asc_nulls_last() for column in row_order(docs.columns)[1:]]
    if not order:  # nothing tells the rows apart: they are identical, keep any one
        order = [F.lit(0)]
    # A running count rather than row_number(): Spark turns `row_number() == 1` into a limit per id
    # below the shuffle, so the two halves became two shuffles of every document in the query that
    # writes them both (8 jobs for dedup on the 1,418 real pages, 7 with the one shared shuffle).
    window = Window.partitionBy("id").orderBy(*order).rowsBetween(Window.unboundedPreceding, Window.currentRow)
    # Shuffled by id even when the input is one partition, which Spark would leave as it is: then
    # the joins on id after it shuffled or not by the input's size, and dedup's Spark path ran 16
    # jobs at 50k documents (one partition on local[1]) against 17 at 100k (two). The shuffle is
    # the one the window asks for at two partitions or more.
    placed = docs.repartition("id") if partitions is None else docs.repartition(partitions, "id")
    ranked = placed.withColumn(_RANK, F.count(F.lit(1)).over(window))
    if "text" in docs.columns:  # the same window: no second shuffle
        same = F.col("text") == F.first("text").over(window)
        ranked = ranked.withColumn(SAME_TEXT, F.coalesce(same, F.lit(True)))
    else:
        ranked = ranked.withColumn(SAME_TEXT, F.lit(True))
    first, repeats = ranked.filter(F.col(_RANK) == 1), ranked.filter(F.col(_RANK) > 1)
    return first.drop(_RANK, SAME_TEXT), repeats.drop(_RANK)
