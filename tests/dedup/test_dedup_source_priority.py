"""Cross-source dedup: several stage directories as one corpus, the priority source's copy kept."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from dedup_runs import assert_same_bytes, run_dedup_without_spark
from stage_fixtures import real_documents, write_stage

from corpus_pipeline.config import load_config
from corpus_pipeline.document import document_id
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.stage_runner import run_stage


def _sources(tmp_path):
    """web: 6 real news documents; wiki: copies of the first 3 under other URLs, and one of its own."""
    web = [dict(doc, source="web") for doc in real_documents(english=6, chinese=0)]
    wiki = [
        dict(
            doc,
            id=document_id(f"https://wiki.example/{n}", doc["text"]),
            url=f"https://wiki.example/{n}",
            source="wiki",
        )
        for n, doc in enumerate(real_documents(english=7, chinese=0)[6:] + web[:3])
    ]
    return write_stage(tmp_path / "web", web, parts=2), write_stage(tmp_path / "wiki", wiki, parts=1)


@pytest.mark.parametrize("priority", [["wiki", "web"], ["web", "wiki"]])
def test_a_cluster_across_sources_keeps_the_copy_of_the_first_source_in_priority(tmp_path, priority):
    web, wiki = _sources(tmp_path)
    config = load_config(None, [f"dedup.source_priority={priority}", "spark.master=local[2]"])
    output = tmp_path / "dedup"
    result = run_dedup_without_spark([web, wiki], output, config)

    kept = pq.read_table(output).to_pylist()
    assert (result.stats.docs_in, result.stats.kept, dict(result.stats.dropped)) == (10, 7, {"exact_duplicate": 3})
    sources = sorted(row["source"] for row in kept)
    # The three shared texts stay once each, from the first source in priority; the rest are unique.
    expected = {"wiki": ["web"] * 3 + ["wiki"] * 4, "web": ["web"] * 6 + ["wiki"]}[priority[0]]
    assert sources == expected
    assert "_source_rank" not in pq.read_schema(next(output.glob("part-*.parquet"))).names


@pytest.mark.spark
def test_spark_keeps_the_same_copies_byte_for_byte(tmp_path, spark):
    web, wiki = _sources(tmp_path)
    config = load_config(None, ["dedup.source_priority=[wiki, web]"])
    on_spark = run_stage("dedup", [web, wiki], tmp_path / "spark", config, SparkExecutor(spark)).output
    assert_same_bytes([on_spark, run_dedup_without_spark([web, wiki], tmp_path / "local", config).output])
