"""MinHash signatures in numpy with datasketch's arithmetic (its `scheme="legacy"`), all shingles of a
document at once: `(a * h + b) mod (2^61 - 1) & 0xffffffff`, with `a, b` drawn from
`numpy.random.RandomState(seed)` exactly as datasketch draws them, so every executor (and datasketch
itself, given the same hash function) computes the same signature. tests/dedup/test_minhash.py
checks equality with datasketch.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import xxhash

MERSENNE_PRIME = np.uint64((1 << 61) - 1)
MAX_HASH = np.uint64((1 << 32) - 1)


def shingle_hash(shingle: str) -> int:
    """32-bit hash of one shingle: xxh32 is ~5x faster than datasketch's default sha1 prefix."""
    return xxhash.xxh32_intdigest(shingle.encode("utf-8", "surrogatepass"))


@lru_cache(maxsize=8)
def permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.RandomState(seed)
    draws = [
        (generator.randint(1, MERSENNE_PRIME, dtype=np.uint64), generator.randint(0, MERSENNE_PRIME, dtype=np.uint64))
        for _ in range(num_perm)
    ]
    pairs = np.array(draws, dtype=np.uint64).T
    return pairs[0], pairs[1]


def signature(shingles: set[str], num_perm: int, seed: int) -> np.ndarray:
    """uint32 signature of `num_perm` values; an empty shingle set gives all MAX_HASH, as datasketch."""
    a, b = permutations(num_perm, seed)
    if not shingles:
        return np.full(num_perm, MAX_HASH, dtype=np.uint32)
    hashes = np.fromiter((shingle_hash(s) for s in shingles), dtype=np.uint64, count=len(shingles))
    # uint64 products wrap modulo 2^64 before the modulo, exactly as datasketch's do.
    permuted = np.bitwise_and((hashes[:, None] * a[None, :] + b[None, :]) % MERSENNE_PRIME, MAX_HASH)
    return permuted.min(axis=0).astype(np.uint32)


def estimated_jaccard(first: np.ndarray, second: np.ndarray) -> float:
    return float(np.count_nonzero(first == second)) / len(first)
