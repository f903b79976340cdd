"""The embedding quality head: fitting, measuring, its files, training from sources, scoring."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fake_encoder import DIM, FakeEncoder

from corpus_pipeline.embeddings.head_sources import REFERENCE, WEB, HeadSource
from corpus_pipeline.embeddings.head_training import HeadTraining, train_head
from corpus_pipeline.embeddings.quality_head import (
    SHIPPED_HEAD,
    HeadFileError,
    accuracy,
    balanced_weights,
    fit_head,
    load_head,
    roc_auc,
    save_head,
    sidecar_path,
)
from corpus_pipeline.embeddings.quality_score import QualityScorer


def two_topics(n_positive: int, n_negative: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around two directions of cosine ~0.3, labels 1 and 0."""
    rng = np.random.default_rng(seed)
    a, b = np.eye(DIM)[0], 0.3 * np.eye(DIM)[0] + np.sqrt(1 - 0.09) * np.eye(DIM)[1]
    rows = np.vstack([a + 0.3 * rng.normal(size=(n_positive, DIM)), b + 0.3 * rng.normal(size=(n_negative, DIM))])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32), np.array([1] * n_positive + [0] * n_negative)


def test_a_head_separates_two_topics_it_did_not_see():
    x, y = two_topics(200, 200)
    head = fit_head(x, y, "all-MiniLM-L6-v2")
    test_x, test_y = two_topics(100, 100, seed=1)
    scores = head.probabilities(test_x)
    assert scores.dtype == np.float32 and scores.min() >= 0.0 and scores.max() <= 1.0
    assert accuracy(scores, test_y) >= 0.95
    assert roc_auc(scores, test_y) >= 0.99


def test_classes_weigh_alike_whatever_their_counts():
    # 1 reference vector to 9 web ones: unweighted, the boundary would slide toward the reference
    # topic and reference texts would score under 0.5; weighted, both classes stay on their side.
    x, y = two_topics(40, 360)
    head = fit_head(x, y, "m")
    test_x, test_y = two_topics(100, 100, seed=2)
    scores = head.probabilities(test_x)
    assert np.mean(scores[test_y == 1] >= 0.5) >= 0.95 and np.mean(scores[test_y == 0] < 0.5) >= 0.95


def test_each_source_weighs_the_same_within_its_class():
    labels = np.array([1] * 10 + [1] * 90 + [0] * 50)
    sources = np.array([0] * 10 + [1] * 90 + [2] * 50)
    weights = balanced_weights(labels, sources)
    assert weights[labels == 1].sum() == pytest.approx(75) and weights[labels == 0].sum() == pytest.approx(75)
    assert weights[sources == 0].sum() == pytest.approx(weights[sources == 1].sum())
    assert len(set(np.round(weights[labels == 1], 9))) == 2  # within a source, every row alike


def test_scores_stay_in_range_for_extreme_inputs():
    x, y = two_topics(50, 50)
    head = fit_head(x, y, "m")
    far = np.vstack([1e4 * np.eye(DIM)[0], -1e4 * np.eye(DIM)[0]]).astype(np.float32)
    with np.errstate(all="raise"):
        scores = head.probabilities(far)
    assert scores[0] == pytest.approx(1.0) and scores[1] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="16 dimensions"):
        head.probabilities(np.zeros((2, 3), np.float32))


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="both classes"):
        fit_head(np.eye(4, dtype=np.float32), np.ones(4), "m")


def test_auc_counts_ties_half_and_order_only():
    assert roc_auc(np.array([0.9, 0.8, 0.1, 0.2]), np.array([1, 1, 0, 0])) == 1.0
    assert roc_auc(np.array([0.1, 0.2, 0.9, 0.8]), np.array([1, 1, 0, 0])) == 0.0
    assert roc_auc(np.array([0.5, 0.5, 0.5, 0.5]), np.array([1, 0, 1, 0])) == 0.5
    assert roc_auc(np.array([0.9, 0.5, 0.5, 0.1]), np.array([1, 1, 0, 0])) == pytest.approx(0.875)


