"""The fastText quality classifier: scoring (training: classifier_training.py).

A document is shown to fastText as fasttext_models.classifier_tokens makes it (the domain labeller
shares the loader and that view).

Training runs in this process with `fasttext_train.py` (numpy, fastText's algorithm and file
format; that module says why), or, with `fasttext_python=PATH`, with real fastText in another
interpreter that has a trainable build installed (fasttext-numpy2-wheel, say: it cannot share this
environment with fasttext-predict, which owns the module name `fasttext`). Either way the model is
a fastText `.bin` that fasttext-predict loads, and a held-out share of the examples measures it.
"""

from __future__ import annotations

from corpus_pipeline.fasttext_models import LABEL_PREFIX, load_model

POSITIVE, NEGATIVE = "hq", "lq"


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
