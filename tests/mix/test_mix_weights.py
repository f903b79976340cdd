"""Fractional tier weights: ×1.5 repeats a tier's documents 1.5 times in expectation, chosen by a
seeded hash of the id, the same on every run; whole weights behave (and fingerprint) as before."""

from __future__ import annotations

import mix_fixtures
import numpy as np
import pyarrow as pa
import pytest
from mix_fixtures import labelled_documents, mix_config, read_output, write_labelled
from pydantic import ValidationError

from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.mix.config import MixConfig
from corpus_pipeline.mix.encode_part import tier_weights, whole_copies
from corpus_pipeline.stage_runner import run_stage

tokenizer_path = mix_fixtures.tokenizer_path


def ids(n: int) -> pa.Array:
    return pa.array([f"doc-{i}" for i in range(n)])


def test_fractional_weight_is_its_expectation_and_deterministic_by_seed_and_id():
    weights = np.full(20_000, 1.5)
    copies = whole_copies(weights, ids(20_000), seed=7)
    assert set(np.unique(copies)) == {1, 2}
    assert abs(copies.mean() - 1.5) < 0.02  # binomial sd of the mean: 0.0035
    assert np.array_equal(copies, whole_copies(weights, ids(20_000), seed=7))
    other = whole_copies(weights, ids(20_000), seed=8)
    assert not np.array_equal(copies, other) and abs(other.mean() - 1.5) < 0.02
    # A document's copies depend on its id alone, not on the batch it is read in.
    assert np.array_equal(copies[5_000:6_000], whole_copies(weights[5_000:6_000], ids(20_000)[5_000:6_000], seed=7))
    quarter = whole_copies(np.full(20_000, 2.25), ids(20_000), seed=7)
    assert set(np.unique(quarter)) == {2, 3} and abs(quarter.mean() - 2.25) < 0.02


def test_whole_weights_give_exactly_that_many_copies():
    weights = tier_weights(pa.array([0.9, 0.1, None, 0.95]), ((0.8, None, 3),))
    assert whole_copies(weights, ids(4), seed=0).tolist() == [3, 1, 1, 3]


def test_tier_weights_accept_fractions_of_at_least_one_and_keep_whole_ones_whole():
    config = MixConfig(quality_tiers={"column": "q", "tiers": [{"min": 3, "weight": 1.5}, {"min": 2, "weight": 2}]})
    assert config.weight_columns() == {"q": ((3, None, 1.5), (2, None, 2))}
    assert isinstance(config.weight_columns()["q"][1][2], int)  # same fingerprint as before
    for bad in (0.5, 0, float("inf")):
        with pytest.raises(ValidationError):
            MixConfig(rehydration=[{"min": 2, "weight": bad}])


def test_mix_repeats_a_fractional_tier_in_expectation(tmp_path, tokenizer_path):
    docs = labelled_documents()
    corpus = write_labelled(tmp_path / "docs", docs)
    tiers = {"column": "quality_score", "tiers": [{"min": 0.8, "weight": 1.5}]}
    runs = []
    for name in ("a", "b"):
        config = mix_config(quality_tiers=tiers)
        result = run_stage("mix", corpus, tmp_path / name, config, LocalExecutor(), tokenizer=tokenizer_path)
        documents, _, _ = read_output(result.output)
        values, counts = np.unique(documents.column("id").to_numpy(zero_copy_only=False), return_counts=True)
        runs.append(dict(zip(values.tolist(), counts.tolist(), strict=True)))
    assert runs[0] == runs[1]  # the same documents get the second copy on a rerun
    top = [doc["id"] for number, doc in enumerate(docs) if number % 4 == 0]
    rest = [doc["id"] for number, doc in enumerate(docs) if number % 4]
    assert all(runs[0][i] == 1 for i in rest)
    top_copies = [runs[0][i] for i in top]
    assert set(top_copies) == {1, 2}  # 25 top documents: all-ones or all-twos has odds 2 * 0.5^25
