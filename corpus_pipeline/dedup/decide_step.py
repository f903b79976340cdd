"""Dedup's decide step on Spark (engine/sub_steps.py): every method's decisions over the whole input,
written as a stage directory of its own in dedup's work area, in the write step's id buckets, whose
tasks each read their bucket's part (write_task.py). Materialized, so a write that dies is rerun from
the verdicts, not from the signatures of every document, and the decide step's jobs are labelled and
counted apart."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.engine.whole_corpus import Executor, GlobalStage, input_parts, write_bucketed_parts
from corpus_pipeline.storage.locations import Location


class DecideStep(GlobalStage):
    name = "dedup-decide"

    def __init__(self, dedup: GlobalStage, input_schema: pa.Schema, parts: int, band_tasks: int):
        self.dedup, self.input_schema = dedup, input_schema  # the DedupStage it is a step of
        self.parts = parts  # of its output: dedup's own part count, so no part grows with the corpus
        self.band_tasks = band_tasks  # minhash's (decisions.band_task_count)

    # What decides the verdicts is what decides dedup's output: its config, its index.
    def config_fingerprint(self) -> str:
        return self.dedup.config_fingerprint()

    def input_identity(self, executor: Executor) -> list[str]:
        return self.dedup.input_identity(executor)

    def inputs(self) -> list[Location]:
        return self.dedup.inputs()

    def run(self, input_dir: list[Location], work, executor: Executor) -> dict:
        from corpus_pipeline.dedup.spark_job import decision_frame, decision_schema

        storage, config = work.storage, self.dedup.config
        parts = [part for path in input_dir for part in input_parts(path, storage)]
        session, index = executor.session(), self.dedup.index
        decisions = decision_frame(
            session, parts, self.input_schema, config, index, storage, (self.parts, self.band_tasks)
        )
        write_bucketed_parts(decisions, work.task_target, self.name, decision_schema(config), self.parts, storage)
        return {}
