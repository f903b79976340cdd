"""Crawl tasks as a Spark job: one task per domain group, each running the worker subprocess."""

from __future__ import annotations

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.crawl.runner import run_task_process


def run_tasks_on_spark(specs: list[dict], config: PipelineConfig) -> list[int]:
    from corpus_pipeline.engine.session import get_spark

    spark = get_spark(config.spark)
    # One slice per spec: each domain group is exactly one task, so a host is never crawled by
    # two tasks at once, and a retried task replaces its own files (its stats file is written last).
    return spark.sparkContext.parallelize(specs, len(specs)).map(run_task_process).collect()
