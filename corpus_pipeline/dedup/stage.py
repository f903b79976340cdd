"""The dedup stage for the engine's lifecycle: read the input stage, decide, write part i of n with
the documents whose id hashes to i, sorted by id (id_buckets.py).

Where the decisions are made: an input whose decision fits the driver's memory budget
(driver_budget.py, engine.memory_mb) is decided and written in this process with no Spark at all
(driver_job.py), under either runner (under Spark's, only while one core's pass takes less wall time
than the jobs on the runner's cores); anything else by Spark jobs (spark_job.py). Both write
through bucket_writer.py, and the tests compare the two paths' bytes. Under the Spark runner too:
on the 1,423 documents of the 1,432 real pages (local[2], a warm session) the Spark path took
14.6 s of wall time and 11.4 CPU s, the driver 4.6 s and 1.6 CPU s (load average 6 on 2 cores).

A write task is identified by its hash bucket and the bucket count ("id bucket i of n"), both fixed
by the input and the config, so a resumed run under any core count finds the same tasks.

Several input stage directories are deduplicated as one corpus: a run's sources (pipeline.sources),
each normalized in its own directory.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from corpus_pipeline.config import StorageConfig
from corpus_pipeline.dedup.bucket_writer import STAGE_NAME
from corpus_pipeline.dedup.chain import CLUSTER_FIELDS
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.embeddings.vectors import EMBEDDING_COLUMN
from corpus_pipeline.engine.config import EngineConfig
from corpus_pipeline.engine.whole_corpus import (
    Executor,
    GlobalStage,
    SubStep,
    broadcasts_by_measured_size,
    input_parts,
    run_steps,
    spark_step,
)
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location, location
from corpus_pipeline.storage.parquet import parquet_schema


def inputs_of(input_dir: Location | list[Location]) -> list[Location]:
    return input_dir if isinstance(input_dir, list) else [input_dir]


class DedupStage(GlobalStage):
    name = STAGE_NAME

    def __init__(
        self,
        config: DedupConfig | None = None,
        storage: StorageConfig | None = None,
        engine: EngineConfig | None = None,
        index: Path | None = None,
    ):
        self.config = config or DedupConfig()
        self.storage = Storage(storage)
        self.memory_mb = (engine or EngineConfig()).memory_mb
        self.index = location(index) if index is not None else None

    def config_fingerprint(self) -> str:
        return repr(self.config)

    def input_identity(self, executor: Executor) -> list[str]:
        from corpus_pipeline.dedup.index import index_identity

        return index_identity(self.index, self.storage)

    def inputs(self) -> list[Path]:
        return [self.index] if self.index is not None else []

    def run(self, input_dir: Location | list[Location], work, executor: Executor) -> dict:
        storage = work.storage
        inputs = [input_parts(path, storage) for path in inputs_of(input_dir)]
        parts = [part for listed in inputs for part in listed]
        if not parts:
            return {}
        # Sources that skipped a stage lack its columns: every input's columns, nulls where absent.
        schemas = [parquet_schema(storage, listed[0]) for listed in inputs if listed]
        input_schema = pa.unify_schemas(schemas)
        if REJECT_DETAIL_FIELD.name in input_schema.names:
            raise ValueError(f"{input_dir} holds rejected rows ({REJECT_DETAIL_FIELD.name}); give a stage output")
        if "semantic" in self.config.methods and EMBEDDING_COLUMN not in input_schema.names:
            raise ValueError(
                f"dedup.methods has semantic, but the input holds no {EMBEDDING_COLUMN} column: run the embed "
                "stage first (embeddings.enabled: true in a run, or corpus-pipeline embed), or drop semantic"
            )
        schema = input_schema
        for field in CLUSTER_FIELDS:
            if schema.get_field_index(field.name) < 0:
                schema = schema.append(field)
        from corpus_pipeline.dedup import driver_job
        from corpus_pipeline.dedup.driver_budget import input_size, output_part_count

        size = input_size(parts, storage)
        buckets = output_part_count(len(parts), size[1], self.config)
        target = (work.task_target, buckets)
        # The cores the Spark jobs would run on: none started for a runner that is one process.
        cores = executor.session().sparkContext.defaultParallelism if executor.distributed else 1
        budget = (self.memory_mb, cores)
        if driver_job.decide_and_write(
            parts, size, input_schema, schema, self.config, self.index, target, budget, storage
        ):
            return {}
        from corpus_pipeline.dedup.decisions import band_task_count  # imports pyspark

        band_tasks = band_task_count(size[0] + self._published_documents(storage), self.config)
        tasks = (buckets, band_tasks)
        return self._run_on_spark(inputs_of(input_dir), parts, (input_schema, schema), tasks, work, executor)

    def _published_documents(self, storage: Storage) -> int:
        """The documents of the index, which join every method as the input's do."""
        if self.index is None:
            return 0
        from corpus_pipeline.dedup.driver_budget import input_size
        from corpus_pipeline.dedup.index import index_parts

        return input_size(index_parts(self.index, self.config, storage), storage)[0]

    def _run_on_spark(self, input_dirs, parts, schemas, tasks: tuple[int, int], work, executor: Executor) -> dict:
        """Two steps: decide (materialized, decide_step.py), then write every document with its
        verdict. `tasks`: (the output's buckets, minhash's band tasks)."""
        from corpus_pipeline.dedup.decide_step import DecideStep
        from corpus_pipeline.dedup.spark_job import write_spark_buckets

        (input_schema, schema), storage, session = schemas, work.storage, executor.session()
        buckets, band_tasks = tasks
        decide = DecideStep(self, input_schema, buckets, band_tasks)
        with broadcasts_by_measured_size(session):
            reports = run_steps(self.name, [SubStep("decide", decide)], input_dirs, work, executor)
            with spark_step(executor, f"{self.name} › write") as write:
                decisions = input_parts(reports["decide"].output, storage)
                target = (work.task_target, buckets)
                write_spark_buckets(session, parts, input_schema, decisions, self.config, target, schema, storage)
        reports["write"] = write
        return {"steps": {name: report.facts() for name, report in reports.items()}}
