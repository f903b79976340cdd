"""The cross-snapshot index: a snapshot deduped against a published one drops exactly its copies."""

from __future__ import annotations

import contextlib
import json
import random

import pyarrow.parquet as pq
import pytest
from dedup_runs import decided_by_spark_jobs, run_dedup, run_dedup_without_spark

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.index import SETTINGS, publish_to_index, read_index
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark

WORDS = [f"term{i}" for i in range(4000)]


@pytest.mark.parametrize("decided_by", ["driver", "spark jobs", "the local runner"])
def test_snapshot_b_drops_exactly_its_duplicates_of_published_a(spark, tmp_path, decided_by):
    rng = random.Random(11)
    snapshot_a = [{"id": f"a{i:02d}", "text": " ".join(rng.choices(WORDS, k=150))} for i in range(30)]
    snapshot_b = [{"id": f"b{i:02d}", "text": " ".join(rng.choices(WORDS, k=150))} for i in range(20)]
    expected = {}
    for i in range(5):  # exact copies of A (an unchanged page keeps its id across snapshots)
        snapshot_b.append(dict(snapshot_a[i]))
        expected[snapshot_a[i]["id"]] = f"index:a{i:02d}"
    for i in range(5, 10):  # near copies of A
        words = snapshot_a[i]["text"].split()
        words[75] = "edited"
        snapshot_b.append({"id": f"near{i}", "text": " ".join(words)})
        expected[f"near{i}"] = f"index:a{i:02d}"
    config = PipelineConfig()
    index_dir = tmp_path / "index"
    # The local runner publishes to the index in this process, as it dedups: no JVM.
    executor = LocalExecutor() if decided_by == "the local runner" else SparkExecutor(spark)
    published = publish_to_index(
        write_documents_stage(snapshot_a, tmp_path / "a"), index_dir, config.dedup, executor, storage=Storage()
    )
    assert publish_to_index(tmp_path / "a", index_dir, config.dedup, executor, storage=Storage()) == published
    with pytest.raises(ValueError, match="built with"):
        read_index(index_dir, DedupConfig(num_perm=64), spark, Storage())
    source = write_documents_stage(snapshot_b, tmp_path / "b", parts=2)
    if decided_by == "the local runner":
        out = run_dedup_without_spark(source, tmp_path / "out", config, index_dir=index_dir).output
    else:
        with decided_by_spark_jobs() if decided_by == "spark jobs" else contextlib.nullcontext():
            out = run_dedup(source, tmp_path / "out", config, spark, index_dir=index_dir).output
    rejected = [row for part in out.glob("_rejected/reason=*/*.parquet") for row in pq.read_table(part).to_pylist()]
    assert {row["id"]: row["reject_detail"] for row in rejected} == expected
    kept = sorted(row["id"] for part in out.glob("part-*.parquet") for row in pq.read_table(part).to_pylist())
    assert kept == sorted(doc["id"] for doc in snapshot_b[:20])


def test_an_index_of_an_older_shingle_hash_is_refused(spark, tmp_path):
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    older = {"char_ngram": 5, "num_perm": 128, "seed": 1, "word_ngram": 5}  # before shingle_hash was recorded
    (index_dir / SETTINGS).write_text(json.dumps(older), encoding="utf-8")
    with pytest.raises(ValueError, match="built with"):
        read_index(index_dir, DedupConfig(**older), spark, Storage())
