"""`run --runner local` on a small input starts no JVM: every stage, dedup included (driver_job.py),
runs in this process. Any request for a SparkSession fails the run."""

from __future__ import annotations

import json
from unittest import mock

from pipeline_inputs import small_config, write_demo_warc
from stage_fixtures import stage_dir

from corpus_pipeline.pipeline.context import RunPlan, StepOutcome
from corpus_pipeline.pipeline.runner import _progress, run_pipeline
from corpus_pipeline.stats import StageStats


def _no_session(*args, **kwargs):
    raise AssertionError("a SparkSession was asked for under --runner local")


def test_a_local_run_of_a_small_input_never_asks_for_spark(tmp_path):
    write_demo_warc(tmp_path / "incoming" / "site.warc.gz", seed=0)
    config = small_config(tmp_path, f"pipeline.inputs=[{tmp_path / 'incoming'}]", "dedup.methods=[url, exact, minhash]")
    with mock.patch("corpus_pipeline.engine.exec.session.get_spark", _no_session):
        result = run_pipeline(RunPlan.from_config(config, "local"), log=lambda line: None)
    assert result.status == "succeeded", result.record.data["reason"]
    steps = {step["step"]: step for step in result.record.data["steps"]}
    assert steps["dedup"]["status"] == "ran" and steps["gates"]["passed"]
    # The demo site holds exact and near copies: both methods find some.
    assert set(steps["dedup"]["documents"]["dropped"]) == {"exact_duplicate", "minhash_duplicate"}
    stats = json.loads((stage_dir(result.context.run_dir, "dedup") / "_stats.json").read_text(encoding="utf-8"))
    assert stats["dropped"] == steps["dedup"]["documents"]["dropped"]
    assert (result.context.tokens / "manifest.json").exists()


def test_a_fused_stage_s_step_line_shows_its_own_seconds_as_the_table_does():
    """In a fused pass (pii + quality) the first step spends the pass's wall time, quality none."""
    quality = StepOutcome("ran", stats=StageStats("quality", docs_in=41, kept=30, seconds=6.0))
    assert _progress(9, 16, "quality", quality, seconds=0.0) == "[9/16] quality: ran, 41 in, 30 kept in 6.0 s"
    reused = StepOutcome("reused", stats=StageStats("quality", docs_in=41, kept=30, seconds=6.0))
    assert _progress(9, 16, "quality", reused, seconds=0.2).endswith("in 0.2 s")  # this run's time, not the first's
