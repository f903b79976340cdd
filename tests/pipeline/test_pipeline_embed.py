"""A run with the embed stage enabled and semantic dedup: embed runs fused after normalize in its
own directory, dedup reads its vectors, the corpus carries them, and the document counts add up."""

from __future__ import annotations

import json
from unittest import mock

import pyarrow.parquet as pq
import pytest
from pipeline_inputs import small_config, write_demo_warc
from stage_fixtures import final_corpus, stage_dir

from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline


def _no_session(*args, **kwargs):
    raise AssertionError("a SparkSession was asked for under --runner local")


@pytest.mark.slow
def test_a_local_run_embeds_and_dedups_by_meaning(tmp_path):
    write_demo_warc(tmp_path / "incoming" / "site.warc.gz", seed=0)
    config = small_config(
        tmp_path,
        f"pipeline.inputs=[{tmp_path / 'incoming'}]",
        "embeddings.enabled=true",
        "embeddings.device=cpu",
        "dedup.methods=[exact, minhash, semantic]",
    )
    with mock.patch("corpus_pipeline.engine.exec.session.get_spark", _no_session):
        result = run_pipeline(RunPlan.from_config(config, "local"), log=lambda line: None)
    assert result.status == "succeeded", result.record.data["reason"]
    steps = {step["step"]: step for step in result.record.data["steps"]}
    assert steps["embed"]["status"] == "ran" and steps["dedup"]["status"] == "ran"
    run_dir = result.context.run_dir
    embedded = json.loads((run_dir / "03b_embed" / "_stats.json").read_text(encoding="utf-8"))
    normalized = json.loads((stage_dir(run_dir, "normalize") / "_stats.json").read_text(encoding="utf-8"))
    assert embedded["docs_in"] == normalized["kept"] == embedded["kept"]
    assert sum(embedded["extra"]["embedded"].values()) == embedded["kept"]
    final = pq.read_table(sorted(final_corpus(run_dir).glob("part-*.parquet")), columns=["embedding"])
    assert final.num_rows and final.column("embedding").null_count < final.num_rows
