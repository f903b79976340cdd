"""Semantic dedup (SemDeDup) on small synthetic vectors: clusters, pairs, the keep rule, the refusals;
and the stage's three paths (driver, Spark jobs, the local runner) writing the same bytes."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dedup_runs import assert_same_bytes, dedup_at_partitionings, run_dedup_without_spark

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.semantic import cluster_count, cluster_duplicates, cluster_labels
from corpus_pipeline.dedup.small_decisions import decision_order, semantic_duplicates
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.embeddings.vectors import EMBEDDED_SCHEMA, from_stored, to_stored
from corpus_pipeline.failures import RunRefused
from corpus_pipeline.pipeline.preflight import check_config

DIM = 16


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _near(base: np.ndarray, cosine: float, rng: np.random.Generator) -> np.ndarray:
    """A unit vector whose cosine to the unit vector `base` is `cosine`."""
    noise = rng.normal(size=base.shape)
    noise -= (noise @ base) * base
    noise /= np.linalg.norm(noise)
    return cosine * base + np.sqrt(1 - cosine**2) * noise


def _rows(vectors: dict[str, np.ndarray], model: str = "test-model", **columns) -> list[dict]:
    ids = sorted(vectors)
    stored = to_stored(np.array([vectors[i] for i in ids]))
    rows = [{"id": i, "embedding": v, "embedding_model": model} for i, v in zip(ids, stored, strict=True)]
    for name, values in columns.items():
        for row in rows:
            row[name] = values.get(row["id"])
    return rows


def _config(**semantic) -> PipelineConfig:
    return PipelineConfig.model_validate(
        {"embeddings": {"enabled": True}, "dedup": {"methods": ["semantic"], "semantic": semantic}}
    )


def _drops(rows: list[dict], config: PipelineConfig) -> dict[str, str]:
    order, _ = decision_order(config.dedup, [*rows[0]], with_index=False)
    found = semantic_duplicates(pa.Table.from_pylist(rows), config.dedup, order)
    return {doc_id: kept for doc_id, kept, _ in found}


def test_stored_vectors_come_back_as_float32_within_float16_precision():
    vectors = _unit(np.random.default_rng(0).normal(size=(5, DIM)))
    stored = to_stored(vectors)
    assert {len(value) for value in stored} == {2 * DIM}
    back = from_stored(stored)
    assert back.dtype == np.float32 and np.abs(back - vectors).max() < 1e-3
    with pytest.raises(ValueError, match="different sizes"):
        from_stored([stored[0], stored[1][:-2]])


def test_cluster_count_is_documents_over_cluster_size_at_least_one():
    assert [cluster_count(n, 1000) for n in (1, 999, 1000, 1001, 10_000)] == [1, 1, 1, 2, 10]
    assert cluster_count(3, 2) == 2


def test_kmeans_separates_two_topics_and_is_the_same_on_every_call():
    rng = np.random.default_rng(1)
    centres = _unit(rng.normal(size=(2, DIM)))
    vectors = np.array([_near(centres[i % 2], 0.95, rng) for i in range(40)], dtype=np.float32)
    labels = cluster_labels(vectors, 2, seed=7, fit_sample=1000)
    assert len(set(labels[0::2])) == 1 and len(set(labels[1::2])) == 1 and labels[0] != labels[1]
    np.testing.assert_array_equal(labels, cluster_labels(vectors, 2, seed=7, fit_sample=1000))
    sampled = cluster_labels(vectors, 2, seed=7, fit_sample=10)  # fitted on a seeded sample of 10
    assert len(set(sampled[0::2])) == 1 and sampled[0] != sampled[1]


def test_a_row_goes_for_the_nearest_kept_row_before_it_in_its_cluster_only():
    rng = np.random.default_rng(2)
    base = _unit(rng.normal(size=(1, DIM)))[0]
    vectors = np.array([base, _near(base, 0.97, rng), _near(base, 0.5, rng), base], dtype=np.float32)
    # 1 and 3 go for 0 (3 is nearer 0 than 1, and 1 was not kept); 2 is too far from 0 and stays.
    assert cluster_duplicates(vectors, np.zeros(4, dtype=np.int64), 0.9) == [(1, 0), (3, 0)]
    # The same vectors in two clusters: a row is never compared across them.
    assert cluster_duplicates(vectors, np.array([0, 0, 0, 1]), 0.9) == [(1, 0)]
    # Blocks of rows give the same answer as one block.
    blocked = np.repeat(vectors, 600, axis=0)
    assert len(cluster_duplicates(blocked, np.zeros(len(blocked), dtype=np.int64), 0.9)) == len(blocked) - 2


def test_a_paraphrase_goes_and_the_keep_rule_picks_the_copy_kept():
    rng = np.random.default_rng(3)
    topics = _unit(rng.normal(size=(3, DIM)))
    vectors = {"a": topics[0], "b": _near(topics[0], 0.96, rng), "c": topics[1], "d": topics[2]}
    assert _drops(_rows(vectors), _config(threshold=0.9)) == {"b": "a"}  # smallest id, without other keys
    earlier = _rows(vectors, date={"a": "2024-05-01", "b": "2023-01-01"})
    assert _drops(earlier, _config(threshold=0.9)) == {"a": "b"}  # the earliest fetch stays
    assert _drops(_rows(vectors), _config(threshold=0.99)) == {}


def test_a_document_near_only_a_dropped_one_stays():
    rng = np.random.default_rng(4)
    a = _unit(rng.normal(size=(1, DIM)))[0]
    b = _near(a, 0.92, rng)
    c = _near(b, 0.92, rng)  # a ~ b ~ c, and a . c about 0.7
    assert float(a @ c) < 0.9
    assert _drops(_rows({"a": a, "b": b, "c": c}), _config(threshold=0.9)) == {"b": "a"}


def test_rows_without_a_vector_take_no_part_and_two_models_are_refused():
    rng = np.random.default_rng(5)
    a = _unit(rng.normal(size=(1, DIM)))[0]
    rows = [*_rows({"a": a, "b": a}), {"id": "c", "embedding": None, "embedding_model": None}]
    assert _drops(rows, _config()) == {"b": "a"}
    mixed = _rows({"a": a}) + _rows({"b": a}, model="other-model")
    with pytest.raises(ValueError, match="several models"):
        _drops(mixed, _config())
    with pytest.raises(ValueError, match="max_documents"):
        _drops(_rows({"a": a, "b": a}), _config(max_documents=1))


def test_a_run_with_semantic_dedup_and_no_embed_stage_is_refused_before_the_first_step():
    config = PipelineConfig.model_validate({"dedup": {"methods": ["exact", "semantic"]}})
    with pytest.raises(RunRefused, match="embeddings.enabled"):
        check_config(config)
    check_config(config.model_copy(update={"embeddings": config.embeddings.model_copy(update={"enabled": True})}))


def test_the_stage_refuses_an_input_without_embeddings(tmp_path):
    source = write_documents_stage([{"id": "a", "text": "one"}, {"id": "b", "text": "two"}], tmp_path / "in")
    with pytest.raises(ValueError, match="run the embed stage first"):
        run_dedup_without_spark(source, tmp_path / "out", _config())


def _planted_documents() -> list[dict]:
    """40 documents on 40 topics, and 10 of them with a paraphrase (cosine 0.99), stored as the
    embed stage stores them; one text without a vector. The topics are random directions, so a
    cluster boundary may fall anywhere between them: a looser paraphrase (0.95) can land in the
    next cluster, SemDeDup's known miss, which this set is not about."""
    rng = np.random.default_rng(6)
    topics = _unit(rng.normal(size=(40, DIM)))
    vectors = {f"doc{i:02d}": topics[i] for i in range(40)}
    vectors |= {f"doc{i:02d}-para": _near(topics[i], 0.99, rng) for i in range(0, 40, 4)}
    docs = [{**row, "text": f"text of {row['id']}", "url": None} for row in _rows(vectors)]
    return [*docs, {"id": "empty", "text": " ", "url": None, "embedding": None, "embedding_model": None}]


