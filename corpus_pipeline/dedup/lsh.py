"""Banding: which documents become candidate pairs.

Bands x rows come from datasketch's `_optimal_param` for the configured threshold and weights. With
the defaults (threshold 0.7, 128 permutations, weights 0.2/0.8 for false positives/negatives) that is
18 bands of 7 rows, and the chance that a pair becomes a candidate is 1 - (1 - J^7)^18:
J=0.5: 0.13, 0.6: 0.40, 0.7: 0.79, 0.8: 0.986, 0.9: 1.000. Candidates are then verified by the
signatures' estimated Jaccard (>= threshold), which removes nearly all of the low-J candidates:
at 128 permutations the estimate's standard deviation is <= 0.044.
"""

from __future__ import annotations

import numpy as np
import xxhash


def bands_and_rows(threshold: float, num_perm: int, false_positive_weight: float, false_negative_weight: float):
    # Imported here: datasketch imports scipy (0.54 s), and every Python worker imports this module
    # for band_keys, in the first task of a session, while only the driver ever calls this.
    from datasketch.lsh import _optimal_param

    return _optimal_param(threshold, num_perm, false_positive_weight, false_negative_weight)


def candidate_probability(jaccard: float, bands: int, rows: int) -> float:
    return 1.0 - (1.0 - jaccard**rows) ** bands


def band_keys(signature: np.ndarray, bands: int, rows: int) -> list[int]:
    """One signed 64-bit key per band: a hash of that band's rows (the band index is a separate
    column, so equal rows in different bands never collide)."""
    values = np.ascontiguousarray(signature[: bands * rows], dtype="<u4").reshape(bands, rows)
    return [xxhash.xxh3_64_intdigest(band.tobytes()) - (1 << 63) for band in values]
