"""The local executor: a stage's tasks one after another in this process (tests, tiny runs)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from corpus_pipeline.config import SparkConfig

T = TypeVar("T")
R = TypeVar("R")


def _progress(label: str, done: int, total: int) -> None:
    """One self-overwriting line on a terminal (Spark shows its own progress bar instead)."""
    if sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(f"\r{label}: {done}/{total} tasks", end=end, file=sys.stderr, flush=True)


class LocalExecutor:
    distributed = False

    def __init__(self, spark_config: SparkConfig | None = None):
        self.spark_config = spark_config or SparkConfig()

    def map_tasks(self, function: Callable[[T], R], tasks: Sequence[T], label: str) -> list[R]:
        results = []
        for number, task in enumerate(tasks, 1):
            results.append(function(task))
            _progress(label, number, len(tasks))
        return results

    def session(self):
        """A SparkSession for the steps that are DataFrame jobs whatever the runner: dedup of an
        input too big for the driver (dedup/driver_job.py decides the others in this process)."""
        from corpus_pipeline.engine.session import get_spark

        return get_spark(self.spark_config)