def test_the_stage_drops_the_paraphrases_with_their_own_reason(tmp_path):
    source = write_documents_stage(_planted_documents(), tmp_path / "in", parts=3, schema=EMBEDDED_SCHEMA)
    result = run_dedup_without_spark(source, tmp_path / "out", _config(threshold=0.9, cluster_size=8))
    rejected = pq.read_table(tmp_path / "out" / "_rejected" / "reason=semantic_duplicate").to_pylist()
    assert {(row["id"], row["reject_detail"]) for row in rejected} == {
        (f"doc{i:02d}-para", f"doc{i:02d}") for i in range(0, 40, 4)
    }
    stats = json.loads((result.output / "_stats.json").read_text())
    assert stats["kept"] == 41 and stats["dropped"] == {"semantic_duplicate": 10}


@pytest.mark.spark
def test_driver_spark_jobs_and_local_runner_write_the_same_bytes(spark, tmp_path):
    config = PipelineConfig.model_validate(
        {
            "embeddings": {"enabled": True},
            "dedup": {"methods": ["exact", "semantic"], "semantic": {"cluster_size": 8}, "output_parts": 3},
        }
    )
    outputs = dedup_at_partitionings(spark, _planted_documents(), config, tmp_path, schema=EMBEDDED_SCHEMA)
    assert_same_bytes(outputs)
    assert len(list((outputs[0] / "_rejected" / "reason=semantic_duplicate").glob("*.parquet"))) >= 1


