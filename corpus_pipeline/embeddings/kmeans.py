"""Spherical k-means on unit vectors (the encoder's rows): clusters by cosine, centroids kept at
unit length. k-means++ seeding from a seeded generator, so the same vectors and seed give the same
clusters; Lloyd's iterations until no row changes cluster (a sample of a few hundred converges in
~10-20 iterations). Lloyd's iterations stop in a local optimum that depends on the seeding (planted
clusters of 185, 5, 5 and 5 rows: one seeding of five splits the large one and merges two small
ones), so `restarts` seedings run and the one of highest total cosine to its centroids wins, as
scikit-learn's n_init does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_MAX_ITERATIONS = 100
DEFAULT_RESTARTS = 4


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
    return np.argmax(vectors @ centroids.T, axis=1)


def cluster_shares(assignment: np.ndarray, k: int) -> np.ndarray:
    counts = np.bincount(assignment, minlength=k).astype(np.float64)
    return counts / counts.sum() if counts.sum() else counts


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def kmeans(vectors: np.ndarray, k: int, seed: int = 0, restarts: int = DEFAULT_RESTARTS) -> Clusters:
    """k clusters of `vectors` (n, dim), unit rows; k is capped at n."""
    x = np.asarray(vectors, np.float64)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"k-means needs a non-empty (n, dim) array, got shape {x.shape}")
    k = min(k, len(x))
    best, best_fit = None, -np.inf
    for rng in np.random.default_rng(seed).spawn(max(1, restarts)):
        center, assignment = _lloyd(x, k, rng)
        fit = float(np.sum(x * center[assignment]))  # total cosine of each row to its centroid
        if fit > best_fit + 1e-9:
            best, best_fit = (center, assignment), fit
    return Clusters(best[0].astype(np.float32), best[1])


def _lloyd(x: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    centroids = [x[rng.integers(len(x))]]
    distance = 1.0 - x @ centroids[0]
    for _ in range(1, k):  # k-means++: a row far from every centroid so far is likelier next
        weights = np.clip(distance, 0.0, None) ** 2
        total = weights.sum()
        row = rng.choice(len(x), p=weights / total) if total > 0 else rng.integers(len(x))
        centroids.append(x[row])
        distance = np.minimum(distance, 1.0 - x @ x[row])
    center = np.array(centroids)
    assignment = np.full(len(x), -1)
    for _ in range(_MAX_ITERATIONS):
        new = nearest(x, center)
        if np.array_equal(new, assignment):
            break
        assignment = new
        for cluster in range(k):
            members = x[assignment == cluster]
            if len(members):  # an emptied cluster keeps its centroid (and may win rows back)
                center[cluster] = members.sum(axis=0)
        center = _unit(center)
    return center, assignment


def normalized_entropy(shares: np.ndarray) -> float:
    """Shannon entropy of `shares` over log(len(shares)): 1 when every cluster holds the same share,
    0 when one holds everything. The coverage figure of the report."""
    p = np.asarray(shares, np.float64)
    if len(p) < 2:
        return 0.0
    nonzero = p[p > 0]
    return float(-(nonzero * np.log(nonzero)).sum() / np.log(len(p)))
