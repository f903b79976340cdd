"""Semantic dedup, after SemDeDup (Abbas et al., 2023, arXiv:2303.09540): the documents' embeddings
are clustered with k-means, and within each cluster a document goes when its cosine to one that
stays reaches the threshold. Documents are taken in the keep rule's order (keep_rule.py: source
priority, the preferred column, earliest date, smallest id), so what stays is what exact and
MinHash would keep, not SemDeDup's "farthest from the centre".

Pure numpy and k-means (embeddings/kmeans.py) on vectors in that fixed order, seeded: the same documents give the
same clusters and drops however the input was partitioned.
"""

from __future__ import annotations

import math

import numpy as np

from corpus_pipeline.embeddings.kmeans import kmeans, nearest

# Rows of a cluster whose cosines to the whole cluster are computed at once: 1,024 x a cluster of
# 5,000 is 20 MB of float32, whatever the cluster's size otherwise.
_BLOCK_ROWS = 1024


def cluster_count(documents: int, cluster_size: int) -> int:
    return max(1, min(documents, math.ceil(documents / cluster_size)))


def cluster_labels(vectors: np.ndarray, clusters: int, seed: int, fit_sample: int) -> np.ndarray:
    """The k-means cluster of every row of `vectors` (unit rows, in a fixed order)."""
    if clusters == 1:
        return np.zeros(len(vectors), dtype=np.int64)
    fitted_on = vectors
    if len(vectors) > fit_sample:
        chosen = np.random.default_rng(seed).choice(len(vectors), size=fit_sample, replace=False)
        fitted_on = vectors[np.sort(chosen)]
    # One initialisation (k-means++ on the seed): the clusters only bound which documents are
    # compared, so a second start's slightly lower inertia is not worth its time.
    return nearest(vectors, kmeans(fitted_on, clusters, seed, restarts=1).centroids)


def cluster_duplicates(vectors: np.ndarray, labels: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """(row, kept row) for every row that goes: rows are in keep-rule order, and within its cluster
    a row goes when its cosine to a row kept before it reaches `threshold`, for the nearest such
    row (the first on a tie). Only kept rows absorb others, so no chain of pairs joins two distant
    documents: a threshold low enough to link a whole topic (multilingual-e5-small puts unrelated
    pages at cosine 0.8) still drops only near neighbours of what stays."""
    found = []
    for cluster in np.unique(labels):
        members = np.flatnonzero(labels == cluster)
        member_vectors = vectors[members]
        kept: list[int] = []  # positions in `members`
        for start in range(0, len(members), _BLOCK_ROWS):
            cosines = member_vectors[start : start + _BLOCK_ROWS] @ member_vectors.T
            for offset, row_cosines in enumerate(cosines):
                if kept:
                    to_kept = row_cosines[kept]
                    nearest = int(np.argmax(to_kept))
                    if to_kept[nearest] >= threshold:
                        found.append((int(members[start + offset]), int(members[kept[nearest]])))
                        continue
                kept.append(start + offset)
    return sorted(found)
