"""The fastText quality classifier: scoring (training: classifier_training.py).

A document is shown to fastText as its lower-cased word units (`words.py`: words, or single
characters for Chinese and Japanese, so Chinese gets features at all; fastText itself splits on
spaces only), the first MAX_TOKENS of them, on one line. Training and scoring use the same
function, so the model sees at prediction what it saw in training.

Training runs in this process with `fasttext_train.py` (numpy, fastText's algorithm and file
format; that module says why), or, with `fasttext_python=PATH`, with real fastText in another
interpreter that has a trainable build installed (fasttext-numpy2-wheel, say: it cannot share this
environment with fasttext-predict, which owns the module name `fasttext`). Either way the model is
a fastText `.bin` that fasttext-predict loads, and a held-out share of the examples measures it.
"""

from __future__ import annotations

import functools
import os

from corpus_pipeline.quality.fasttext_train import LABEL_PREFIX
from corpus_pipeline.quality.words import word_units

MAX_TOKENS = 1024
POSITIVE, NEGATIVE = "hq", "lq"


def classifier_tokens(text: str) -> list[str]:
    return word_units(text.lower())[:MAX_TOKENS]


@functools.lru_cache(maxsize=4)
def load_model(path: str):
    """One load per process and path; fasttext-predict loads any fastText supervised model."""
    import fasttext

    if not os.path.exists(path):
        raise FileNotFoundError(f"quality classifier model not found: {path}")
    return fasttext.load_model(path)


class QualityClassifier:
    def __init__(self, model_path: str, positive_label: str):
        self.model = load_model(model_path)
        self.label = LABEL_PREFIX + positive_label
        labels, _ = self.model.predict("probe", k=-1)
        if self.label not in labels:
            raise ValueError(f"{model_path} has no label {positive_label!r}; its labels: {sorted(labels)}")

    def score(self, tokens: list[str]) -> float:
        """Probability of the positive label (fastText adds 1e-5 to every probability: capped)."""
        labels, probabilities = self.model.predict(" ".join(tokens), k=-1)
        return min(1.0, float(probabilities[labels.index(self.label)]))
