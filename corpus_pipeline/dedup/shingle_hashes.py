"""64-bit hashes of a document's shingles computed from its code points in numpy, without building
the shingle strings.

Building each shingle as a Python string and hashing it (xxh32) in its own call cost 0.8-1.1 us a
shingle on the generated benchmark pages (~800 shingles a page): after normalizing, the largest share
of the signature time. This takes 0.11-0.18 us. A shingle's hash is a polynomial in its code points
modulo 2^64,

    P(s, e) = sum_{j=s}^{e-1} c_j * B^(j-s),

read off prefix sums in two array operations, P(s, e) = (H[e] - H[s]) * B^-s with
H[i] = sum_{j<i} c_j * B^j (B is odd, so B^-1 exists modulo 2^64), then mixed by murmur3's fmix64
finalizer so every output bit depends on every code point. A word shingle is the span from its
first word's start to its last word's end in the normalized text (one space between words), a
character shingle a span of the text with its spaces removed: exactly the strings
`shingles.shingles()` builds, so `shingle_hash64` of such a string is the same value (tested).
Polynomial hashes modulo 2^64 do collide on crafted inputs (Thue-Morse strings); on text that is
not built to collide, 64 bits make a collision within a document ~1e-13 likely.
"""

from __future__ import annotations

import numpy as np

BASE = 0x9E3779B97F4A7C15  # odd: invertible modulo 2^64
_BASE_INVERSE = pow(BASE, -1, 1 << 64)
_SPACE = ord(" ")
_EMPTY = np.empty(0, dtype=np.uint64)
_NO_OFFSETS = np.empty(0, dtype=np.int64)
# B^j and B^-j for j < len, grown by doubling as longer texts arrive (8 MiB each at 1M characters).
_powers = np.ones(1, dtype=np.uint64)
_inverse_powers = np.ones(1, dtype=np.uint64)


def _power_tables(length: int) -> tuple[np.ndarray, np.ndarray]:
    global _powers, _inverse_powers
    if len(_powers) < length:
        size = max(length, 2 * len(_powers))
        # uint64 array products wrap modulo 2^64, which is the arithmetic wanted.
        _powers, _inverse_powers = _powers_of(BASE, size), _powers_of(_BASE_INVERSE, size)
    return _powers, _inverse_powers


def _powers_of(base: int, count: int) -> np.ndarray:
    factors = np.full(count, base, dtype=np.uint64)
    factors[0] = 1
    return np.cumprod(factors, dtype=np.uint64)


def _fmix64(values: np.ndarray) -> np.ndarray:
    values = values ^ (values >> np.uint64(33))
    values = values * np.uint64(0xFF51AFD7ED558CCD)
    values = values ^ (values >> np.uint64(33))
    values = values * np.uint64(0xC4CEB9FE1A85EC53)
    return values ^ (values >> np.uint64(33))


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)


def _prefix_sums(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, B^-j): H[i] = sum_{j<i} c_j * B^j, the table every span hash of the text is read from."""
    powers, inverse_powers = _power_tables(len(codes) + 1)
    prefix = np.zeros(len(codes) + 1, dtype=np.uint64)
    np.cumsum(codes * powers[: len(codes)], out=prefix[1:])
    return prefix, inverse_powers


def _hashes_from(sums: tuple[np.ndarray, np.ndarray], starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    prefix, inverse_powers = sums
    return _fmix64((prefix[ends] - prefix[starts]) * inverse_powers[starts])


def _span_hashes(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    return _hashes_from(_prefix_sums(codes), starts, ends)


def shingle_hashes(normalized: str, by_characters: bool, word_ngram: int, char_ngram: int) -> np.ndarray:
    """Sorted distinct uint64 hashes of the shingles `shingles.shingles()` would build from the same
    arguments (a text shorter than one n-gram is its own shingle; an empty text has none).

    The same hashes as `shingle_spans`, without locating them: dedup's path, 15% less CPU than
    going through it (0.21 vs 0.25 s for the 1,432 pages and 3,000 People's Daily paragraphs)."""
    if by_characters:
        codes = _code_points(normalized.replace(" ", ""))
        if not len(codes):
            return _EMPTY
        width = min(char_ngram, len(codes))
        starts = np.arange(len(codes) - width + 1)
        ends = starts + width
    else:
        if not normalized:
            return _EMPTY
        codes = _code_points(normalized)
        spaces = np.flatnonzero(codes == _SPACE)
        word_starts = np.concatenate(([0], spaces + 1))
        word_ends = np.concatenate((spaces, [len(codes)]))
        width = min(word_ngram, len(word_starts))
        starts, ends = word_starts[: len(word_starts) - width + 1], word_ends[width - 1 :]
    return _distinct(_span_hashes(codes, starts, ends))


def shingle_spans(
    normalized: str, by_characters: bool, word_ngram: int, char_ngram: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hashes, starts, ends): every shingle's hash in text order, with the span [start, end) it
    covers in `normalized` (spaces included), so a match can be located."""
    return shingle_spans_at(normalized, by_characters, [char_ngram if by_characters else word_ngram])[0]


def shingle_spans_at(
    normalized: str, by_characters: bool, widths: list[int]
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """`shingle_spans` at each of `widths` (n-gram lengths), reading the code points and their prefix
    sums once: decontamination cuts a page at every length its eval items need."""
    if not normalized:
        return [(_EMPTY, _NO_OFFSETS, _NO_OFFSETS)] * len(widths)
    codes = _code_points(normalized)
    if by_characters:
        letters = np.flatnonzero(codes != _SPACE)
        if not len(letters):
            return [(_EMPTY, _NO_OFFSETS, _NO_OFFSETS)] * len(widths)
        prefix = _prefix_sums(codes[letters])
        spans = []
        for size in widths:
            width = min(size, len(letters))
            firsts = np.arange(len(letters) - width + 1)
            hashes = _hashes_from(prefix, firsts, firsts + width)
            spans.append((hashes, letters[firsts], letters[firsts + width - 1] + 1))
        return spans
    spaces = np.flatnonzero(codes == _SPACE)
    word_starts = np.concatenate(([0], spaces + 1))
    word_ends = np.concatenate((spaces, [len(codes)]))
    prefix = _prefix_sums(codes)
    spans = []
    for size in widths:
        width = min(size, len(word_starts))
        starts, ends = word_starts[: len(word_starts) - width + 1], word_ends[width - 1 :]
        spans.append((_hashes_from(prefix, starts, ends), starts, ends))
    return spans


def _distinct(hashes: np.ndarray) -> np.ndarray:
    """np.unique, 7x faster on ~900-element arrays (it hashes before sorting: 0.12 s vs 0.017 s
    for 1,000 documents)."""
    ordered = np.sort(hashes)
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def shingle_hash64(shingle: str) -> int:
    """The hash `shingle_hashes` gives this shingle (for tests, and for hashing single strings)."""
    codes = _code_points(shingle)
    return int(_span_hashes(codes, np.array([0]), np.array([len(codes)]))[0])


def string_hashes(shingles: set[str]) -> np.ndarray:
    """Sorted distinct hashes of shingles given as strings."""
    return _distinct(np.array([shingle_hash64(s) for s in shingles], dtype=np.uint64))
