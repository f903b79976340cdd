"""Where a document holds evaluation n-grams, and cutting those spans out with a margin.

A document is normalized as dedup normalizes it, cut into n-grams at every length the index holds
(words; characters too when it has any Chinese, Japanese, Thai... text), and its n-gram hashes are
looked up in the index. Only a document with a hit is normalized a second time with character
offsets (twice the cost, on the few documents that need it), to locate its matches in the text.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from corpus_pipeline.decontam.index import NgramIndex
from corpus_pipeline.dedup.shingle_hashes import shingle_spans_at
from corpus_pipeline.dedup.shingles import has_no_space_script, normalize_for_hashing, normalize_with_offsets


@dataclass(frozen=True)
class Hits:
    """Every (n-gram, item) match of one document: the item's number, the n-gram's span
    [start, end) in the original text, and whether other items hold that n-gram too."""

    items: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    shared: np.ndarray

    def __len__(self) -> int:
        return len(self.items)

    def _select(self, mask: np.ndarray) -> Hits:
        return Hits(self.items[mask], self.starts[mask], self.ends[mask], self.shared[mask])

    def of_set(self, index: NgramIndex, set_number: int) -> Hits:
        return self._select(index.item_sets[self.items] == set_number)

    def sets(self, index: NgramIndex) -> list[int]:
        return sorted(set(index.item_sets[self.items].tolist()))

    def attributed(self) -> Hits:
        """The hits of the items found: those with an n-gram of their own in the document, or,
        when every n-gram found is shared, all of them (nothing tells those items apart)."""
        specific = np.unique(self.items[~self.shared])
        return self._select(np.isin(self.items, specific)) if len(specific) else self


_NONE = Hits(*(np.empty(0, dtype=kind) for kind in (np.uint32, np.int64, np.int64, bool)))


def find_hits(index: NgramIndex, text: str) -> Hits:
    if not len(index.hashes) or not text:
        return _NONE
    normalized = normalize_for_hashing(text)
    found = _normalized_hits(index, normalized)
    if not found:
        return _NONE
    _, offsets = normalize_with_offsets(text)
    items, starts, ends, shared = (np.concatenate(column) for column in zip(*found, strict=True))
    return Hits(items, offsets[starts], offsets[ends - 1] + 1, shared)


def _normalized_hits(index: NgramIndex, normalized: str) -> list[tuple[np.ndarray, ...]]:
    words = normalized.count(" ") + 1
    letters = len(normalized) - words + 1
    # Shorter than a width, the text would be one shorter shingle: an item of that length is looked
    # up at its own width.
    cuts = [(False, [w for w in index.word_widths if w <= words])]
    if index.char_widths and has_no_space_script(normalized):
        cuts.append((True, [w for w in index.char_widths if w <= letters]))
    found = []
    for by_characters, widths in cuts:
        for hashes, starts, ends in shingle_spans_at(normalized, by_characters, widths) if widths else ():
            positions, items, shared = index.lookup(hashes)
            if len(items):
                found.append((items, starts[positions], ends[positions], shared))
    return found


def merged_spans(starts, ends, margin: int, length: int) -> list[tuple[int, int]]:
    """Spans [start, end) widened by `margin` on both sides (within the text), overlaps merged."""
    order = np.argsort(starts, kind="stable")
    spans: list[tuple[int, int]] = []
    for start, end in zip(np.asarray(starts)[order].tolist(), np.asarray(ends)[order].tolist(), strict=True):
        start, end = max(0, start - margin), min(length, end + margin)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans


def cut_spans(text: str, spans: list[tuple[int, int]]) -> tuple[str, int, int]:
    """`text` without `spans` (sorted, disjoint), each widened over the punctuation that touches it
    (the full stop or quote after a match): the pieces left, stripped, one per line, how many
    pieces that is (GPT-3 dropped a document cut into more than 10) and the characters cut."""
    pieces, previous, removed = [], 0, 0
    for start, end in spans:
        start, end = max(start, previous), end
        while start > previous and _is_punctuation(text[start - 1]):
            start -= 1
        while end < len(text) and _is_punctuation(text[end]):
            end += 1
        pieces.append(text[previous:start])
        removed += end - start
        previous = end
    pieces.append(text[previous:])
    kept = [piece.strip() for piece in pieces if normalize_for_hashing(piece)]
    return "\n".join(kept), len(kept), removed


def _is_punctuation(character: str) -> bool:
    return unicodedata.category(character)[0] in "PS"


def redacted(text: str, shown: int) -> str:
    """The first `shown` characters of a matched text, one line, the rest counted, not quoted."""
    flat = " ".join(text.split())
    if len(flat) <= shown:
        return flat
    return f"{flat[:shown]}\u2026 [+{len(flat) - shown} chars]"
