"""The pure dedup helpers: shingles, MinHash (equal to datasketch), banding, exact hashes."""

from __future__ import annotations

import random
import re
import sys
import unicodedata

import numpy as np
import pyarrow as pa
import pytest
from datasketch import MinHash

from corpus_pipeline.dedup.batch_ops import band_batch, signature_batch, similarity_batch
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.exact import exact_hash
from corpus_pipeline.dedup.lsh import (
    band_keys,
    bands_and_rows,
    bucket_pairs,
    candidate_probability,
    signature_matrix,
)
from corpus_pipeline.dedup.minhash import (
    MERSENNE_PRIME,
    _mod_mersenne,
    estimated_jaccard,
    minhash_values,
    shingle_hash,
    signature,
)
from corpus_pipeline.dedup.shingle_hashes import shingle_hashes, string_hashes
from corpus_pipeline.dedup.shingles import (
    document_shingles,
    jaccard,
    normalize_for_hashing,
    normalize_many,
    shingles,
    uses_characters,
)

TEXT = "The quick brown fox jumps over the lazy dog, then runs into the forest and sleeps until noon."


def test_normalization_ignores_case_punctuation_and_whitespace():
    assert normalize_for_hashing("Hello,  WORLD!\n\n“Quoted” — text") == "hello world quoted text"
    assert exact_hash("Hello, world!") == exact_hash("hello   world") != exact_hash("hello there")


def test_word_shingles_for_spaced_languages_and_characters_for_chinese():
    assert document_shingles("a b c d e f", "en", 5, 5) == {"a b c d e", "b c d e f"}
    assert document_shingles("今天天气很好啊", "zh", 5, 5) == {"今天天气很", "天天气很好", "天气很好啊"}
    assert document_shingles("short text", "en", 5, 5) == {"short text"}
    assert document_shingles("!!!", "en", 5, 5) == set()


def test_script_decides_when_language_is_unknown():
    assert uses_characters(None, normalize_for_hashing("人民日报社论 今天发表"))
    assert uses_characters("ja", "whatever")
    assert not uses_characters(None, "plain english words")
    assert not uses_characters("ko", "한국어 문장입니다")


def test_normalization_equals_its_per_character_definition_on_every_code_point():
    # Punctuation and symbol categories become spaces, the rest lower-cased, whitespace collapsed.
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    defined = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in every.lower())
    assert normalize_for_hashing(every) == re.sub(r"\s+", " ", defined).strip()


def test_texts_normalized_together_equal_each_normalized_alone():
    """Lower-casing that changes a text's length (İ), a final sigma at a text's end, lone
    surrogates, whitespace of every kind at the joins, empty texts: each slice is its own text's."""
    rng = random.Random(5)
    pool = ["İstanbul", "ΟΔΟΣ", "Σ", "ς", "\ud800", "\udfff", "a\u0301", "\u2028", "\x85", "\r", " ", "",
            "１２３", "©", "—", "人民日报", "ﬁ", "ẞ", "Ǆ", "x", "\t\n"]  # fmt: skip
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 6))) for _ in range(3_000)]
    assert normalize_many(texts) == [normalize_for_hashing(text) for text in texts]
    assert normalize_many([]) == []


CHINESE = "今天天气很好啊，我们去公园散步吧。明天也许下雨。"


@pytest.mark.parametrize(
    ("text", "by_characters"), [(TEXT, False), (CHINESE, True), ("short text", False), ("天气", True), ("!!!", False)]
)
def test_shingle_hashes_are_the_hashes_of_the_shingle_strings(text, by_characters):
    normalized = normalize_for_hashing(text)
    for size in (1, 3, 5):
        expected = string_hashes(shingles(normalized, by_characters, size, size))
        assert np.array_equal(shingle_hashes(normalized, by_characters, size, size), expected)


@pytest.mark.parametrize(("text", "language"), [(TEXT, "en"), (CHINESE, "zh")])
def test_signature_equals_datasketch_legacy_minhash(text, language):
    reference = MinHash(num_perm=64, seed=7, hashfunc=shingle_hash, scheme="legacy")
    reference.update_batch(sorted(document_shingles(text, language, 3, 5)))
    normalized = normalize_for_hashing(text)
    ours = signature(minhash_values(shingle_hashes(normalized, language == "zh", 3, 5)), 64, 7)
    assert np.array_equal(ours, reference.hashvalues.astype(np.uint32))


