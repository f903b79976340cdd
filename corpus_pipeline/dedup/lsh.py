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

# The band keys' mix (a multiply-xorshift over the band's rows, all documents at once): the constants
# are splitmix64's, odd, so each step is a bijection of the running key for a given row value.
_SEED = np.uint64(0x9E3779B97F4A7C15)
_MULTIPLY = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


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


def band_keys(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(documents, num_perm) MinHash values -> (documents, bands) signed 64-bit keys: a hash of each
    band's rows (the band index is a separate column, so equal rows in different bands never
    collide). Equal bands give equal keys; two different bands share a key with odds ~2^-64, and a
    pair that does only becomes a candidate that its estimated Jaccard then rejects. Numpy over all
    documents: one xxh3 call a band a document cost 6.1-6.4 µs a document (5.5 CPU s at 858k)."""
    values = np.asarray(signatures)[:, : bands * rows].astype(np.uint64).reshape(-1, bands, rows)
    keys = np.full(values.shape[:2], _SEED, dtype=np.uint64)
    with np.errstate(over="ignore"):  # the multiplications are meant to wrap (mod 2^64)
        for row in range(rows):
            keys = (keys ^ values[:, :, row]) * _MULTIPLY[0]
            keys ^= keys >> np.uint64(31)
        keys = keys * _MULTIPLY[1]
        keys ^= keys >> np.uint64(29)
    return keys.view(np.int64)


def signature_matrix(column) -> np.ndarray:
    """A binary Arrow column of whole signatures (no nulls, all of one length of little-endian
    uint32s) as a (documents, num_perm) view of its data buffer, without a Python object per document."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        raise ValueError(f"{column.null_count} signatures are null: band only the documents that have one")
    width = np.int64 if pa.types.is_large_binary(column.type) else np.int32
    _, offsets, data = column.buffers()
    bounds = np.frombuffer(offsets, dtype=width)[column.offset : column.offset + len(column) + 1]
    lengths = np.diff(bounds)
    if not len(column):
        return np.zeros((0, 0), dtype="<u4")
    if lengths.min() != lengths.max() or lengths[0] % 4:
        raise ValueError(f"signatures of {sorted(set(lengths.tolist()))[:4]} bytes: not one num_perm")
    return np.frombuffer(data, dtype=np.uint8)[bounds[0] : bounds[-1]].view("<u4").reshape(len(column), -1)


def bucket_pairs(rows):
    """Band rows (band, key, id: any column that sorts as the ids do) -> the candidate pairs (src,
    dst) of their buckets, a bucket being the rows of one band and key: every member with the
    bucket's smallest id (a star) and with its predecessor in id order (a chain), so a bucket of k
    members gives at most 2k pairs, never k^2/2 (100,000 boilerplate pages: 200,000, not 5 * 10^9).
    A pair may come from several bands: the caller takes the distinct ones.

    Vectorized: numpy finds the rows that share a bucket (few: 147k pairs from the 15.4M band rows of
    858k documents), and only those are sorted by id, by Arrow. The same function makes both
    paths' pairs (small_decisions.candidate_pairs, decisions.candidate_pairs)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    bands, keys = rows.column("band").to_numpy(), rows.column("key").to_numpy()
    order = np.lexsort((keys, bands))
    bands, keys = bands[order], keys[order]
    same = (bands[1:] == bands[:-1]) & (keys[1:] == keys[:-1])
    shared = np.zeros(len(order), dtype=bool)
    shared[1:] |= same
    shared[:-1] |= same
    members = rows.take(pa.array(order[shared]))
    members = members.take(pc.sort_indices(members, [("band", "ascending"), ("key", "ascending"), ("id", "ascending")]))
    member_bands, member_keys = members.column("band").to_numpy(), members.column("key").to_numpy()
    count = len(members)
    starts_bucket = np.ones(count, dtype=bool)
    starts_bucket[1:] = (member_bands[1:] != member_bands[:-1]) | (member_keys[1:] != member_keys[:-1])
    first = np.maximum.accumulate(np.where(starts_bucket, np.arange(count), 0))
    place = np.arange(count) - first  # a member's place in its bucket, by id
    star, chain = np.flatnonzero(place >= 1), np.flatnonzero(place >= 2)
    ids = members.column("id")
    return pa.table(
        {
            "src": ids.take(pa.array(np.concatenate((first[star], chain - 1)))),
            "dst": ids.take(pa.array(np.concatenate((star, chain)))),
        }
    )
