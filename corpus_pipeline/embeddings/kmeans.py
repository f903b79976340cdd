"""k-means on unit vectors (the encoder's rows), for every use of clusters: semantic dedup's
buckets (dedup/semantic.py) and the report's topic diversity (report/diversity.py).

scikit-learn's k-means (k-means++ seeding, Lloyd's iterations, chunked over the rows) on the seeded
generator, so the same vectors and seed give the same clusters. Its centroids are brought back to
unit length and rows are assigned by cosine, so a cluster is a direction, as the vectors are.
Lloyd's iterations stop in a local optimum that depends on the seeding (planted clusters of 185, 5,
5 and 5 rows: one seeding of five splits the large one and merges two small ones), so `restarts`
seedings run and the one of lowest inertia wins (scikit-learn's n_init)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_RESTARTS = 4
# Rows scored against the centroids at once: 65,536 x 2,000 clusters is 512 MB of float32 at most.
_BLOCK_ROWS = 1 << 16


@dataclass
class Clusters:
    centroids: np.ndarray  # (k, dim) float32, unit rows
    assignment: np.ndarray  # (n,) int: each row's cluster

    @property
    def k(self) -> int:
        return int(self.centroids.shape[0])

    def shares(self) -> np.ndarray:
        """(k,) share of the rows in each cluster."""
        return cluster_shares(self.assignment, self.k)


def nearest(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Each row's cluster: the centroid of highest cosine."""
    rows = np.asarray(vectors, np.float32)
    labels = np.empty(len(rows), dtype=np.int64)
    for start in range(0, len(rows), _BLOCK_ROWS):
        labels[start : start + _BLOCK_ROWS] = np.argmax(rows[start : start + _BLOCK_ROWS] @ centroids.T, axis=1)
    return labels


def cluster_shares(assignment: np.ndarray, k: int) -> np.ndarray:
    counts = np.bincount(assignment, minlength=k).astype(np.float64)
    return counts / counts.sum() if counts.sum() else counts


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def kmeans(vectors: np.ndarray, k: int, seed: int = 0, restarts: int = DEFAULT_RESTARTS) -> Clusters:
    """k clusters of `vectors` (n, dim), unit rows; k is capped at n."""
    from sklearn.cluster import KMeans

    x = np.asarray(vectors, np.float32)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"k-means needs a non-empty (n, dim) array, got shape {x.shape}")
    model = KMeans(n_clusters=min(k, len(x)), n_init=max(1, restarts), random_state=seed).fit(x)
    centroids = _unit(model.cluster_centers_).astype(np.float32)
    return Clusters(centroids, nearest(x, centroids))


def normalized_entropy(shares: np.ndarray) -> float:
    """Shannon entropy of `shares` over log(len(shares)): 1 when every cluster holds the same share,
    0 when one holds everything. The coverage figure of the report."""
    p = np.asarray(shares, np.float64)
    if len(p) < 2:
        return 0.0
    nonzero = p[p > 0]
    return float(-(nonzero * np.log(nonzero)).sum() / np.log(len(p)))
