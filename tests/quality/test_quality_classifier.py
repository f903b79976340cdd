"""The fastText quality classifier: our trainer's files are fastText models, training end to end,
and the score as a signal of the stage."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from quality_junk_corpus import junk_documents

from corpus_pipeline.document import empty_document
from corpus_pipeline.fasttext_models import classifier_tokens, load_model
from corpus_pipeline.kept_texts import read_kept_texts
from corpus_pipeline.quality.classifier import QualityClassifier
from corpus_pipeline.quality.classifier_training import train_classifier
from corpus_pipeline.quality.config import QualityClassifierConfig, QualityConfig
from corpus_pipeline.quality.fasttext_train import TrainParams, fasttext_hash, train
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats

PROJECT = Path(__file__).resolve().parents[2]
GOOD = "the council voted to expand the public library and extend its opening hours for students".split()
BAD = "buy cheap click here free best deal casino win now subscribe".split()


def test_fasttext_hash_is_fnv1a_over_sign_extended_bytes():
    assert fasttext_hash("") == 2166136261 and fasttext_hash("a") == 0xE40C292C  # FNV-1a for ASCII
    # A byte >= 0x80 is xor-ed as a sign-extended int8 (0xFFFFFFC3 for 0xC3), as fastText does;
    # the forward-pass test below checks the result against fastText itself on non-ASCII words.
    step = ((2166136261 ^ 0xFFFFFFC3) * 16777619) & 0xFFFFFFFF
    assert fasttext_hash("é") == ((step ^ 0xFFFFFFA9) * 16777619) & 0xFFFFFFFF


def test_fasttext_predict_reproduces_our_forward_pass(tmp_path):
    rng = random.Random(0)
    examples = [("hq", rng.sample(GOOD, 8) + list("国务院会议")) for _ in range(200)]
    examples += [("lq", rng.sample(BAD, 8) + ["ünïcode"]) for _ in range(200)]
    model = train(examples, TrainParams(dim=16, epoch=3, bucket=5_000))
    model.save(tmp_path / "m.bin")
    loaded = load_model(str(tmp_path / "m.bin"))
    for tokens in (["the", "library", "casino", "ünïcode", "国"], ["click", "here"], ["unseen", "words"], []):
        labels, probabilities = loaded.predict(" ".join(tokens), k=-1)
        ours = dict(zip(model.labels, model.probabilities(tokens), strict=True))
        for label, probability in zip(labels, probabilities, strict=True):
            # fastText reports p + 1e-5 (it takes log(p + 1e-5) and exponentiates it back)
            assert probability == pytest.approx(ours[label.removeprefix("__label__")] + 1e-5, abs=2e-6)


def write_jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    return path


def clean_texts(n: int) -> list[str]:
    rng = random.Random(1)
    return [" ".join(rng.choice(GOOD) for _ in range(60)) + "." for _ in range(n)]


def test_train_classifier_end_to_end_and_use_it_in_the_stage(tmp_path):
    positive = write_jsonl(tmp_path / "good.jsonl", clean_texts(150))
    negative = tmp_path / "bad.txt"
    junk = [t.replace("\n", " ") for _, _, t in junk_documents(per_kind=10)]
    negative.write_text("\n".join(junk), encoding="utf-8")
    model = tmp_path / "quality.bin"
    summary = train_classifier([str(positive)], [str(negative)], model, TrainParams(dim=16, bucket=10_000))
    # read as ingest reads a file: a line repeated in it is one example (140 junk lines, 126 distinct)
    assert summary["train_examples"] + summary["heldout_examples"] == 150 + len(set(junk))
    assert summary["heldout_accuracy"] >= 0.9
    classifier = QualityClassifier(str(model), "hq")
    assert classifier.score(classifier_tokens(clean_texts(1)[0])) > 0.5
    stage = QualityStage(QualityConfig(classifier=QualityClassifierConfig(model_path=str(model))))
    stage.setup()
    doc = empty_document(id="x", text="cheap viagra online casino free spins buy now " * 10, language="en")
    assert stage.process(doc, StageStats("quality")) is not None
    assert 0.0 <= doc["quality_classifier_score"] < 0.5
    with pytest.raises(ValueError, match="no label 'good'"):
        QualityClassifier(str(model), "good")


def test_training_inputs_and_their_errors(tmp_path):
    good = write_jsonl(tmp_path / "good.jsonl", clean_texts(5))
    (tmp_path / "stage").mkdir()
    pq.write_table(pa.table({"id": ["a", "b"], "text": ["first page", ""]}), tmp_path / "stage" / "part-00000.parquet")
    assert list(read_kept_texts(str(tmp_path / "stage"), "line")) == ["first page"]
    assert len(list(read_kept_texts(str(good), "line"))) == 5
    with pytest.raises(FileNotFoundError, match="missing.jsonl"):
        train_classifier([str(tmp_path / "missing.jsonl")], [str(good)], tmp_path / "m.bin")
    empty = write_jsonl(tmp_path / "empty.jsonl", [""])
    with pytest.raises(ValueError, match="no negative examples"):
        train_classifier([str(good)], [str(empty)], tmp_path / "m.bin")


def test_real_fasttext_trains_a_compatible_model_when_an_interpreter_has_it(tmp_path):
    """The benchmark venv (benchmarks/peer_env.py) has fasttext-numpy2-wheel, a trainable build."""
    python = PROJECT / ".bench-venv" / "bin" / "python"
    if not python.exists():
        pytest.skip("no interpreter with a trainable fastText (.bench-venv is built by benchmarks/peer_env.py)")
    positive = write_jsonl(tmp_path / "good.jsonl", clean_texts(100))
    negative = write_jsonl(tmp_path / "bad.jsonl", [t for _, _, t in junk_documents(per_kind=7)])
    summary = train_classifier(
        [str(positive)],
        [str(negative)],
        tmp_path / "ft.bin",
        TrainParams(dim=16, bucket=10_000),
        fasttext_python=str(python),
    )
    assert summary["trainer"].startswith("fastText via") and summary["heldout_accuracy"] >= 0.9
    scores = [QualityClassifier(str(tmp_path / "ft.bin"), "hq").score(classifier_tokens(t)) for t in clean_texts(5)]
    assert np.mean(scores) > 0.5
