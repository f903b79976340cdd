"""quality.score_head: the embedding head's `quality_score`, opt-in, batched per task, usable by a
keep rule and by mix's tier weights. The encoder is a stand-in (tests/fake_encoder.py):
the real model's run is tests/embeddings/test_quality_head_model.py (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from fake_encoder import FakeEncoder

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import empty_document
from corpus_pipeline.embeddings.quality_head import fit_head, save_head
from corpus_pipeline.embeddings.quality_score import QualityScorer
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.mix.encode_part import tier_weights
from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.stage import HEAD_SIGNAL, QualityStage
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stats import StageStats

BODY = (
    " of the council voted on Tuesday to expand the public library and to extend its opening hours. Members "
    "said that the branch had been overcrowded for years, and that students with nowhere else to study had "
    "filled the reading rooms every evening.\nThe plan was approved by seven votes to two, after a debate "
    "that lasted most of the afternoon and ended with a promise to review the costs next year."
)


@pytest.fixture()
def head_file(tmp_path) -> Path:
    """A head on the fake encoder's vectors: texts starting "Science" are reference, "Casino" web."""
    encoder = FakeEncoder()
    texts = [f"Science{BODY} {n}" for n in range(20)] + [f"Casino{BODY} {n}" for n in range(20)]
    path = tmp_path / "head.npz"
    save_head(fit_head(encoder.encode(texts), np.array([1] * 20 + [0] * 20), encoder.name), path)
    return path


@pytest.fixture()
def fake_model(monkeypatch):
    """QualityScorer.load with the fake encoder in place of the model."""
    from corpus_pipeline.embeddings.quality_head import load_head

    def load(cls, head_path, device="auto", batch_size=32):
        return cls(load_head(head_path), FakeEncoder(), batch_size)

    monkeypatch.setattr(QualityScorer, "load", classmethod(load))


def documents() -> list[dict]:
    topics = ["Science", "Casino"] * 5
    return [empty_document(id=f"d{n}", text=f"{t}{BODY}", language="en") for n, t in enumerate(topics)]


def test_off_by_default_the_column_is_null_and_no_model_is_loaded():
    stage = QualityStage()
    stage.setup()
    assert stage._scorer is None
    docs = documents()
    stage.process_batch(docs, StageStats("quality"))
    assert all(doc[HEAD_SIGNAL] is None for doc in docs)
    assert HEAD_SIGNAL in {field.name for field in stage.output_fields}


def test_the_head_file_is_part_of_the_fingerprint(head_file, tmp_path):
    on = QualityConfig.model_validate({"score_head": {"enabled": True, "path": str(head_file)}})
    before = QualityStage(on).config_fingerprint()
    assert before != QualityStage().config_fingerprint()
    save_head(fit_head(np.eye(16, dtype=np.float32), np.array([1, 0] * 8), "all-MiniLM-L6-v2"), head_file)
    assert QualityStage(on).config_fingerprint() != before  # a retrained head reruns the stage


def test_scores_come_batched_and_a_keep_rule_reads_them(head_file, fake_model):
    config = QualityConfig.model_validate({
        "score_head": {"enabled": True, "path": str(head_file)},
        "rules": {"quality_score": {"signal": "quality_score", "min": 0.5}},
    })  # fmt: skip
    stage = QualityStage(config)
    stage.setup()
    docs = documents()
    verdicts = stage.process_batch(docs, StageStats("quality"))
    assert len(stage._scorer.encoder.calls) == 1  # one encoder call for the batch
    scores = [doc[HEAD_SIGNAL] for doc in docs]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert all(s > 0.8 for s in scores[::2]) and all(s < 0.2 for s in scores[1::2])
    assert [v is None for v in verdicts] == [True, False] * 5
    assert {v.reason for v in verdicts if v is not None} == {"quality_score"}


def test_the_stage_column_feeds_mix_tier_weights(head_file, fake_model, tmp_path):
    config = PipelineConfig.model_validate({
        "quality": {"score_head": {"enabled": True, "path": str(head_file)}},
        "mix": {"quality_tiers": {"column": "quality_score", "tiers": [{"min": 0.8, "weight": 1.5}]}},
    })  # fmt: skip
    source = publish_rows(tmp_path / "docs", [documents()], stage="fixture")
    result = run_stage("quality", source, tmp_path / "quality", config, LocalExecutor())
    table = pq.read_table(sorted(result.output.glob("part-*.parquet")))
    weights = tier_weights(table.column("quality_score"), config.mix.weight_columns()["quality_score"])
    topics = [text.split()[0] for text in table.column("text").to_pylist()]
    assert [w for w, t in zip(weights, topics, strict=True) if t == "Science"] == [1.5] * 5
    assert [w for w, t in zip(weights, topics, strict=True) if t == "Casino"] == [1.0] * 5
