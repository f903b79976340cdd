"""The embed stage: what it writes into a row, its opt-in place in a run, and (slow) the real model
through the local runner."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.embeddings.config import EmbeddingsConfig
from corpus_pipeline.embeddings.stage import EmbeddingsStage
from corpus_pipeline.embeddings.vectors import from_stored
from corpus_pipeline.engine.stage_order import fused_run, opted_out
from corpus_pipeline.pipeline.context import RunContext, RunPlan
from corpus_pipeline.pipeline.document_steps import document_step
from corpus_pipeline.stats import StageStats


class _CountingEncoder:
    """Row i of a call is the unit vector along axis (length of text i) mod 8; records its calls."""

    dim = 8

    def __init__(self):
        self.calls: list[tuple[list[str], int]] = []

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        self.calls.append((list(texts), batch_size))
        return np.eye(self.dim, dtype=np.float32)[[len(text) % self.dim for text in texts]]


def _stage(**config) -> tuple[EmbeddingsStage, _CountingEncoder]:
    stage = EmbeddingsStage(EmbeddingsConfig(**config))
    stage._encoder = _CountingEncoder()
    return stage, stage._encoder


def test_a_batch_is_one_encode_call_and_an_empty_text_gets_no_vector():
    stage, encoder = _stage(batch_size=16)
    docs = [{"text": "abc"}, {"text": "  \n"}, {"text": "abcde"}, {"text": ""}]
    stats = StageStats("embed")
    assert stage.process_batch(docs, stats) == [None] * 4
    assert encoder.calls == [(["abc", "abcde"], 16)]
    assert [doc["embedding_model"] for doc in docs] == ["all-MiniLM-L6-v2", None, "all-MiniLM-L6-v2", None]
    assert docs[1]["embedding"] is None and docs[3]["embedding"] is None
    vectors = from_stored([docs[0]["embedding"], docs[2]["embedding"]])
    np.testing.assert_array_equal(vectors.argmax(axis=1), [3, 5])
    assert len(docs[0]["embedding"]) == 2 * encoder.dim  # float16
    assert stats.extra["embedded"] == {"all-MiniLM-L6-v2": 2, "no_text": 2}


def test_the_fingerprint_is_the_model_and_the_cut_not_how_fast():
    assert EmbeddingsStage(EmbeddingsConfig(batch_size=8, device="cpu")).config_fingerprint() == (
        EmbeddingsStage(EmbeddingsConfig(batch_size=256, device="cuda", enabled=True)).config_fingerprint()
    )
    assert EmbeddingsStage(EmbeddingsConfig(max_tokens=128)).config_fingerprint() != (
        EmbeddingsStage(EmbeddingsConfig()).config_fingerprint()
    )


def test_a_run_leaves_the_stage_out_unless_enabled():
    off = PipelineConfig()
    on = PipelineConfig.model_validate({"embeddings": {"enabled": True}})
    assert opted_out(off) == ("embed",) and opted_out(on) == ()
    assert [spec.name for spec in fused_run("langid")] == ["langid", "normalize", "embed"]
    assert "embed" in RunPlan.from_config(off, "local").skip
    assert "embed" not in RunPlan.from_config(on, "local").skip
    outcome = document_step("embed")(RunContext(RunPlan.from_config(off, "local")))
    assert outcome.status == "not needed" and outcome.notes["why"] == "opt-in: embeddings.enabled is false"


def test_a_source_enables_it_for_its_own_documents():
    config = PipelineConfig.model_validate(
        {
            "pipeline": {
                "sources": [
                    {"name": "web", "kind": "jsonl", "paths": ["a.jsonl"]},
                    {"name": "wiki", "kind": "jsonl", "paths": ["b.jsonl"], "overrides": ["embeddings.enabled=true"]},
                ]
            }
        }
    )
    plan = RunPlan.from_config(config, "local")
    web, wiki = (plan.for_source(source) for source in config.pipeline.sources)
    assert "embed" in web.skip and "embed" not in wiki.skip


@pytest.mark.slow
def test_the_stage_embeds_real_documents_under_the_local_runner(tmp_path):
    from corpus_pipeline.dedup.staging import write_documents_stage
    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.stage_runner import run_stage

    texts = [
        "The city council approved the new budget for schools on Monday.",
        "On Monday the council of the city passed its new school budget.",
        "Heavy rain flooded the river valley and closed two roads.",
        "",
    ]
    source = write_documents_stage([{"id": f"d{i}", "text": t} for i, t in enumerate(texts)], tmp_path / "in")
    config = PipelineConfig.model_validate({"embeddings": {"enabled": True, "device": "cpu", "batch_size": 2}})
    result = run_stage("embed", source, tmp_path / "embed", config, LocalExecutor(config.spark))
    rows = sorted(pq.read_table(list(result.output.glob("part-*.parquet"))).to_pylist(), key=lambda r: r["id"])
    assert [row["text"] for row in rows] == texts  # the kept text is untouched
    assert rows[3]["embedding"] is None
    vectors = from_stored([row["embedding"] for row in rows[:3]])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=2e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    stats = json.loads((result.output / "_stats.json").read_text())
    assert stats["kept"] == 4 and stats["extra"]["embedded"] == {"all-MiniLM-L6-v2": 3, "no_text": 1}
