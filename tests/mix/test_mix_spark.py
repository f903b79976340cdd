"""mix on Spark (local[2]): the tasks are Spark tasks, and the output is the local executor's, byte
for byte, from another partitioning of the same documents."""

from __future__ import annotations

import mix_fixtures
import pytest
from mix_fixtures import labelled_documents, mix_config, write_labelled

from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.stage_runner import run_stage

tokenizer_path = mix_fixtures.tokenizer_path

pytestmark = pytest.mark.spark


def test_spark_with_7_parts_writes_the_bytes_of_the_local_run_with_2(tmp_path, spark, tokenizer_path):
    docs = labelled_documents()
    config = mix_config(targets={"news": 0.5, "web": 0.2, "daily": 0.3}, rehydration=[{"min": 2, "weight": 2}])
    seven = write_labelled(tmp_path / "in7", docs[::-1], parts=7)
    two = write_labelled(tmp_path / "in2", docs, parts=2)
    on_spark = run_stage("mix", [seven], tmp_path / "spark", config, SparkExecutor(spark), tokenizer=tokenizer_path)
    local = run_stage("mix", [two], tmp_path / "local", config, LocalExecutor(), tokenizer=tokenizer_path)
    assert on_spark.stats.tasks == 7 and local.stats.tasks == 2
    names = sorted(p.name for p in local.output.iterdir() if p.suffix in (".bin", ".idx", ".json", ".parquet"))
    assert "documents.parquet" in names and "manifest.json" in names
    for name in names:
        if name != "_stats.json":
            assert (on_spark.output / name).read_bytes() == (local.output / name).read_bytes(), name
