"""The dedup stage as the tests run it, and the determinism check every dedup method shares: the same
documents through the dedup stage at 4 and 13 Spark shuffle partitions (and as many input parts), and
under the local runner with no Spark at all, the outputs to compare byte for byte. At 4 the Spark
runner decides the small input on its driver (driver_job.py), at 13 by the Spark jobs (chain_job.py),
and the local runner decides and writes it in its own process (driver_job.py again), so equal bytes
also say that both paths make the same choices under any layout of the input."""

from __future__ import annotations

import contextlib
from pathlib import Path
from unittest import mock

import pyarrow as pa

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup import driver_job
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.engine.lifecycle import StageResult
from corpus_pipeline.stage_runner import run_stage

PARTITIONINGS = (4, 13)
SPARK_DECIDES_AT = 13


def run_dedup(source: Path, output: Path, config: PipelineConfig, spark, index_dir: Path | None = None) -> StageResult:
    return run_stage("dedup", source, output, config, SparkExecutor(spark), index=index_dir)


def _no_session(*args, **kwargs):
    raise AssertionError("the local runner started a SparkSession for an input that fits the driver")


def run_dedup_without_spark(
    source: Path | list[Path], output: Path, config: PipelineConfig, index_dir: Path | None = None
) -> StageResult:
    """The stage under the local runner, failing if anything asks for a SparkSession."""
    with mock.patch("corpus_pipeline.engine.exec.session.get_spark", _no_session):
        return run_stage("dedup", source, output, config, LocalExecutor(config.spark), index=index_dir)


@contextlib.contextmanager
def decided_by_spark_jobs():
    """Every input too big for the driver's pass, however small."""
    with mock.patch.object(driver_job, "fits_driver", return_value=False):
        yield


def dedup_at_partitionings(
    spark, docs: list[dict], config: PipelineConfig, tmp_path: Path, schema: pa.Schema = DOCUMENT_SCHEMA
) -> list[Path]:
    """One dedup output directory per partitioning in PARTITIONINGS, then the local runner's; the
    documents written in `schema` (the document's, or with a stage's columns)."""
    outputs = []
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        for parts in PARTITIONINGS:
            spark.conf.set("spark.sql.shuffle.partitions", str(parts))
            source = write_documents_stage(docs, tmp_path / f"in{parts}", parts=parts, schema=schema)
            with decided_by_spark_jobs() if parts == SPARK_DECIDES_AT else contextlib.nullcontext():
                outputs.append(run_dedup(source, tmp_path / f"out{parts}", config, spark).output)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    source = tmp_path / f"in{PARTITIONINGS[0]}"
    outputs.append(run_dedup_without_spark(source, tmp_path / "out-local", config).output)
    return outputs


def assert_same_bytes(outputs: list[Path]) -> None:
    """Every output holds the same Parquet files, byte for byte, and the same counts."""
    first = outputs[0]
    files = sorted(p.relative_to(first) for p in first.rglob("*.parquet"))
    for other in outputs[1:]:
        assert files == sorted(p.relative_to(other) for p in other.rglob("*.parquet")), other
        for name in files:
            assert (first / name).read_bytes() == (other / name).read_bytes(), f"{other / name} differs"
        assert _counts(first) == _counts(other), other


def _counts(output: Path) -> dict:
    import json

    stats = json.loads((output / "_stats.json").read_text(encoding="utf-8"))
    return {key: stats[key] for key in ("docs_in", "kept", "dropped", "extra")}
