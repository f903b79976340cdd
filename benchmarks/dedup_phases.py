"""The MinHash dedup's phases timed one by one on Spark, with the helpers the stage is built from.

The stage records no per-phase timers (its _stats.json has the whole stage's seconds) and Spark's
event log names every PySpark job `NativeMethodAccessorImpl.java:0`, so each phase runs here as its
own job, materialized with `localCheckpoint()` before the next starts, in the order the stage runs
them (spark_job.dedup_decisions -> decisions.minhash_duplicates):

  signatures    Parquet read, normalize, shingle, exact hash, MinHash (batch_ops.signature_batch)
  banding       band keys and the candidate pairs of each bucket (decisions.candidate_pairs)
  verification  each candidate pair's estimated Jaccard from the signatures, kept if >= threshold
  clustering    connected components of the verified pairs (components.connected_components)

What the whole stage does beyond these (the exact method, the keep rule and its check of every
member against its kept document, writing the documents) is the whole stage's time minus theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from common import tree_clocks
from pyspark.sql import functions as F

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.batch_ops import SIGNATURE_SCHEMA, signature_batch
from corpus_pipeline.dedup.components import connected_components
from corpus_pipeline.dedup.decisions import _similarities, band_task_count, candidate_pairs
from corpus_pipeline.dedup.driver_budget import input_size
from corpus_pipeline.dedup.lsh import bands_and_rows
from corpus_pipeline.engine.exec.spark import spark_schema
from corpus_pipeline.engine.store.stage_dir import input_parts
from corpus_pipeline.storage import Storage


@dataclass
class Phase:
    name: str
    wall_s: float
    cpu_s: float  # CPU of this process and its descendants: the JVM and the Python workers
    rows: int  # what it produced: signatures, candidate pairs, verified pairs, clustered documents
    unit: str


def warm_up(spark) -> None:
    """Start the Python workers and import the dedup helpers in them, outside every timing (the
    stage pays this once per session; a phase timed first would pay it alone)."""
    import pyarrow as pa

    def touch(batches):
        import corpus_pipeline.dedup.batch_ops  # noqa: F401

        for batch in batches:
            yield pa.RecordBatch.from_pydict({"id": batch.column("id")})

    spark.range(0, 4, numPartitions=2).mapInArrow(touch, "id long").collect()


def timed_phases(spark, source: Path, config: PipelineConfig) -> list[Phase]:
    dedup = config.dedup
    bands, rows = bands_and_rows(
        dedup.threshold, dedup.num_perm, dedup.false_positive_weight, dedup.false_negative_weight
    )
    parts = input_parts(source, storage=Storage())
    docs = spark.read.parquet(*[str(p) for p in parts]).select("id", "url", "text", "language")
    band_tasks = band_task_count(input_size(parts, Storage())[0], dedup)  # as the stage sizes them
    phases: list[Phase] = []

    def phase(name: str, unit: str, frame):
        wall, cpu = tree_clocks()
        done = frame.localCheckpoint()
        wall_after, cpu_after = tree_clocks()
        phases.append(Phase(name, wall_after - wall, cpu_after - cpu, done.count(), unit))
        return done

    signatures = phase(
        "signatures",
        "signatures",
        docs.mapInArrow(
            lambda batches: (signature_batch(b, dedup, with_simhash=False) for b in batches),
            spark_schema(SIGNATURE_SCHEMA),
        ),
    )
    with_signature = signatures.where(F.col("signature").isNotNull()).select("id", "signature")
    pairs = phase("banding", "candidate pairs", candidate_pairs(with_signature, bands, rows, band_tasks))
    similar = _similarities(pairs, with_signature)
    edges = phase(
        "verification", "verified pairs", similar.where(F.col("similarity") >= dedup.threshold).select("src", "dst")
    )
    phase("clustering", "clustered documents", connected_components(edges))
    return phases
