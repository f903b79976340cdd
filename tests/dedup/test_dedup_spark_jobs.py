"""Dedup's Spark path runs a fixed number of Spark jobs whatever its input: the count does not grow
with the documents nor with the longest chain of near-duplicates (issue 37)."""

from __future__ import annotations

import random

import pytest
from dedup_runs import decided_by_spark_jobs, run_dedup

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.stats import StageStats

pytestmark = pytest.mark.spark

WORDS = [f"word{i}" for i in range(5000)]


def _documents(distinct: int, chain: int, seed: int) -> list[dict]:
    """`distinct` unrelated documents, then `chain` windows of one long text, each 10 words on from
    the last (word 5-gram Jaccard ~0.9 to its neighbours, falling along the chain): one component
    whose length the iterative clustering needed more rounds for."""
    rng = random.Random(seed)
    docs = [{"id": f"d{i:05d}", "text": " ".join(rng.choices(WORDS, k=150)), "language": "en"} for i in range(distinct)]
    long_text = rng.choices(WORDS, k=200 + 10 * chain)
    # Ids shuffled along the chain, so the smallest id sits anywhere on it.
    names = rng.sample(range(chain), chain)
    for position in range(chain):
        text = " ".join(long_text[10 * position : 10 * position + 200])
        docs.append({"id": f"c{names[position]:05d}", "text": text, "language": "en"})
    return docs


def _jobs(spark, docs: list[dict], tmp_path, name: str) -> tuple[int, StageStats]:
    source = write_documents_stage(docs, tmp_path / f"in-{name}", parts=2)
    context = spark.sparkContext
    context.setJobGroup(name, f"dedup {name}")
    try:
        with decided_by_spark_jobs():
            result = run_dedup(source, tmp_path / f"out-{name}", PipelineConfig(), spark)
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    return len(context.statusTracker().getJobIdsForGroup(name)), result.stats


def test_the_spark_path_runs_as_many_jobs_for_a_small_and_a_larger_input(spark, tmp_path):
    small_jobs, small = _jobs(spark, _documents(distinct=40, chain=2, seed=1), tmp_path, "small")
    large_jobs, large = _jobs(spark, _documents(distinct=400, chain=64, seed=2), tmp_path, "large")
    # Both made MinHash drops, the larger many more: its chain is one component of 64.
    small_drops, large_drops = small.dropped["minhash_duplicate"], large.dropped["minhash_duplicate"]
    assert 0 < small_drops < large_drops
    assert large_jobs == small_jobs, (small_jobs, large_jobs)
