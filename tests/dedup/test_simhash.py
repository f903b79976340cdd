"""SimHash fingerprints and the block layout, without Spark."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from conftest import shared_data

from corpus_pipeline.dedup import simhash as simhash_module
from corpus_pipeline.dedup.shingle_hashes import shingle_hash64, string_hashes
from corpus_pipeline.dedup.shingles import document_shingles
from corpus_pipeline.dedup.simhash import (
    BITS,
    block_layout,
    block_values,
    hamming_distance,
    simhash,
    simhashes,
    to_signed,
)

WORDS = [f"w{i}" for i in range(5000)]
MASK = (1 << BITS) - 1


def _h(shingle: str) -> int:
    return shingle_hash64(shingle)


def test_hamming_distance_counts_differing_bits_of_signed_and_unsigned_values():
    assert hamming_distance(0b1011, 0b0001) == 2
    assert hamming_distance(0, MASK) == 64
    assert hamming_distance(-1, 0) == 64  # Spark hands the fingerprint back as a signed long
    assert hamming_distance(-(1 << 63), 1 << 63) == 0


def test_fingerprint_is_the_bitwise_majority_of_the_shingle_hashes():
    assert simhash({"one"}) == _h("one")
    a, b, c = _h("one"), _h("two"), _h("three")
    assert simhash({"one", "two", "three"}) == (a & b) | (a & c) | (b & c)
    # With two shingles a bit is set only when both have it: one of two is a tie, not a majority.
    assert simhash({"one", "two"}) == a & b
    assert simhash(set()) == 0


def test_batches_split_into_chunks_give_the_same_fingerprints(monkeypatch):
    rng = random.Random(1)
    sets = [{f"s{rng.randrange(10_000)}" for _ in range(rng.randrange(0, 40))} for _ in range(50)]
    expected = [simhash(s) for s in sets]
    monkeypatch.setattr(simhash_module, "CHUNK_SHINGLES", 7)
    monkeypatch.setattr(simhash_module, "CHUNK_DOCUMENTS", 3)
    hashed = [string_hashes(s) for s in sets]
    assert simhashes(hashed).tolist() == expected
    assert to_signed(simhashes(hashed)).tolist() == [v - (1 << 64) if v >> 63 else v for v in expected]


def test_bits_flipped_grow_with_the_edit_as_the_angle_predicts():
    """Two sets at cosine c differ in each bit with probability arccos(c) / pi (Charikar 2002)."""
    rng = random.Random(0)
    means = []
    for edits in (1, 5, 20, 60, 150):
        distances, predicted = [], []
        for _ in range(40):
            words = rng.choices(WORDS, k=600)
            edited = list(words)
            for position in rng.sample(range(len(words)), edits):
                edited[position] = rng.choice(WORDS)
            first = document_shingles(" ".join(words), "en", 5, 5)
            second = document_shingles(" ".join(edited), "en", 5, 5)
            distances.append(hamming_distance(simhash(first), simhash(second)))
            cosine = len(first & second) / math.sqrt(len(first) * len(second))
            predicted.append(BITS * math.acos(min(1.0, cosine)) / math.pi)
        # 40 pairs: the mean's standard error is under 0.7 bits; 2 bits is three of them.
        assert abs(np.mean(distances) - np.mean(predicted)) < 2.0, edits
        means.append(np.mean(distances))
    assert means == sorted(means) and means[0] < 4 and means[-1] > 20


def test_chinese_text_is_fingerprinted_on_characters():
    rng = random.Random(2)
    text = "".join(rng.choices([chr(0x4E00 + i) for i in range(2000)], k=1500))
    one_changed = text[:700] + "变" + text[701:]
    fingerprint = simhash(document_shingles(text, "zh", 5, 5))
    assert hamming_distance(fingerprint, simhash(document_shingles(one_changed, "zh", 5, 5))) <= 4
    other = "".join(rng.choices([chr(0x4E00 + i) for i in range(2000)], k=1500))
    assert hamming_distance(fingerprint, simhash(document_shingles(other, "zh", 5, 5))) > 15


@pytest.mark.parametrize("blocks", [1, 2, 4, 5, 7, 11, 16, 64])
def test_blocks_cover_the_64_bits_in_near_equal_widths(blocks):
    layout = block_layout(blocks)
    assert len(layout) == blocks and layout[0][0] == 0
    ends = [start + width for start, width in layout]
    assert [start for start, _ in layout[1:]] == ends[:-1] and ends[-1] == BITS
    assert max(w for _, w in layout) - min(w for _, w in layout) <= 1


def test_block_layout_rejects_impossible_counts():
    with pytest.raises(ValueError, match="blocks must be"):
        block_layout(65)


@pytest.mark.parametrize("max_distance", [0, 1, 3, 6])
def test_pairs_within_k_bits_share_a_block_of_k_plus_one(max_distance):
    rng = random.Random(max_distance)
    for _ in range(500):
        value = rng.getrandbits(BITS)
        other = value
        for bit in rng.sample(range(BITS), rng.randint(0, max_distance)):
            other ^= 1 << bit
        first, second = block_values(value, max_distance + 1), block_values(other, max_distance + 1)
        assert any(a == b for a, b in zip(first, second, strict=True))


def test_real_page_copies_are_within_three_bits_and_the_related_pairs_are_not():
    """natural_pairs.json: four copies (Jaccard 1.0), a syndicated release (0.51) and two reports of
    one event (0.40)."""
    docs = {}
    with shared_data("dedup/web_docs.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            docs[doc["id"]] = doc["text"]
    pairs = json.loads(shared_data("dedup/natural_pairs.json").read_text(encoding="utf-8"))
    distances = {}
    for jaccard, first, second, *_ in pairs:
        a, b = (simhash(document_shingles(docs[i], None, 5, 5)) for i in (first, second))
        distances[jaccard] = distances.get(jaccard, []) + [hamming_distance(a, b)]
    assert distances[1.0] == [0, 0, 0, 0]
    assert min(distances[0.51] + distances[0.397]) > 3
