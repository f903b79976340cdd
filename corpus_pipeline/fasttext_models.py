"""fastText supervised models as this project feeds them, for every classifier that uses one (the
quality classifier, the domain labeller): one loader, one view of a document, one label prefix.

A document is shown to fastText as its lower-cased word units (word_units.py: words, or single
characters for Chinese and Japanese, so Chinese gets features at all; fastText itself splits on
spaces only), the first MAX_TOKENS of them, on one line. Training and scoring use the same
function, so a model sees at prediction what it saw in training.
"""

from __future__ import annotations

import functools
import os

from corpus_pipeline.word_units import word_units

LABEL_PREFIX = "__label__"  # fastText's own
MAX_TOKENS = 1024


def classifier_tokens(text: str) -> list[str]:
    return word_units(text.lower())[:MAX_TOKENS]


@functools.lru_cache(maxsize=4)
def load_model(path: str):
    """One load per process and path; fasttext-predict loads any fastText supervised model."""
    import fasttext

    if not os.path.exists(path):
        raise FileNotFoundError(f"fastText model not found: {path}")
    return fasttext.load_model(path)
