"""One document in several rows (the same page in two WARC files of a run): one row stays, the
others are exact duplicates of it, and nothing is multiplied."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest
from dedup_runs import assert_same_bytes, decided_by_spark_jobs, run_dedup, run_dedup_without_spark

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.stage_runner import run_stage

pytestmark = pytest.mark.spark


def _rows(directory, pattern):
    return [row for part in sorted(directory.glob(pattern)) for row in pq.read_table(part).to_pylist()]


def test_rows_repeating_an_id_are_exact_duplicates_of_the_earliest_fetch(spark, tmp_path):
    rng = random.Random(0)
    words = [f"w{i}" for i in range(2000)]
    text_a, text_b, text_c = (" ".join(rng.choices(words, k=120)) for _ in range(3))
    docs = [
        {"id": "a", "text": text_a, "date": "2021", "file_path": "crawl-2.warc.gz", "warc_offset": 10},
        {"id": "a", "text": text_a, "date": "2020", "file_path": "crawl-1.warc.gz", "warc_offset": 99},
        {"id": "b", "text": text_b, "date": "2020", "file_path": "crawl-1.warc.gz", "warc_offset": 5},
        {"id": "b", "text": text_b, "date": "2020", "file_path": "crawl-2.warc.gz", "warc_offset": 5},
        {"id": "b", "text": text_b, "date": "2020", "file_path": "crawl-3.warc.gz", "warc_offset": 5},
        {"id": "c", "text": text_c, "date": "2020", "file_path": "crawl-1.warc.gz", "warc_offset": 7},
    ]
    config = PipelineConfig.model_validate({"dedup": {"methods": ["exact", "minhash"], "output_parts": 2}})
    out = run_dedup(write_documents_stage(docs, tmp_path / "in", parts=3), tmp_path / "out", config, spark).output
    kept = {row["id"]: row for row in _rows(out, "part-*.parquet")}
    assert sorted(kept) == ["a", "b", "c"]
    assert kept["a"]["file_path"] == "crawl-1.warc.gz" and kept["b"]["file_path"] == "crawl-1.warc.gz"
    rejected = _rows(out, "_rejected/reason=exact_duplicate/*.parquet")
    assert sorted((row["id"], row["file_path"], row["reject_detail"]) for row in rejected) == [
        ("a", "crawl-2.warc.gz", "a"),
        ("b", "crawl-2.warc.gz", "b"),
        ("b", "crawl-3.warc.gz", "b"),
    ]
    stats = json.loads((out / "_stats.json").read_text())
    assert stats["docs_in"] == 6 and stats["kept"] == 3 and stats["dropped"] == {"exact_duplicate": 3}
    assert_same_bytes([out, run_dedup_without_spark(tmp_path / "in", tmp_path / "local", config).output])


def test_one_id_with_different_texts_in_two_inputs_is_an_id_collision_not_a_duplicate(spark, tmp_path):
    """Two datasets that both number their records: id "1" in each, other texts. Not dropped as an
    exact duplicate of itself (the detail was the id): `id_collision`, the detail says so."""
    rng = random.Random(1)
    words = [f"w{i}" for i in range(2000)]
    news, wiki, same = (" ".join(rng.choices(words, k=120)) for _ in range(3))
    first = write_documents_stage(
        [{"id": "1", "text": news, "file_path": "news.jsonl"}, {"id": "2", "text": same, "file_path": "news.jsonl"}],
        tmp_path / "news",
    )
    second = write_documents_stage(
        [{"id": "1", "text": wiki, "file_path": "wiki.jsonl"}, {"id": "2", "text": same, "file_path": "wiki.jsonl"}],
        tmp_path / "wiki",
    )
    config = PipelineConfig.model_validate({"dedup": {"methods": ["exact"]}})
    with decided_by_spark_jobs():
        out = run_stage("dedup", [first, second], tmp_path / "out", config, SparkExecutor(spark)).output
    assert sorted(row["file_path"] for row in _rows(out, "part-*.parquet")) == ["news.jsonl", "news.jsonl"]
    [collision] = _rows(out, "_rejected/reason=id_collision/*.parquet")
    assert (collision["file_path"], collision["text"]) == ("wiki.jsonl", wiki)
    assert collision["reject_detail"] == "id 1 is kept with another text"
    [repeat] = _rows(out, "_rejected/reason=exact_duplicate/*.parquet")
    assert (repeat["id"], repeat["reject_detail"]) == ("2", "2")  # the same page twice: a duplicate
    stats = json.loads((out / "_stats.json").read_text())
    assert stats["dropped"] == {"exact_duplicate": 1, "id_collision": 1}
    # The driver's path (either runner, an input this small) decides it the same, byte for byte.
    assert_same_bytes([out, run_dedup_without_spark([first, second], tmp_path / "driver", config).output])