def test_a_saved_head_loads_back_the_same(tmp_path):
    x, y = two_topics(30, 30)
    head = fit_head(x, y, "all-MiniLM-L6-v2", text_chars=123)
    head.card = {"seed": 7, "sources": [{"name": "s", "licence": "MIT"}]}
    path = tmp_path / "head.npz"
    save_head(head, path)
    loaded = load_head(path)
    np.testing.assert_array_equal(loaded.probabilities(x), head.probabilities(x))
    assert (loaded.encoder, loaded.text_chars, loaded.card) == ("all-MiniLM-L6-v2", 123, head.card)
    # No temporary left; each file has its note of what we wrote (storage/owned_files.py).
    names = ["head.json", "head.npz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names + [f".{n}.corpus-pipeline.json" for n in names])


def test_a_head_without_its_sidecar_or_of_another_size_is_refused(tmp_path):
    x, y = two_topics(10, 10)
    path = tmp_path / "head.npz"
    save_head(fit_head(x, y, "m"), path)
    card = json.loads(sidecar_path(path).read_text())
    sidecar_path(path).write_text(json.dumps({**card, "dim": 3}))
    with pytest.raises(HeadFileError, match="dim 3"):
        load_head(path)
    sidecar_path(path).unlink()
    with pytest.raises(HeadFileError, match="no sidecar"):
        load_head(path)
    with pytest.raises(HeadFileError, match="not found"):
        load_head(tmp_path / "none.npz")


def test_the_shipped_head_names_its_sources_licences_and_held_out_figures():
    head = load_head(SHIPPED_HEAD)
    assert head.encoder == "all-MiniLM-L6-v2" and head.dim == 384
    sources = head.card["sources"]
    assert {s["role"] for s in sources} == {REFERENCE, WEB}
    assert all(s["licence"] and s["documents"] > 0 for s in sources)
    assert head.card["heldout_auc"] > 0.9 and head.card["seed"] == 0


def topic_source(name: str, role: str, topic: str, count: int) -> HeadSource:
    texts = [f"{topic} " + "words " * 50 + f"number {n}" for n in range(count)]
    return HeadSource(name, role, f"{name}.txt", "CC0", lambda: iter(texts))


def test_training_from_sources_measures_each_source_and_writes_the_card(tmp_path):
    sources = [
        topic_source("encyclopedia", REFERENCE, "science", 60),
        topic_source("news", REFERENCE, "politics", 30),
        topic_source("spam", WEB, "casino", 80),
        topic_source("short", WEB, "tiny", 0),
    ]
    with pytest.raises(ValueError, match="short"):
        train_head(sources, tmp_path / "h.npz", FakeEncoder(), log=lambda _: None)
    encoder = FakeEncoder()
    card = train_head(sources[:3], tmp_path / "h.npz", encoder, HeadTraining(max_per_source=50, text_chars=40),
                      log=lambda _: None)  # fmt: skip
    assert [s["documents"] for s in card["sources"]] == [50, 30, 50]
    assert [s["available"] for s in card["sources"]] == [60, 30, 80]
    assert card["train_examples"] + card["heldout_examples"] == 130 and card["heldout_examples"] == 26
    assert set(card["heldout_accuracy_by_source"]) == {"encyclopedia", "news", "spam"}
    assert card["heldout_accuracy"] == 1.0 and card["heldout_auc"] == 1.0
    assert all(len(text) <= 40 for text in encoder.calls[0])  # trained on the cut it will score
    assert load_head(tmp_path / "h.npz").card["sources"] == card["sources"]
    with pytest.raises(ValueError, match="reference sources and web sources"):
        train_head(sources[:2], tmp_path / "g.npz", encoder, log=lambda _: None)


def test_a_scorer_cuts_texts_and_refuses_a_head_of_another_encoder():
    x, y = two_topics(20, 20)
    head = fit_head(x, y, "all-MiniLM-L6-v2", text_chars=10)
    encoder = FakeEncoder()
    scores = QualityScorer(head, encoder).scores(["science " * 20, "casino"])
    assert scores.shape == (2,) and scores.dtype == np.float32
    assert encoder.calls == [["science sc", "casino"]]
    assert QualityScorer(head, encoder).scores([]).shape == (0,)
    head.encoder = "another-model"
    with pytest.raises(HeadFileError, match="another-model"):
        QualityScorer(head, encoder)
