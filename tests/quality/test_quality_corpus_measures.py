"""Vocabulary coverage, character entropy and the content hash, by hand; the shipped vocabularies."""

from __future__ import annotations

import gzip
import math

import pytest

from corpus_pipeline.quality.corpus_measures import char_entropy, content_hash, vocab_coverage
from corpus_pipeline.quality.reference_vocab import load_vocabulary, shipped_path, vocabulary_for
from corpus_pipeline.word_units import word_units


def coverage(text, vocabulary, language="en", character=False):
    return vocab_coverage(text, word_units(text), frozenset(vocabulary), character, language)


def test_coverage_counts_lower_case_words_and_english_inflections():
    # units: cat donated zzz to the cats ("The" and "Zed" are capitalised, "42" has no letter)
    text = "The cat donated zzz to the cats, Zed said 42"
    assert coverage(text, {"the", "cat", "donate", "said"}) == pytest.approx(5 / 7)
    # inflections are English only
    assert coverage(text, {"the", "cat", "donate", "said"}, language="de") == pytest.approx(3 / 7)


def test_coverage_of_chinese_is_per_character_and_null_without_units():
    assert coverage("中文好A，ok", {"中", "文"}, "zh", character=True) == pytest.approx(2 / 3)
    assert coverage("ABC 123", {"abc"}) is None


def test_char_entropy_in_bits_per_character():
    assert char_entropy("aabb") == pytest.approx(1.0)
    assert char_entropy("abcd") == pytest.approx(2.0)
    assert char_entropy("aaaa") == 0.0 and char_entropy("") == 0.0
    assert char_entropy("中文中文") == pytest.approx(1.0)
    assert char_entropy("a😀") == pytest.approx(1.0)  # beyond the BMP: counted by np.unique
    text = "the cat sat on the mat"
    expected = -sum(text.count(c) / len(text) * math.log2(text.count(c) / len(text)) for c in set(text))
    assert char_entropy(text) == pytest.approx(expected)


def test_content_hash_folds_case_and_whitespace_only():
    assert content_hash("Hello  World\n") == content_hash("hello world")
    assert content_hash("hello world") != content_hash("hello, world")
    assert -(2**63) <= content_hash("x" * 1000) < 2**63


def test_shipped_vocabularies_cover_clean_text(tmp_path):
    english, chinese = vocabulary_for("en", {}), vocabulary_for("zh", {})
    assert len(english) > 80_000 and {"the", "library", "council"} <= english
    assert len(chinese) > 5_000 and {"的", "国", "國"} <= chinese  # simplified and traditional
    assert vocabulary_for("de", {}) is None
    assert shipped_path("en").stat().st_size + shipped_path("zh").stat().st_size <= 300_000
    text = "The council voted on Tuesday to expand the public library and extend its opening hours."
    assert coverage(text, english) == 1.0


def test_a_configured_vocabulary_replaces_the_shipped_one(tmp_path):
    plain = tmp_path / "de.txt"
    plain.write_text("# comment\nhaus\t12\nbaum\n", encoding="utf-8")
    assert vocabulary_for("de", {"de": str(plain)}) == {"haus", "baum"}
    packed = tmp_path / "en.txt.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as out:
        out.write("cat\n")
    assert vocabulary_for("en", {"en": str(packed)}) == {"cat"}
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        load_vocabulary(str(tmp_path / "nope.txt"))


def test_a_vocabulary_file_reads_as_its_lines_would(tmp_path):
    # The loader splits the whole file at once; what it returns is the per-line definition: first
    # tab-separated field, stripped, neither empty nor a `#` comment, with \r\n and \r line ends.
    body = "a\tfreq\r\nb\r\n# c\n  #d\t1\n\n e \t x\nf\rg\n\u2028h\n#\n\t\n x\ty\tz\n\u00a0i\u00a0"
    path = tmp_path / "odd.txt"
    path.write_bytes(body.encode("utf-8"))
    with open(path, encoding="utf-8") as lines:
        expected = {e for line in lines if (e := line.split("\t", 1)[0].strip()) and not e.startswith("#")}
    assert load_vocabulary(str(path)) == expected == {"a", "b", "e", "f", "g", "h", "x", "i"}
