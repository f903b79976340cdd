"""Rows that repeat a document id: one page in two WARC files of a run (a recrawl, two overlapping
crawls, a file given twice). The id is the canonical URL plus the text's digest, so such rows are
the same document, and every method and the clustering key on id: left in, they multiplied each
other in the joins (a run read 62 documents and wrote 68). The earliest fetch stays (then the
smaller file path and offset: a total order, nulls last); the other rows are exact duplicates of it
(or id collisions, when their text differs), decided where each bucket is written (write_task.py,
driver_job.py)."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from corpus_pipeline.dedup.id_buckets import row_order

_RANK = "_repeat_rank"


def first_rows(docs: DataFrame) -> DataFrame:
    """The row of each id that stays, shuffled by id (spark.sql.shuffle.partitions)."""
    order = [F.col(column).asc_nulls_last() for column in row_order(docs.columns)[1:]]
    if not order:  # nothing tells the rows apart: they are identical, keep any one
        order = [F.lit(0)]
    # A running count rather than row_number(): Spark turns `row_number() == 1` into a limit per id
    # below the shuffle, a sort of every row before it.
    window = Window.partitionBy("id").orderBy(*order).rowsBetween(Window.unboundedPreceding, Window.currentRow)
    # Shuffled by id even when the input is one partition, which Spark would leave as it is: then
    # the joins on id after it shuffled or not by the input's size, and dedup's Spark path ran 16
    # jobs at 50k documents (one partition on local[1]) against 17 at 100k (two). The shuffle is
    # the one the window asks for at two partitions or more.
    ranked = docs.repartition("id").withColumn(_RANK, F.count(F.lit(1)).over(window))
    return ranked.filter(F.col(_RANK) == 1).drop(_RANK)
