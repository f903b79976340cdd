"""Semantic dedup, after SemDeDup (Abbas et al., 2023, arXiv:2303.09540): the documents' embeddings
are clustered with k-means, and within each cluster every pair whose cosine reaches the threshold
is a duplicate pair. Which document of a group stays is the keep rule every method uses
(keep_rule.py: source priority, the preferred column, earliest date, smallest id), not SemDeDup's
"farthest from the centre", so semantic dedup agrees with exact and MinHash on what a copy is.

Pure numpy and scikit-learn on vectors in id order, seeded: the same documents give the same
clusters and pairs however the input was partitioned. small_decisions.semantic_duplicates turns
the pairs into drops.
"""

from __future__ import annotations

import math

import numpy as np

# Rows of a cluster multiplied at a time: 1,024 x a 5,000-member cluster is 20 MB of float32.
_PAIR_BLOCK = 1024


def cluster_count(documents: int, cluster_size: int) -> int:
    return max(1, min(documents, math.ceil(documents / cluster_size)))


def cluster_labels(vectors: np.ndarray, clusters: int, seed: int, fit_sample: int) -> np.ndarray:
    """The k-means cluster of every row of `vectors` (unit rows, in id order)."""
    if clusters == 1:
        return np.zeros(len(vectors), dtype=np.int64)
    from sklearn.cluster import KMeans

    fitted_on = vectors
    if len(vectors) > fit_sample:
        chosen = np.random.default_rng(seed).choice(len(vectors), size=fit_sample, replace=False)
        fitted_on = vectors[np.sort(chosen)]
    # One initialisation (k-means++ on the seed): the clusters only bound which pairs are compared,
    # so a second start's slightly lower inertia is not worth its time.
    model = KMeans(n_clusters=clusters, n_init=1, random_state=seed).fit(fitted_on)
    return model.predict(vectors).astype(np.int64)


def similar_pairs(vectors: np.ndarray, labels: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """(i, j), i < j, row numbers of the same cluster whose cosine is at least `threshold`."""
    pairs: list[tuple[int, int]] = []
    for cluster in np.unique(labels):
        members = np.flatnonzero(labels == cluster)
        if len(members) < 2:
            continue
        block_vectors = vectors[members]
        for start in range(0, len(members), _PAIR_BLOCK):
            cosines = block_vectors[start : start + _PAIR_BLOCK] @ block_vectors.T
            rows, columns = np.nonzero(cosines >= threshold)
            for row, column in zip(rows + start, columns, strict=True):
                if row < column:
                    pairs.append((int(members[row]), int(members[column])))
    return sorted(pairs)
