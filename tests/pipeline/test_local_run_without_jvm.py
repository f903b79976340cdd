"""`run --runner local` on a small input starts no JVM: every stage, dedup included (driver_job.py),
runs in this process. Any request for a SparkSession fails the run."""

from __future__ import annotations

import json
from unittest import mock

from pipeline_inputs import small_config, write_demo_warc
from stage_fixtures import stage_dir

from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline


def _no_session(*args, **kwargs):
    raise AssertionError("a SparkSession was asked for under --runner local")


def test_a_local_run_of_a_small_input_never_asks_for_spark(tmp_path):
    write_demo_warc(tmp_path / "incoming" / "site.warc.gz", seed=0)
    config = small_config(tmp_path, f"pipeline.inputs=[{tmp_path / 'incoming'}]", "dedup.methods=[url, exact, minhash]")
    with mock.patch("corpus_pipeline.engine.session.get_spark", _no_session):
        result = run_pipeline(RunPlan.from_config(config, "local"), log=lambda line: None)
    assert result.status == "succeeded", result.record.data["reason"]
    steps = {step["step"]: step for step in result.record.data["steps"]}
    assert steps["dedup"]["status"] == "ran" and steps["gates"]["passed"]
    # The demo site holds exact and near copies: both methods find some.
    assert set(steps["dedup"]["documents"]["dropped"]) == {"exact_duplicate", "minhash_duplicate"}
    stats = json.loads((stage_dir(result.context.run_dir, "dedup") / "_stats.json").read_text(encoding="utf-8"))
    assert stats["dropped"] == steps["dedup"]["documents"]["dropped"]
    assert (result.context.tokens / "manifest.json").exists()
