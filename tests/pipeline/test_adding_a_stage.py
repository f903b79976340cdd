"""The recipe of README's "Adding a stage", done once: a document stage that drops documents shorter
than N characters, after decontaminate. Its module (here: the stage and its config model below), its
registry entry (`_ENTRY`, which a contributor writes into `STAGES` in engine/registry.py after
decontaminate's; here it is patched in), its drop reason's row in schemas/document.md and this test
are all it takes: the config section, the pipeline step, the fused pass, the gates over the final
corpus, the run record and the plan-time column check come from the entry."""

from __future__ import annotations

from unittest import mock

import pyarrow.parquet as pq
from pipeline_inputs import small_config, write_demo_warc
from stage_fixtures import final_corpus, stage_dir

from corpus_pipeline.config import Strict, pipeline_config_model
from corpus_pipeline.engine import registry
from corpus_pipeline.engine.registry import StageSpec
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline
from corpus_pipeline.pipeline.steps import pipeline_steps
from corpus_pipeline.stages.base import DocumentStage, Drop


class MinLengthConfig(Strict):
    min_chars: int = 200


class MinLengthStage(DocumentStage):
    name = "min-length"
    input_columns = ("text",)

    def __init__(self, config: MinLengthConfig | None = None):
        self.config = config or MinLengthConfig()

    def process(self, doc, stats):
        chars = len(doc["text"])
        return None if chars >= self.config.min_chars else Drop("too_short", f"{chars} < {self.config.min_chars}")


_ENTRY = StageSpec(
    "min-length",
    "document",
    "min_length",
    "min_length",
    f"{__name__}:MinLengthStage",
    "drop documents shorter than min_length.min_chars characters",
    config=f"{__name__}:MinLengthConfig",
    drop_reasons=("too_short",),
    reads=("text",),
)


def _no_session(*args, **kwargs):
    raise AssertionError("a SparkSession was asked for under --runner local")


def test_a_stage_added_after_decontaminate_runs_in_a_local_run_and_its_output_passes_the_gates(tmp_path, monkeypatch):
    at = registry.STAGES.index(registry.stage_spec("decontaminate")) + 1
    monkeypatch.setattr(registry, "STAGES", (*registry.STAGES[:at], _ENTRY, *registry.STAGES[at:]))
    monkeypatch.setattr(registry, "_BY_NAME", {**registry._BY_NAME, _ENTRY.name: _ENTRY})
    write_demo_warc(tmp_path / "incoming" / "site.warc.gz", seed=0)
    given = small_config(tmp_path, f"pipeline.inputs=[{tmp_path / 'incoming'}]", "dedup.methods=[url, exact, minhash]")
    # The config model has the new stage's section, as PipelineConfig has once the entry is in STAGES.
    raw = given.model_dump(mode="json") | {"min_length": {"min_chars": 1500}}
    config = pipeline_config_model(registry.STAGES).model_validate(raw)

    with mock.patch("corpus_pipeline.engine.exec.session.get_spark", _no_session):
        result = run_pipeline(RunPlan.from_config(config, "local"), steps=pipeline_steps(), log=lambda line: None)
    assert result.status == "succeeded", result.record.data["reason"]
    names = [step["step"] for step in result.record.data["steps"]]
    assert names.index("min-length") == names.index("decontaminate") + 1 < names.index("gates")
    steps = {step["step"]: step for step in result.record.data["steps"]}
    counted = steps["min-length"]["documents"]
    assert counted["dropped"]["too_short"] > 0 and counted["kept"] > 0
    assert steps["gates"]["passed"] and steps["gates"]["documents"] == counted["kept"]

    run_dir = result.context.run_dir
    assert final_corpus(run_dir) == stage_dir(run_dir, "min-length")
    # One pass with pii, quality and decontaminate: decontaminate's documents went on to min-length.
    assert not list(stage_dir(run_dir, "decontaminate").glob("part-*.parquet"))
    texts = pq.read_table(final_corpus(run_dir), columns=["text"]).column(0).to_pylist()
    assert len(texts) == counted["kept"] and min(map(len, texts)) >= 1500
    rejected = pq.read_table(stage_dir(run_dir, "min-length") / "_rejected", columns=["text"]).column(0)
    assert max(map(len, rejected.to_pylist())) < 1500
