"""The local executor: a stage's tasks one after another in this process (tests, tiny runs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from corpus_pipeline import failures
from corpus_pipeline.engine.exec.progress import Progress
from corpus_pipeline.engine.exec.spark_config import SparkConfig

T = TypeVar("T")
R = TypeVar("R")


class LocalExecutor:
    distributed = False

    def __init__(
        self,
        spark_config: SparkConfig | None = None,
        progress_seconds: float = 30.0,
        work: failures.Work | None = None,
        memory_mb: int | None = None,
    ):
        self.spark_config = spark_config or SparkConfig()
        self.memory_mb = memory_mb  # engine.memory_mb: the embedded JVM's size, when a step needs one
        self.progress_seconds = progress_seconds  # between plain progress lines when not on a terminal
        self.work = work or failures.Work()  # the verb's, marked before the first task

    def map_tasks(self, function: Callable[[T], R], tasks: Sequence[T], label: str) -> list[R]:
        if not tasks:
            return []
        self.work.started = True  # a refusal from here on is a failed stage (exit 1), not exit 2
        results = []
        with Progress(label, len(tasks), self.progress_seconds) as progress:
            for task in tasks:
                results.append(function(task))
                progress.advance(results[-1])
        return results

    def session(self):
        """A SparkSession for the steps that are DataFrame jobs whatever the runner: dedup of an
        input too big for the driver (dedup/driver_job.py decides the others in this process)."""
        from corpus_pipeline.engine.exec.session import get_spark

        return get_spark(self.spark_config, self.memory_mb)