def test_the_modulo_without_division_is_numpys_modulo():
    """Every uint64 the signature's products can be, the edges of the reduction included: 0, the
    prime and its multiples, one either side of them, and 2^64 - 1."""
    prime = int(MERSENNE_PRIME)
    edges = [0, 1, prime - 1, prime, prime + 1, 2 * prime - 1, 2 * prime, 2 * prime + 1, 7 * prime, 8 * prime - 1]
    edges += [(1 << 61) + prime - 1, (1 << 64) - 1, (1 << 64) - 2, 1 << 63]
    values = np.concatenate(
        [np.array(edges, np.uint64), np.random.default_rng(5).integers(0, 1 << 64, 100_000, np.uint64, endpoint=False)]
    )
    reduced = values.copy()
    _mod_mersenne(reduced)
    assert np.array_equal(reduced, values % MERSENNE_PRIME)


def test_estimated_jaccard_tracks_true_jaccard():
    first = {f"w{i}" for i in range(400)}
    second = {f"w{i}" for i in range(100, 500)}  # true Jaccard 300/500 = 0.6
    first_signature, second_signature = (signature(minhash_values(string_hashes(s)), 256, 1) for s in (first, second))
    estimate = estimated_jaccard(first_signature, second_signature)
    assert abs(estimate - jaccard(first, second)) < 0.08


def test_default_bands_and_their_curve():
    config = DedupConfig()
    bands, rows = bands_and_rows(
        config.threshold, config.num_perm, config.false_positive_weight, config.false_negative_weight
    )
    assert (bands, rows) == (18, 7)
    assert candidate_probability(0.8, bands, rows) > 0.98
    assert candidate_probability(0.4, bands, rows) < 0.03


def test_band_keys_match_only_equal_bands():
    sig = np.arange(14, dtype=np.uint32)
    other = sig.copy()
    other[8] = 99
    first, second = band_keys(np.stack([sig, other]), 2, 7)
    assert first[0] == second[0] and first[1] != second[1]
    assert first.dtype == np.int64 and len(set(first)) == 2  # a band's index is not in its key


def test_band_keys_tell_apart_bands_that_differ_anywhere():
    """Every value of a band changed in turn, by one bit or to a neighbour's value, and rows swapped:
    every variant has a key of its own (the mix is not a sum or an xor of the rows)."""
    rng = np.random.default_rng(7)
    base = rng.integers(0, 2**32, size=7, dtype=np.uint32)
    variants = [base]
    for row in range(7):
        for change in (1, 1 << 31, int(base[(row + 1) % 7]) ^ int(base[row])):
            variant = base.copy()
            variant[row] ^= np.uint32(change)
            variants.append(variant)
    variants += [np.roll(base, 1), base[::-1].copy()]
    keys = band_keys(np.stack(variants), 1, 7)[:, 0]
    assert len(set(keys.tolist())) == len(variants)
    random = band_keys(rng.integers(0, 2**32, size=(200_000, 7), dtype=np.uint32), 1, 7)[:, 0]
    assert len(np.unique(random)) == len(random)


def test_a_signature_matrix_is_the_column_s_buffer_and_refuses_what_is_not_whole():
    values = np.arange(12, dtype="<u4").reshape(3, 4)
    column = pa.array([row.tobytes() for row in values], pa.binary())
    assert (signature_matrix(column) == values).all() and (signature_matrix(column.slice(1)) == values[1:]).all()
    assert (signature_matrix(pa.chunked_array([column.slice(0, 1), column.slice(1)])) == values).all()
    assert (signature_matrix(column.cast(pa.large_binary())) == values).all()
    with pytest.raises(ValueError, match="null"):
        signature_matrix(pa.array([values[0].tobytes(), None], pa.binary()))
    with pytest.raises(ValueError, match="not one num_perm"):
        signature_matrix(pa.array([values[0].tobytes(), values[1, :3].tobytes()], pa.binary()))
    with pytest.raises(ValueError, match="not one num_perm"):
        signature_matrix(pa.array([b"abcde"], pa.binary()))  # not whole uint32s
    assert band_keys(signature_matrix(column.slice(0, 0)), 2, 7).shape == (0, 2)


