"""The Spark executor: every task of a stage as one Spark task, and the session for the global
steps that are DataFrame jobs.

Tasks read and write their own files (engine/store/task_output.py) in the stage's work directory, which
must be on a filesystem every executor and the driver share (local disk in `local[*]`, NFS or a
mounted bucket on a cluster). Only each task's small result comes back to the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import pyarrow as pa

from corpus_pipeline import failures

T = TypeVar("T")
R = TypeVar("R")


def spark_schema(arrow_schema: pa.Schema):
    """The Spark schema of a stage's rows, derived from the Arrow one (never written by hand)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema)


class SparkExecutor:
    distributed = True

    def __init__(self, spark, work: failures.Work | None = None):
        self.spark = spark
        self.work = work or failures.Work()  # the verb's, marked before the first task

    def map_tasks(self, function: Callable[[T], R], tasks: Sequence[T], label: str) -> list[R]:
        if not tasks:
            return []
        self.work.started = True  # a refusal from here on is a failed stage (exit 1), not exit 2
        context = self.spark.sparkContext
        context.setJobDescription(label)
        try:
            # One slice per task: each planned task is exactly one Spark task, whatever the cluster.
            return context.parallelize(list(tasks), len(tasks)).map(function).collect()
        finally:
            context.setJobDescription(None)

    def session(self):
        return self.spark