_ARTICLES = (
    "The city council approved a new budget on Monday. Schools will get more money for teachers. "
    "Parks and libraries keep their funding. The mayor said the plan was fair to every district.",
    "Heavy rain flooded the river valley overnight. Two roads were closed near the old bridge. "
    "Farmers moved their animals to higher ground. The water is expected to fall by the weekend.",
    "A local bakery won a national prize for its bread. The owners began baking in a small kitchen. "
    "They now employ twelve people in the town. Customers often wait in line before the shop opens.",
    "Scientists found a new species of frog in the mountains. It is smaller than a coin. "
    "The frog lives in wet moss under the trees. Researchers want to protect its forest from logging.",
    "The football club signed a young striker from abroad. He scored many goals in his first season. "
    "Fans hope he can help the team win the league. The transfer fee was not made public.",
    "A new train line will connect the two largest cities. Journeys will take half as long as today. "
    "Construction starts next spring and should end in four years. Tickets are expected to be cheap.",
)


@pytest.mark.slow
def test_real_embeddings_of_planted_paraphrases_are_dropped_for_their_originals(tmp_path):
    from corpus_pipeline.dedup.paraphrase import plant_paraphrases
    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.stage_runner import run_stage

    docs = [{"id": f"article{i}", "text": text} for i, text in enumerate(_ARTICLES)]
    planted = plant_paraphrases(docs, seed=1, share=1.0)
    assert {p.kind for p in planted} == {"reorder", "drop", "synonyms", "all"}
    source = write_documents_stage(docs + [p.copy for p in planted], tmp_path / "in", parts=2)
    config = _config()
    config = config.model_copy(update={"embeddings": config.embeddings.model_copy(update={"device": "cpu"})})
    embedded = run_stage("embed", source, tmp_path / "embed", config, LocalExecutor(config.spark)).output
    run_dedup_without_spark(embedded, tmp_path / "dedup", config)
    rejected = pq.read_table(tmp_path / "dedup" / "_rejected" / "reason=semantic_duplicate").to_pylist()
    dropped = {(row["id"], row["reject_detail"]) for row in rejected}
    # Only paraphrases go, each for its original (the smaller id: article3 < article3#drop)...
    assert dropped <= {(p.copy["id"], p.original_id) for p in planted}
    # ...and those of the whole text in another order or other words always do: these texts fit
    # in the model's 256 word pieces. A dropped sentence of four (drop, all) may take the cosine
    # under 0.9 (benchmarks/bench_semantic_dedup.py has the rates on real pages).
    found = {p.kind for p in planted if (p.copy["id"], p.original_id) in dropped}
    assert {"reorder", "synonyms"} <= found
