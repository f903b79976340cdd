"""A whole run over one WARC read in byte spans (engine.task_bytes) gives the token shards of a run
that reads it in one task: document ids and order do not depend on how the file is cut, nor on the
runner that runs the spans."""

from __future__ import annotations

import json

import pytest
from pipeline_inputs import small_config, write_demo_warc
from stage_fixtures import stage_dir

from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline

SPAN_BYTES = 16_384  # the demo WARC (~100 KB): 7 spans


def _shards(tmp_path, name: str, runner: str, task_bytes: int) -> dict[str, bytes]:
    warc = tmp_path / "incoming" / "site.warc.gz"
    if not warc.exists():
        write_demo_warc(warc, seed=0)
    overrides = [f"pipeline.inputs=[{warc}]", f"engine.task_bytes={task_bytes}", f"run_id={name}"]
    result = run_pipeline(RunPlan.from_config(small_config(tmp_path, *overrides), runner), log=lambda line: None)
    assert result.status == "succeeded", result.record.data["reason"]
    extract = {step["step"]: step for step in result.record.data["steps"]}["extract"]
    assert extract["status"] == "ran"
    tasks = json.loads((stage_dir(result.context.run_dir, "extract") / "_stats.json").read_text(encoding="utf-8"))[
        "tasks"
    ]
    size = warc.stat().st_size
    assert tasks == (1 if size <= task_bytes else -(-size // task_bytes))
    return {
        path.name: path.read_bytes()
        for path in sorted(result.context.tokens.glob("*"))
        if path.suffix in (".bin", ".idx")
    }


def test_spans_give_the_shards_of_one_task(tmp_path):
    one = _shards(tmp_path, "one-task", "local", 1 << 30)
    assert (tmp_path / "incoming" / "site.warc.gz").stat().st_size > 4 * SPAN_BYTES, "several spans"
    assert one and _shards(tmp_path, "spans", "local", SPAN_BYTES) == one


@pytest.mark.spark
def test_spans_on_spark_give_the_shards_of_the_local_runner(tmp_path, spark):
    assert _shards(tmp_path, "spark", "spark", SPAN_BYTES) == _shards(tmp_path, "local", "local", SPAN_BYTES)
