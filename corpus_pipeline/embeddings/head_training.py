"""Training a quality head (`corpus-pipeline quality train-head`): sample each source, embed the
texts' first `text_chars` characters, hold out a seeded share of every source, fit the head on the
rest, measure it on the held-out share and write the head with its sidecar.

Each source weighs the same within its class (quality_head.balanced_weights). The held-out
figures are of the head that is written (it is not refitted on everything), per source too: a
source the head cannot tell from the other class shows there, not in the mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_pipeline.embeddings.head_sources import REFERENCE, WEB, HeadSource
from corpus_pipeline.embeddings.quality_head import (
    DEFAULT_L2,
    DEFAULT_TEXT_CHARS,
    accuracy,
    balanced_weights,
    fit_head,
    roc_auc,
    save_head,
)


@dataclass(frozen=True)
class HeadTraining:
    max_per_source: int = 400  # ~1,400 texts in all for the shipped sources: ~2 min to embed on 2 cores
    holdout: float = 0.2
    seed: int = 0
    l2: float = DEFAULT_L2
    text_chars: int = DEFAULT_TEXT_CHARS
    batch_size: int = 32


def _sample(texts: list[str], limit: int, rng: np.random.Generator) -> list[str]:
    if len(texts) <= limit:
        return texts
    return [texts[i] for i in sorted(rng.choice(len(texts), limit, replace=False))]


def train_head(
    sources: list[HeadSource],
    output: Path,
    encoder,
    params: HeadTraining | None = None,
    log: Callable[[str], None] = print,
) -> dict:
    """Train, measure and save a head at `output` (.npz and its .json); the sidecar's card."""
    params = params or HeadTraining()
    if {source.role for source in sources} != {REFERENCE, WEB}:
        raise ValueError("a quality head needs reference sources and web sources")
    rng = np.random.default_rng(params.seed)
    texts, labels, origin, described = [], [], [], []
    for number, source in enumerate(sources):
        available = list(source.texts())
        if not available:
            raise ValueError(f"source {source.name} ({source.where}) gave no text of 200 characters or more")
        chosen = _sample(available, params.max_per_source, rng)
        log(f"train-head: {source.name} ({source.role}): {len(chosen)} of {len(available)} texts")
        texts += [text[: params.text_chars] for text in chosen]
        labels += [1 if source.role == REFERENCE else 0] * len(chosen)
        origin += [number] * len(chosen)
        described.append(
            {"name": source.name, "role": source.role, "where": source.where, "licence": source.licence,
             "documents": len(chosen), "available": len(available)}
        )  # fmt: skip
    log(f"train-head: embedding {len(texts)} texts with {encoder.name} on {encoder.device}")
    vectors = encoder.encode(texts, batch_size=params.batch_size)
    labels_array, origin_array = np.array(labels), np.array(origin)
    held = np.zeros(len(texts), bool)
    for number in range(len(sources)):  # the same share of every source, so each is measured
        rows = np.flatnonzero(origin_array == number)
        count = round(len(rows) * params.holdout) if len(rows) > 1 else 0
        held[rng.permutation(rows)[:count]] = True
    weights = balanced_weights(labels_array[~held], origin_array[~held])
    head = fit_head(vectors[~held], labels_array[~held], encoder.name, params.l2, params.text_chars, weights)
    scores = head.probabilities(vectors[held])
    figures = {"train_examples": int((~held).sum()), "heldout_examples": int(held.sum())}
    if held.any() and len(set(labels_array[held])) == 2:
        figures["heldout_accuracy"] = round(accuracy(scores, labels_array[held]), 4)
        figures["heldout_auc"] = round(roc_auc(scores, labels_array[held]), 4)
        figures["heldout_accuracy_by_source"] = {
            source["name"]: round(accuracy(scores[mask], labels_array[held][mask]), 4)
            for number, source in enumerate(described)
            if (mask := origin_array[held] == number).any()
        }
    head.card = {
        "trained_with": "corpus-pipeline quality train-head",
        "seed": params.seed,
        "l2": params.l2,
        "holdout": params.holdout,
        "max_per_source": params.max_per_source,
        "sources": described,
        **figures,
    }
    save_head(head, output)
    return {"encoder": encoder.name, "dim": head.dim, "text_chars": head.text_chars, **head.card}
