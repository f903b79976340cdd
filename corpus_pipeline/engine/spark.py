"""The Spark executor: one adapter that runs any stage's tasks inside Spark over Arrow batches.

Tasks write their own output files (engine/task_output.py) into the stage's work directory, which
must be on a filesystem every executor and the driver share (local disk in `local[*]`, NFS or a
mounted bucket on a cluster). Only one small row per task comes back to the driver.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from corpus_pipeline.engine.tasks import run_document_task, run_source_task
from corpus_pipeline.stages.base import DocumentStage, SourceStage

_TASK_RESULT_SCHEMA = "task_id long, docs_in long, kept long"


def spark_schema(arrow_schema: pa.Schema):
    """The Spark schema of a stage's rows, derived from the Arrow one (never written by hand)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema)


def _result_batch(task_id: int, stats) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([{"task_id": task_id, "docs_in": stats.docs_in, "kept": stats.kept}])


class SparkExecutor:
    name = "spark"

    def __init__(self, spark):
        self.spark = spark

    def run_source_tasks(self, stage: SourceStage, paths: list[str], work: Path) -> None:
        if not paths:
            return
        # parallelize with one slice per element puts exactly one file in each task, so a file's
        # records stay in order and part-NNNNN.parquet is input file NNNNN whatever the cluster.
        files = self.spark.sparkContext.parallelize(list(enumerate(paths)), len(paths))
        frame = self.spark.createDataFrame(files, "task_id long, path string")
        work_dir = str(work)

        def run(batches):
            for batch in batches:
                for task_id, path in zip(
                    batch.column("task_id").to_pylist(), batch.column("path").to_pylist(), strict=True
                ):
                    stats = run_source_task(stage, path, Path(work_dir), task_id)
                    yield _result_batch(task_id, stats)

        frame.mapInArrow(run, _TASK_RESULT_SCHEMA).collect()

    def run_document_tasks(self, stage: DocumentStage, parts: list[Path], input_schema: pa.Schema, work: Path) -> None:
        from pyspark import TaskContext

        frame = self.spark.read.schema(spark_schema(input_schema)).parquet(*[str(part) for part in parts])
        # Spark packs small files into one split and never splits a row group, so a few MB of
        # documents would run as one task on one core; spread them over every core instead.
        cores = self.spark.sparkContext.defaultParallelism
        if frame.rdd.getNumPartitions() < cores:
            frame = frame.repartition(cores)
        work_dir = str(work)

        def run(batches):
            task_id = TaskContext.get().partitionId()
            stats = run_document_task(stage, batches, input_schema, Path(work_dir), task_id)
            yield _result_batch(task_id, stats)

        frame.mapInArrow(run, _TASK_RESULT_SCHEMA).collect()
