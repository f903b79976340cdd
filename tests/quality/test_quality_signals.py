"""Each signal against values worked out by hand, English and Chinese."""

from __future__ import annotations

import random
import re

import pytest

from corpus_pipeline import word_units as words
from corpus_pipeline.quality import c4, fineweb, gopher
from corpus_pipeline.word_units import STOP_WORDS, ends_sentence, segment, stop_word_set, word_units

EN = "The quick brown fox jumps over the lazy dog.\n- a list item here\nWait for it...\n# 42 is the answer"
ZH = "我们的生活很好。\n今天天气不错，我们去公园了。"
EN_STOP = stop_word_set(STOP_WORDS["en"])
ZH_STOP = stop_word_set(STOP_WORDS["zh"])


def test_word_units_english_chinese_and_marks():
    assert word_units("Hello, world. Don’t stop-gap 3.5") == ["Hello", "world", "Don’t", "stop", "gap", "3", "5"]
    assert word_units("我们的iPhone 15很好。") == ["我", "们", "的", "iPhone", "15", "很", "好"]
    # Bengali vowel signs are combining marks: they stay inside their word.
    assert word_units("আসনের সংসদ সদস্য") == ["আসনের", "সংসদ", "সদস্য"]


def test_text_without_cjk_or_marks_has_the_same_words_by_the_plain_pattern():
    # word_units takes `\w+(?:['’]\w+)*` for such text: the words of WORD, checked on random text
    # of Latin, Cyrillic, Greek and Arabic letters, digits, `_`, apostrophes and punctuation.
    alphabet = "aZéßж Ωى_07'’-.,!?\t\n" + "".join(map(chr, range(0xC0, 0x100)))
    rng = random.Random(4)
    for _ in range(5000):
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 30)))
        assert words._CJK_OR_MARK.search(text) is None
        assert word_units(text) == words.WORD.findall(text), repr(text)
    assert words._CJK_OR_MARK.search("我") and words._CJK_OR_MARK.search("e\u0301")


def _reference_ngram_signals(units: list[str]) -> dict[str, float]:
    """The definitions in gopher.py, on tuples of words: no hashing, no rounds."""
    total = sum(map(len, units))
    signals = {}
    for n in gopher.TOP_NGRAM_SIZES:
        grams = [tuple(units[i : i + n]) for i in range(len(units) - n + 1)]
        counts = {gram: grams.count(gram) for gram in grams}
        top = max(counts.values(), default=0)
        chars = max((sum(map(len, gram)) for gram, seen in counts.items() if seen == top), default=0)
        signals[f"gopher_top_{n}gram_char_frac"] = min(1.0, top * chars / total) if top >= 2 else 0.0
    for n in gopher.DUP_NGRAM_SIZES:
        seen, covered = set(), set()
        for i in range(len(units) - n + 1):
            gram = tuple(units[i : i + n])
            if gram in seen:
                covered.update(range(i, i + n))
            seen.add(gram)
        signals[f"gopher_dup_{n}gram_char_frac"] = sum(len(units[i]) for i in covered) / total if total else 0.0
    return signals


def test_ngram_signals_equal_their_definition_on_random_repetitive_text():
    rng = random.Random(9)
    for _ in range(1500):
        vocabulary = [rng.choice(["a", "bb", "ccc", "中", "dddd"]) + str(i) for i in range(rng.randint(1, 6))]
        units = rng.choices(vocabulary, k=rng.choice([0, 1, 2, 5, 11, 30, 120]))
        if units and rng.random() < 0.5:  # repeated blocks, as boilerplate makes them
            block = units[: rng.randint(1, 12)]
            units = units + block * rng.randint(1, 4) + units[: rng.randint(0, 15)]
        assert gopher.ngram_signals(units) == _reference_ngram_signals(units), units


def test_segments_lines_paragraphs_symbols_and_repeats():
    seg = segment("| Home | News |\n\nalpha beta\nalpha beta\n  \n- x")
    assert seg.lines == ["| Home | News |", "alpha beta", "alpha beta", "- x"]
    assert seg.paragraphs == ["| Home | News |", "alpha beta\nalpha beta", "- x"]
    assert seg.symbol_tokens == 4  # three "|" and the "-"; a comma glued to a word is no token
    assert (seg.dup_lines, seg.dup_line_chars) == (1, 10)


def test_gopher_quality_english_by_hand():
    signals = gopher.quality_signals(segment(EN), EN_STOP)
    assert signals["gopher_word_count"] == 20
    assert signals["gopher_mean_word_length"] == pytest.approx(70 / 20)
    assert signals["gopher_symbol_word_ratio"] == pytest.approx(1 / 20)  # one "#", one "..."
    assert signals["gopher_bullet_lines_frac"] == pytest.approx(1 / 4)
    assert signals["gopher_ellipsis_lines_frac"] == pytest.approx(1 / 4)
    # 20 words, one of them digits only ("42"); 2 standalone symbol tokens ("-", "#")
    assert signals["gopher_alpha_words_frac"] == pytest.approx(19 / 22)
    assert signals["gopher_stop_words"] == 1  # The, the, the: one distinct stop word, as Gopher counts


def test_gopher_quality_chinese_by_hand():
    signals = gopher.quality_signals(segment(ZH), ZH_STOP)
    assert signals["gopher_word_count"] == 19  # characters, punctuation excluded
    assert signals["gopher_mean_word_length"] == 1.0
    assert signals["gopher_alpha_words_frac"] == 1.0
    assert signals["gopher_stop_words"] == 5  # 我 们 的 / 不 我 们 了: five distinct


def test_no_stop_word_list_gives_a_null_signal():
    assert gopher.quality_signals(segment(EN), None)["gopher_stop_words"] is None


