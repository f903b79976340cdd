"""Dedup's decide step on Spark (engine/sub_steps.py): every method's decisions over the whole input,
written as a stage directory of its own in dedup's work area, which the write step then joins with
the documents (spark_job.py). Materialized, so a write that dies is rerun from the verdicts, not
from the signatures of every document, and the decide step's jobs are labelled and counted apart."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.engine.whole_corpus import Executor, GlobalStage, input_parts, write_parts
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location


class DecideStep(GlobalStage):
    name = "dedup-decide"

    def __init__(
        self, config: DedupConfig, input_schema: pa.Schema, index: Location | None, parts: int, storage: Storage
    ):
        self.config, self.input_schema, self.index, self.storage = config, input_schema, index, storage
        self.parts = parts  # of its output: dedup's own part count, so no part grows with the corpus

    def config_fingerprint(self) -> str:
        return repr(self.config)

    def input_identity(self, executor: Executor) -> list[str]:
        from corpus_pipeline.dedup.index import index_identity

        return index_identity(self.index, self.storage)

    def inputs(self) -> list[Location]:
        return [self.index] if self.index is not None else []

    def run(self, input_dir: list[Location], work, executor: Executor) -> dict:
        from corpus_pipeline.dedup.spark_job import decision_frame, decision_schema

        storage = work.storage
        parts = [part for path in input_dir for part in input_parts(path, storage)]
        decisions = decision_frame(executor.session(), parts, self.input_schema, self.config, self.index, storage)
        write_parts(decisions, work.task_target, self.name, decision_schema(self.config), self.parts, storage)
        return {}
