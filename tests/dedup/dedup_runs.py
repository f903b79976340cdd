"""The dedup stage as the tests run it, and the determinism check every dedup method shares: the same
documents through the dedup stage at 4 and 13 Spark shuffle partitions (and as many input parts), the
outputs to compare byte for byte. At 4 the small input is decided on the driver, at 13 by the Spark
jobs (chain_job.py's two paths), so equal bytes also say that both paths make the same choices."""

from __future__ import annotations

import contextlib
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup import chain_job
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.engine.lifecycle import StageResult
from corpus_pipeline.engine.run import run_stage
from corpus_pipeline.engine.spark import SparkExecutor

PARTITIONINGS = (4, 13)
SPARK_DECIDES_AT = 13


def run_dedup(source: Path, output: Path, config: PipelineConfig, spark, index_dir: Path | None = None) -> StageResult:
    return run_stage("dedup", source, output, config, SparkExecutor(spark), index=index_dir)


@contextlib.contextmanager
def decided_by_spark_jobs():
    """Every input too big for the driver's pass, however small."""
    small_input_bytes = chain_job.SMALL_INPUT_BYTES
    chain_job.SMALL_INPUT_BYTES = 0
    try:
        yield
    finally:
        chain_job.SMALL_INPUT_BYTES = small_input_bytes


def dedup_at_partitionings(spark, docs: list[dict], config: PipelineConfig, tmp_path: Path) -> list[Path]:
    """One dedup output directory per partitioning in PARTITIONINGS."""
    outputs = []
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        for parts in PARTITIONINGS:
            spark.conf.set("spark.sql.shuffle.partitions", str(parts))
            source = write_documents_stage(docs, tmp_path / f"in{parts}", parts=parts)
            with decided_by_spark_jobs() if parts == SPARK_DECIDES_AT else contextlib.nullcontext():
                outputs.append(run_dedup(source, tmp_path / f"out{parts}", config, spark).output)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    return outputs
