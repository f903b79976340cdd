"""The located forms of dedup's normalization and shingle hashes (what decontamination cuts with):
the same strings and hashes as the unlocated ones, with spans that point at the matched text."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from corpus_pipeline.dedup.shingle_hashes import shingle_hash64, shingle_hashes, shingle_spans
from corpus_pipeline.dedup.shingles import normalize_for_hashing, normalize_with_offsets, shingles

MIXED = "İstanbul: “Quoted”  — text,\n\tΆΘΗΝΑ and 人民日报社论，今天发表。 a_b"


def test_offsets_normalization_is_the_normalization_on_every_code_point():
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    normalized, offsets = normalize_with_offsets(every)
    assert normalized == normalize_for_hashing(every) and len(offsets) == len(normalized)


def test_every_normalized_character_points_at_the_character_it_comes_from():
    normalized, offsets = normalize_with_offsets(MIXED)
    assert normalized == normalize_for_hashing(MIXED)
    for character, origin in zip(normalized, offsets.tolist(), strict=True):
        assert character == " " or character in MIXED[origin].lower()
    assert normalize_with_offsets("ΣΊΣΥΦΟΣ")[0] == normalize_for_hashing("ΣΊΣΥΦΟΣ")  # final sigma: ς
    empty, none = normalize_with_offsets("!!! ...")
    assert empty == "" and len(none) == 0


@pytest.mark.parametrize("by_characters", [False, True])
def test_spans_cover_the_shingles_in_text_order_with_their_hashes(by_characters):
    normalized = normalize_for_hashing(MIXED)
    hashes, starts, ends = shingle_spans(normalized, by_characters, 3, 3)
    assert np.array_equal(np.unique(hashes), shingle_hashes(normalized, by_characters, 3, 3))
    for value, start, end in zip(hashes.tolist(), starts.tolist(), ends.tolist(), strict=True):
        span = normalized[start:end]
        assert value == shingle_hash64(span.replace(" ", "") if by_characters else span)
    assert set(shingles(normalized, by_characters, 3, 3)) == {
        normalized[s:e].replace(" ", "") if by_characters else normalized[s:e]
        for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
    }
