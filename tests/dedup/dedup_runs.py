"""The determinism check every dedup method shares: the same documents through the dedup stage at
4 and 13 Spark shuffle partitions (and as many input parts), the outputs to compare byte for byte."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.spark_job import run_dedup
from corpus_pipeline.dedup.staging import write_documents_stage

PARTITIONINGS = (4, 13)


def dedup_at_partitionings(spark, docs: list[dict], config: PipelineConfig, tmp_path: Path) -> list[Path]:
    """One dedup output directory per partitioning in PARTITIONINGS."""
    outputs = []
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        for parts in PARTITIONINGS:
            spark.conf.set("spark.sql.shuffle.partitions", str(parts))
            source = write_documents_stage(docs, tmp_path / f"in{parts}", parts=parts)
            outputs.append(run_dedup(source, tmp_path / f"out{parts}", config, spark).output)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    return outputs
