"""Diversity in the report: topic clusters per language/domain group, their shares and coverage,
and their drift against the previous snapshot; off by default, and said so."""

from __future__ import annotations

import numpy as np
import pytest
from fake_encoder import FakeEncoder
from report_run_fixture import config, report_run  # noqa: F401 (a fixture)

from corpus_pipeline.config import DiversityConfig
from corpus_pipeline.document import empty_document
from corpus_pipeline.embeddings.kmeans import kmeans, normalized_entropy
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.report.diversity import CHECK_NAME, group_diversity, sample_groups, share_drift
from corpus_pipeline.report.run_dir import read_stage
from corpus_pipeline.report.write import write_report


def with_diversity(diversity: DiversityConfig):
    base = config()
    return base.model_copy(update={"report": base.report.model_copy(update={"diversity": diversity})})


def planted(counts: list[int], seed: int = 0, noise: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around len(counts) orthogonal directions, counts[i] of cluster i."""
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(len(counts)), counts)
    rows = np.eye(16)[truth] + noise * rng.normal(size=(len(truth), 16)) / 4
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32), truth


def test_kmeans_finds_planted_clusters_and_their_shares():
    vectors, truth = planted([100, 60, 40])
    clusters = kmeans(vectors, 3, seed=0)
    for planted_cluster in range(3):  # each planted cluster lands whole in one found cluster
        assert len(set(clusters.assignment[truth == planted_cluster])) == 1
    assert sorted(clusters.shares().tolist()) == pytest.approx([0.2, 0.3, 0.5])
    np.testing.assert_allclose(np.linalg.norm(clusters.centroids, axis=1), 1.0, rtol=1e-5)
    again = kmeans(vectors, 3, seed=0)
    assert np.array_equal(again.assignment, clusters.assignment)
    assert kmeans(vectors[:2], 8).k == 2  # k capped at the rows there are


def test_coverage_is_the_normalized_entropy_of_the_shares():
    assert normalized_entropy(np.full(8, 1 / 8)) == pytest.approx(1.0)
    assert normalized_entropy(np.array([1.0, 0, 0, 0])) == 0.0
    assert normalized_entropy(np.array([0.5, 0.5, 0, 0])) == pytest.approx(0.5)
    even, _ = planted([50, 50, 50, 50])
    skewed, _ = planted([185, 5, 5, 5])
    cover = [group_diversity("en/web", 200, ["t"] * 200, v, 4, 0, str).coverage for v in (even, skewed)]
    assert cover[0] > 0.99 and cover[1] < 0.4


def test_drift_counts_the_previous_sample_in_this_snapshots_clusters():
    current_vectors, _ = planted([100, 100])
    texts = [f"doc {n}" for n in range(200)]
    current = group_diversity("en/web", 200, texts, current_vectors, 2, 0, str)
    same = share_drift(current, planted([100, 100], seed=5)[0])
    assert max(abs(c.change) for c in same) < 0.01
    moved, _ = planted([160, 40], seed=6)
    changes = share_drift(current, moved)
    assert sorted(round(abs(c.change), 2) for c in changes) == [0.3, 0.3]
    assert all(c.key.startswith("en/web #") for c in changes)


def test_the_sample_is_seeded_by_id_per_group_whatever_the_order(tmp_path):
    docs = [
        empty_document(id=f"en{n}", text=f"{n:02d} english text of fifty, cut here", language="en", domain="web")
        for n in range(50)
    ]
    docs += [empty_document(id=f"zh{n}", text=f"chinese {n}", language="zh", domain="news") for n in range(5)]
    settings = DiversityConfig(enabled=True, sample_per_group=10, text_chars=20)
    forward = read_stage(publish_rows(tmp_path / "a", [docs[:20], docs[20:]], stage="fixture"), "fixture")
    backward = read_stage(publish_rows(tmp_path / "b", [docs[::-1]], stage="fixture"), "fixture")
    samples, counts = sample_groups(forward, settings)
    assert counts == {"en/web": 50, "zh/news": 5}
    assert len(samples["en/web"]) == 10 and len(samples["zh/news"]) == 5
    assert all(len(text) <= 20 for text in samples["en/web"])
    assert sample_groups(backward, settings)[0] == samples
    other_seed = sample_groups(forward, DiversityConfig(sample_per_group=10, text_chars=20, seed=1))[0]
    assert set(other_seed["en/web"]) != set(samples["en/web"])


def test_off_by_default_the_report_says_why(report_run, tmp_path):  # noqa: F811
    result = write_report(report_run, config(), previous=report_run, output=tmp_path / "r.html")
    assert result.figures.diversity is None
    page = result.path.read_text(encoding="utf-8")
    assert page.count("report.diversity.enabled is false") == 2  # the section and the drift table
    assert CHECK_NAME not in {check.name for check in result.figures.drift}


def test_on_it_clusters_each_group_and_drifts_next_to_the_other_alerts(report_run, tmp_path, monkeypatch):  # noqa: F811
    import corpus_pipeline.embeddings.encoder as encoder_module

    monkeypatch.setattr(encoder_module, "load_encoder", lambda name, device: FakeEncoder())
    settings = with_diversity(DiversityConfig(enabled=True, clusters=4, min_documents=5))
    result = write_report(report_run, settings, previous=report_run, output=tmp_path / "r.html")
    diversity = result.figures.diversity
    assert diversity.groups and all(0.0 <= g.coverage <= 1.0 for g in diversity.groups)
    assert all(sum(c.share for c in g.clusters) == pytest.approx(1.0) for g in diversity.groups)
    assert {g.group.split("/")[0] for g in diversity.groups} >= {"en"}
    drift = {check.name: check for check in result.figures.drift}
    assert drift[CHECK_NAME].value == 0.0 and not drift[CHECK_NAME].alert  # against itself
    page = result.path.read_text(encoding="utf-8")
    assert "clusters by share" in page and "coverage" in page and CHECK_NAME in page


def test_an_encoder_that_does_not_load_is_the_reason_shown(report_run, tmp_path, monkeypatch):  # noqa: F811
    import corpus_pipeline.embeddings.encoder as encoder_module

    def unavailable(name, device):
        raise encoder_module.EncoderUnavailable("embeddings need sentence-transformers: pip install ...")

    monkeypatch.setattr(encoder_module, "load_encoder", unavailable)
    settings = with_diversity(DiversityConfig(enabled=True))
    result = write_report(report_run, settings, output=tmp_path / "r.html")
    assert result.figures.diversity is None
    assert "not measured: embeddings need sentence-transformers" in result.path.read_text(encoding="utf-8")
