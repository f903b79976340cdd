"""Banding: which documents become candidate pairs.

Bands x rows are datasketch's `_optimal_param` for the configured threshold and weights. With
the defaults (threshold 0.7, 128 permutations, weights 0.2/0.8 for false positives/negatives) that is
18 bands of 7 rows, and the chance that a pair becomes a candidate is 1 - (1 - J^7)^18:
J=0.5: 0.13, 0.6: 0.40, 0.7: 0.79, 0.8: 0.986, 0.9: 1.000. Candidates are then verified by the
signatures' estimated Jaccard (>= threshold), which removes nearly all of the low-J candidates:
at 128 permutations the estimate's standard deviation is <= 0.044.
"""

from __future__ import annotations

import numpy as np
import xxhash


def bands_and_rows(
    threshold: float, num_perm: int, false_positive_weight: float, false_negative_weight: float
) -> tuple[int, int]:
    """datasketch's `_optimal_param`: the (bands, rows), bands * rows <= num_perm, that minimize
    the weighted areas of false positives (candidate probability integrated over [0, threshold])
    and of false negatives (its complement over [threshold, 1]); the first in (bands, rows) order
    on a tie. Not imported from datasketch: it imports scipy for its integrals, 1.0-1.2 s of a
    local dedup run that takes ~1 s. The integrands are polynomials of degree bands * rows <=
    num_perm, which Gauss-Legendre with num_perm // 2 + 1 nodes integrates exactly; the tests
    compare the choice with datasketch's on a grid of settings."""
    pairs = [(bands, rows) for bands in range(1, num_perm + 1) for rows in range(1, num_perm // bands + 1)]
    bands = np.array([b for b, _ in pairs], dtype=np.float64)[:, None]
    rows = np.array([r for _, r in pairs], dtype=np.float64)[:, None]
    nodes, weights = np.polynomial.legendre.leggauss(num_perm // 2 + 1)

    def integral(low: float, high: float, function) -> np.ndarray:
        points = (high - low) / 2 * nodes + (high + low) / 2
        return (function(points[None, :]) * weights).sum(axis=1) * (high - low) / 2

    false_positives = integral(0.0, threshold, lambda s: 1 - (1 - s**rows) ** bands)
    false_negatives = integral(threshold, 1.0, lambda s: (1 - s**rows) ** bands)
    error = false_positives * false_positive_weight + false_negatives * false_negative_weight
    return pairs[int(np.argmin(error))]  # argmin: the first of equal minima, as datasketch's `<`


def candidate_probability(jaccard: float, bands: int, rows: int) -> float:
    return 1.0 - (1.0 - jaccard**rows) ** bands


def band_keys(signature: np.ndarray, bands: int, rows: int) -> list[int]:
    """One signed 64-bit key per band: a hash of that band's rows (the band index is a separate
    column, so equal rows in different bands never collide)."""
    values = np.ascontiguousarray(signature[: bands * rows], dtype="<u4").reshape(bands, rows)
    return [xxhash.xxh3_64_intdigest(band.tobytes()) - (1 << 63) for band in values]