def _reference_pairs(rows: list[tuple[int, int, str]]) -> list[tuple[str, str]]:
    """Each bucket (band, key) sorted by id: every member with the first (a star) and with the one
    before it (a chain), as a window over the bucket would give them."""
    buckets: dict[tuple[int, int], list[str]] = {}
    for band, key, doc_id in rows:
        buckets.setdefault((band, key), []).append(doc_id)
    pairs = []
    for members in buckets.values():
        members.sort()
        pairs += [(members[0], member) for member in members[1:]]
        pairs += list(zip(members[1:-1], members[2:], strict=True))
    return sorted(pairs)


def test_bucket_pairs_are_the_stars_and_chains_of_each_band_s_buckets():
    """Random buckets of 1 to 40 members over 5 bands, keys shared across bands (a key means a
    bucket only within its band), ids in random order and with multi-byte characters: the pairs
    equal a plain sort of each bucket's ids."""
    rng = np.random.default_rng(11)
    rows = []
    for number in range(3_000):
        doc_id = f"{rng.integers(0, 10**9):09d}{'é' if number % 7 == 0 else ''}{number}"
        for band in range(5):
            key = int(rng.integers(0, 400)) if rng.random() < 0.3 else int(rng.integers(0, 2**62))
            rows.append((band, key, doc_id))
    rng.shuffle(rows)
    table = pa.table(
        {
            "band": pa.array([r[0] for r in rows], pa.int32()),
            "key": pa.array([r[1] for r in rows], pa.int64()),
            "id": [r[2] for r in rows],
        }
    )
    found = bucket_pairs(table)
    pairs = sorted(zip(found.column("src").to_pylist(), found.column("dst").to_pylist(), strict=True))
    assert pairs == _reference_pairs(rows) and len(pairs) > 1_000
    assert bucket_pairs(table.slice(0, 0)).num_rows == 0
    lonely = pa.table({"band": pa.array([0, 1], pa.int32()), "key": pa.array([5, 5], pa.int64()), "id": ["a", "b"]})
    assert bucket_pairs(lonely).num_rows == 0  # one key in two bands: two buckets of one


def test_batch_functions_round_trip_signatures():
    config = DedupConfig(num_perm=14)
    batch = pa.RecordBatch.from_pylist(
        [
            {"id": "a", "url": "HTTP://Example.com:80/a#x", "text": TEXT, "language": "en"},
            {"id": "b", "url": None, "text": "?!", "language": None},
        ]
    )
    signed = signature_batch(batch, config)
    assert signed.column("signature").null_count == 1
    assert signed.column("canonical_url").to_pylist() == ["http://example.com/a", None]
    banded = band_batch(signed.filter(signed.column("signature").is_valid()), 2, 7)
    assert banded.num_rows == 2 and set(banded.column("id").to_pylist()) == {"a"}
    raw = signed.column("signature")[0].as_py()
    pairs = pa.RecordBatch.from_pylist([{"src": "a", "dst": "a", "src_signature": raw, "dst_signature": raw}])
    assert similarity_batch(pairs).column("similarity").to_pylist() == [1.0]


def test_band_tasks_hold_at_most_two_million_band_rows_whatever_the_corpus():
    from corpus_pipeline.dedup.decisions import BAND_ROWS_PER_TASK, band_task_count

    config = DedupConfig()  # 18 bands
    assert band_task_count(858_219, config) == 8  # 15.4M band rows
    assert band_task_count(0, config) == 1
    for documents in (1, 111_111, 111_112, 10**9):
        tasks = band_task_count(documents, config)
        assert documents * 18 / tasks <= BAND_ROWS_PER_TASK  # and no task more than needed:
        assert tasks == 1 or documents * 18 / (tasks - 1) > BAND_ROWS_PER_TASK
