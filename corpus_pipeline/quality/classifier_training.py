"""Training the fastText quality or domain classifier (`corpus-pipeline quality train-classifier`)
from documents read as the pipeline reads them (kept_texts.py), in this process with
fasttext_train.py or with real fastText in another interpreter (`fasttext_python`). Apart from
scoring (classifier.py), which the domains stage imports from inside ingest: reading training data
goes through ingest, so the two in one module were an import cycle."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from corpus_pipeline.fasttext_models import LABEL_PREFIX, classifier_tokens, load_model
from corpus_pipeline.kept_texts import read_kept_texts
from corpus_pipeline.quality.classifier import NEGATIVE, POSITIVE, QualityClassifier
from corpus_pipeline.quality.fasttext_train import TrainParams, train
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.owned_files import owned_file, refuse_unless_ours

# Run by `fasttext_python`: real fastText's trainer on the file of `__label__x tokens...` lines.
_EXTERNAL_TRAINER = """
import json, sys, fasttext
p = json.loads(sys.argv[3])
model = fasttext.train_supervised(input=sys.argv[1], dim=p["dim"], epoch=p["epoch"], lr=p["lr"],
    wordNgrams=p["word_ngrams"], bucket=p["bucket"], minCount=p["min_count"], seed=p["seed"],
    loss="softmax", thread=1, verbose=0)
model.save_model(sys.argv[2])
"""


def _examples(paths: list[str], label: str, limit: int | None) -> list[tuple[str, list[str]]]:
    examples = []
    for path in paths:
        # .txt: one document a line, as fastText's own training files are
        for text in read_kept_texts(path, text_unit="line"):
            tokens = classifier_tokens(text)
            if tokens:
                examples.append((label, tokens))
            if limit is not None and len(examples) >= limit:
                return examples
    return examples


def _train_external(examples: list[tuple[str, list[str]]], output: Path, params: TrainParams, python: str) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as data:
        for label, tokens in examples:
            data.write(f"{LABEL_PREFIX}{label} {' '.join(tokens)}\n")
    try:
        done = subprocess.run(
            [python, "-c", _EXTERNAL_TRAINER, data.name, str(output), json.dumps(params.__dict__)],
            capture_output=True,
            text=True,
        )
    finally:
        os.unlink(data.name)
    if done.returncode != 0:
        raise RuntimeError(f"fastText training with {python} failed: {done.stderr.strip()[-800:]}")


def train_labelled(
    labelled: dict[str, list[str]],
    output: Path,
    params: TrainParams | None = None,
    holdout: float = 0.1,
    max_per_label: int | None = None,
    fasttext_python: str | None = None,
    roles: dict[str, str] | None = None,
) -> tuple[dict, list[tuple[str, list[str]]]]:
    """Train a fastText model on the documents under each label's paths (two labels or more), all
    but a seeded `holdout` share, and save it; (summary with the held-out accuracy, held-out examples).
    `roles` names labels in errors as the user gave them (hq: positive)."""
    params = params or TrainParams()
    if len(labelled) < 2:
        raise ValueError(f"a classifier needs examples of two labels or more, got {sorted(labelled)}")
    refuse_unless_ours(output, Storage())  # before reading and training: minutes on a real corpus
    examples = []
    for label, paths in labelled.items():
        found = _examples(paths, label, max_per_label)
        if not found:
            raise ValueError(f"no {(roles or {}).get(label, label)} examples with text in {paths}")
        examples += found
    order = np.random.default_rng(params.seed).permutation(len(examples))
    held = max(1, round(len(examples) * holdout)) if holdout > 0 else 0
    test = [examples[i] for i in order[:held]]
    training = [examples[i] for i in order[held:]]
    # Through the store's guard: a user's file at `output` is refused, ours replaced whole.
    with owned_file(output, Storage(), "--output") as local:
        if fasttext_python:
            _train_external(training, local, params, fasttext_python)
        else:
            train(training, params).save(local)
    load_model.cache_clear()  # the file at `output` may have been loaded before this run
    model = load_model(str(output))
    correct = sum(model.predict(" ".join(tokens))[0][0] == LABEL_PREFIX + label for label, tokens in test)
    summary = {
        "model": str(output),
        "trainer": f"fastText via {fasttext_python}" if fasttext_python else "numpy (fasttext_train.py)",
        "labels": sorted(labelled),
        "train_examples": len(training),
        "heldout_examples": len(test),
        "heldout_accuracy": correct / len(test) if test else None,
    }
    return summary, test


def train_classifier(
    positive: list[str],
    negative: list[str],
    output: Path,
    params: TrainParams | None = None,
    holdout: float = 0.1,
    max_per_class: int | None = None,
    fasttext_python: str | None = None,
) -> dict:
    """The quality classifier: `positive` (hq) against `negative` (lq) documents, with the held-out
    precision and recall of hq."""
    labelled = {POSITIVE: positive, NEGATIVE: negative}
    roles = {POSITIVE: "positive", NEGATIVE: "negative"}
    summary, test = train_labelled(labelled, output, params, holdout, max_per_class, fasttext_python, roles)
    classifier = QualityClassifier(str(output), POSITIVE)
    true_positive = predicted_positive = actual_positive = 0
    for label, tokens in test:
        predicted = classifier.score(tokens) >= 0.5
        true_positive += predicted and label == POSITIVE
        predicted_positive += predicted
        actual_positive += label == POSITIVE
    del summary["labels"]
    return summary | {
        "heldout_precision": true_positive / predicted_positive if predicted_positive else None,
        "heldout_recall": true_positive / actual_positive if actual_positive else None,
    }