def test_gopher_ngram_repetition_by_hand():
    # lengths: one 3, two 3, three 5, four 4; 37 word characters in all
    signals = gopher.ngram_signals("one two three one two three one two three four".split())
    # "one two" and "two three" both occur 3 times: the longer, 3 x 8 characters
    assert signals["gopher_top_2gram_char_frac"] == pytest.approx(24 / 37)
    assert signals["gopher_top_3gram_char_frac"] == pytest.approx(33 / 37)  # "one two three" x 3
    assert signals["gopher_top_4gram_char_frac"] == pytest.approx(32 / 37)  # "three one two three" x 2
    # 5-grams at 3 and 4 repeat those at 0 and 1: words 3..8 are covered once, 22 characters
    assert signals["gopher_dup_5gram_char_frac"] == pytest.approx(22 / 37)
    assert signals["gopher_dup_6gram_char_frac"] == pytest.approx(22 / 37)
    assert all(signals[f"gopher_dup_{n}gram_char_frac"] == 0.0 for n in range(7, 11))


def test_ngrams_of_chinese_characters_and_no_repetition():
    signals = gopher.ngram_signals(word_units("我爱北京我爱北京"))
    assert signals["gopher_top_2gram_char_frac"] == pytest.approx(2 * 2 / 8)  # 我爱 / 爱北 / 北京 x 2
    assert signals["gopher_top_4gram_char_frac"] == pytest.approx(2 * 4 / 8)  # 我爱北京 x 2
    assert signals["gopher_dup_5gram_char_frac"] == 0.0  # 8 characters: no 5-gram occurs twice
    unique = gopher.ngram_signals("every word here is different".split())
    assert set(unique.values()) == {0.0}
    assert set(gopher.ngram_signals(["a"]).values()) == {0.0}


def test_top_ngram_fraction_is_capped_for_overlapping_repeats():
    assert gopher.ngram_signals(["a"] * 4)["gopher_top_2gram_char_frac"] == 1.0  # 3 x 2 chars of 4


def test_gopher_line_and_paragraph_repetition_by_hand():
    text = "alpha beta\ngamma\nalpha beta\n\nalpha beta\ndelta"
    signals = gopher.repetition_signals(segment(text))
    assert signals["gopher_dup_line_frac"] == pytest.approx(2 / 5)
    assert signals["gopher_dup_line_char_frac"] == pytest.approx(20 / len(text))
    assert signals["gopher_dup_para_frac"] == 0.0
    text = "p one\n\np two\n\np one"
    signals = gopher.repetition_signals(segment(text))
    assert signals["gopher_dup_para_frac"] == pytest.approx(1 / 3)
    assert signals["gopher_dup_para_char_frac"] == pytest.approx(5 / len(text))


def test_c4_signals_by_hand():
    text = (
        "Please enable JavaScript to view.\nLorem ipsum dolor sit amet.\nfunction() { return 1; }\n"
        "Read our Privacy Policy.\n我们的隐私政策。"
    )
    signals = c4.signals(segment(text))
    assert signals == {
        "c4_terminal_punct_lines_frac": pytest.approx(4 / 5),
        "c4_javascript_lines": 1,
        "c4_lorem_ipsum_lines": 1,
        # the code line has no terminal punctuation: C4 removes it before it looks for "{"
        "c4_curly_bracket_lines": 0,
        "c4_policy_lines": 2,
        "c4_kept_lines_frac": 0.0,  # javascript, lorem ipsum, no end mark, policy, policy
        "c4_sentences": 0,
    }


def test_every_policy_substring_holds_a_hint():
    # The `in` pre-check skips the policy regex only where none of POLICY_HINTS occurs; each
    # substring the regex looks for contains one, so no line it would count is missed.
    assert all(any(hint in substring for hint in c4.POLICY_HINTS) for substring in c4.POLICY_SUBSTRINGS)
    assert len(c4.POLICY_HINTS) < len(c4.POLICY_SUBSTRINGS)
    lower = "see our cookie policy.\nwe use cookies here\nterms of use\n使用cookie\nnothing"
    assert c4.signals(segment(lower))["c4_policy_lines"] == sum(
        bool(re.search(c4._POLICY, line)) for line in lower.split("\n")
    )


def test_terminal_punctuation_looks_past_quotes_and_credits():
    stops = fineweb.TERMINAL_PUNCTUATION
    assert ends_sentence('He said "no."', stops) and ends_sentence("他说：“好。”", stops)
    assert ends_sentence("为寒冷的冬夜增添了几分暖意。（新华社记者刘宇摄）", stops)
    assert not ends_sentence("（新华社记者刘宇摄）", stops) and not ends_sentence("Home", stops)


def test_fineweb_signals_by_hand():
    text = (
        "Short line\nThis is a much longer line that ends with a full stop.\n"
        "Another long line without punctuation at the end here\nShort line"
    )
    signals = fineweb.signals(segment(text), short_line_chars=30)
    words = 2 + 12 + 9 + 2
    assert signals == {
        "fineweb_line_punct_ratio": pytest.approx(1 / 4),
        "fineweb_short_line_ratio": pytest.approx(2 / 4),
        "fineweb_dup_line_char_ratio": pytest.approx(10 / (len(text) - 3)),
        "fineweb_list_ratio": pytest.approx(3 / words),
    }


def test_fineweb_short_lines_in_chinese_use_the_language_length():
    signals = fineweb.signals(segment(ZH), short_line_chars=10)
    assert signals["fineweb_short_line_ratio"] == pytest.approx(1 / 2)  # 8 characters, then 14
    assert signals["fineweb_line_punct_ratio"] == 1.0
