"""Exact duplicates: the same text once normalized (case, punctuation, whitespace ignored)."""

from __future__ import annotations

import xxhash

from corpus_pipeline.dedup.shingles import normalize_for_hashing


def exact_hash(text: str) -> str:
    return normalized_hash(normalize_for_hashing(text))


def normalized_hash(normalized: str) -> str:
    """exact_hash of a text already through normalize_for_hashing."""
    # 128 bits: at 10^12 documents the chance of any collision is ~10^-15.
    return xxhash.xxh3_128_hexdigest(normalized.encode("utf-8", "surrogatepass"))
