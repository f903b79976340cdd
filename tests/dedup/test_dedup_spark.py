"""The dedup stage on Spark: contracts, decisions, determinism across partitionings."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest
from dedup_runs import (
    assert_same_bytes,
    decided_by_spark_jobs,
    dedup_at_partitionings,
    run_dedup,
    run_dedup_without_spark,
)

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.components import connected_components
from corpus_pipeline.dedup.staging import write_documents_stage

pytestmark = pytest.mark.spark

WORDS = [f"word{i}" for i in range(3000)]
HANZI = [chr(0x4E00 + i) for i in range(2000)]


def _corpus() -> tuple[list[dict], dict[str, str]]:
    """60 distinct English and 20 Chinese documents, plus copies: dropped id -> the id kept."""
    rng = random.Random(3)
    docs, expected = [], {}
    for i in range(60):
        text = " ".join(rng.choices(WORDS, k=200))
        docs.append({"id": f"en{i:03d}", "text": text, "language": "en", "date": "2021-05-01T00:00:00Z"})
    for i in range(20):
        docs.append({"id": f"zh{i:03d}", "text": "".join(rng.choices(HANZI, k=300)), "language": "zh"})
    for i in range(0, 20, 2):  # exact copies, differing in case and punctuation only, fetched later
        docs.append({"id": f"x{i:03d}", "text": docs[i]["text"].upper() + "!", "language": "en", "date": "2022"})
        expected[f"x{i:03d}"] = docs[i]["id"]
    for i in range(20, 40, 2):  # one word in 200 replaced (Jaccard ~0.95), fetched earlier: kept
        words = docs[i]["text"].split()
        words[100] = "changed"
        docs.append({"id": f"n{i:03d}", "text": " ".join(words), "language": "en", "date": "2020-01-01T00:00:00Z"})
        expected[docs[i]["id"]] = f"n{i:03d}"
    for i in range(60, 70, 2):  # Chinese with one character changed; no dates: the smaller id is kept
        text = docs[i]["text"]
        docs.append({"id": f"c{i:03d}", "text": text[:150] + "变" + text[151:], "language": "zh"})
        expected[docs[i]["id"]] = f"c{i:03d}"
    for doc_id, url, date in (("u1", "http://site.test/page", "2020"), ("u2", "HTTP://Site.test:80/page#top", "2021")):
        docs.append({"id": doc_id, "url": url, "date": date, "text": " ".join(rng.choices(WORDS, k=50))})
    expected["u1"] = "u2"  # the same page fetched twice: the latest fetch stays
    return docs, expected


def _read(directory, pattern):
    rows = []
    for part in sorted(directory.glob(pattern)):
        rows.extend(pq.read_table(part).to_pylist())
    return rows


def test_connected_components_labels_every_node_with_its_smallest_id(spark):
    edges = spark.createDataFrame(
        [("e", "d"), ("d", "c"), ("c", "b"), ("x", "y"), ("b", "f"), ("z", "y")], "src string, dst string"
    )
    found = dict(connected_components(edges).collect())
    assert found == {"b": "b", "c": "b", "d": "b", "e": "b", "f": "b", "x": "x", "y": "x", "z": "x"}


def test_dedup_keeps_contracts_and_its_bytes_do_not_depend_on_partitioning(spark, tmp_path):
    docs, expected = _corpus()
    config = PipelineConfig.model_validate({"dedup": {"output_parts": 3, "methods": ["url", "exact", "minhash"]}})
    outputs = dedup_at_partitionings(spark, docs, config, tmp_path)
    out = outputs[0]
    assert sorted(p.name for p in out.glob("part-*.parquet")) == [f"part-0000{i}.parquet" for i in range(3)]
    stats = json.loads((out / "_stats.json").read_text())
    assert stats["docs_in"] == len(docs) and stats["kept"] == 81
    assert stats["dropped"] == {"exact_duplicate": 10, "minhash_duplicate": 15, "url_duplicate": 1}
    assert {row["id"]: row["reject_detail"] for row in _read(out, "_rejected/reason=*/*.parquet")} == expected
    kept = {row["id"]: row for row in _read(out, "part-*.parquet")}
    assert kept["en000"]["dup_cluster_size"] == 2 and kept["en000"]["dup_cluster_id"] == "en000"
    assert kept["en001"]["dup_cluster_size"] == 1
    assert kept["n020"]["dup_cluster_size"] == 2 and kept["n020"]["dup_cluster_id"] == "en020"
    assert kept["c060"]["dup_cluster_size"] == 2 and kept["zh001"]["dup_cluster_size"] == 1
    assert_same_bytes(outputs)
    assert run_dedup(tmp_path / "in4", tmp_path / "out4", config, spark).skipped


def test_a_bucket_whose_text_dictionary_outgrows_its_page_has_the_same_bytes_on_both_paths(spark, tmp_path):
    """1,200 documents of 2 kB of distinct text in one output part (2.4 MB, over the Parquet
    writer's 1 MB dictionary page), reaching the Spark write 97 rows a batch: the writer's fallback
    from its dictionary falls where a chunk ends, so the pieces must not show in the file."""
    rng = random.Random(5)
    docs = [{"id": f"d{i:05d}", "text": " ".join(rng.choices(WORDS, k=250)), "language": "en"} for i in range(1_200)]
    docs += [{"id": "z99999", "text": docs[0]["text"] + "!", "language": "en"}]  # a rejected row too
    config = PipelineConfig.model_validate({"dedup": {"output_parts": 1}})
    source = write_documents_stage(docs, tmp_path / "in", parts=3)
    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "97")
    try:
        with decided_by_spark_jobs():
            on_spark = run_dedup(source, tmp_path / "spark", config, spark).output
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)
    assert_same_bytes([on_spark, run_dedup_without_spark(source, tmp_path / "driver", config).output])
