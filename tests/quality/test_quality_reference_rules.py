"""Each standard rule against values worked out by hand from its paper's definition (Gopher: Rae
et al. 2021, appendix A; C4: Raffel et al. 2020, section 2.2 and tensorflow_datasets' c4_utils),
on texts small enough to count on paper. Where ours differs on purpose (CJK units, the n-gram
denominator) the test says so and checks the difference."""

from __future__ import annotations

import pytest

from corpus_pipeline.quality import c4, gopher
from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.word_units import STOP_WORDS, segment, stop_word_set

EN_STOP = stop_word_set(STOP_WORDS["en"])


def test_stop_words_are_counted_distinct():
    # Gopher: "at least two of the following English words: the, be, to, of, and, that, have, with"
    one = "The error of the page: the file of the module of the app was not found of course"
    two = "The cat sat with a hat"
    assert gopher.quality_signals(segment(one), EN_STOP)["gopher_stop_words"] == 2  # the, of
    assert gopher.quality_signals(segment("Of of OF of"), EN_STOP)["gopher_stop_words"] == 1
    assert gopher.quality_signals(segment(two), EN_STOP)["gopher_stop_words"] == 2  # the, with


def test_gopher_quality_values_by_hand():
    text = "• alpha beta\n• gamma delta 12 ...\nepsilon # zeta"
    # words: alpha beta gamma delta 12 epsilon zeta = 7 (5+4+5+5+2+7+4 = 32 characters)
    signals = gopher.quality_signals(segment(text), EN_STOP)
    assert signals["gopher_word_count"] == 7
    assert signals["gopher_mean_word_length"] == pytest.approx(32 / 7)
    assert signals["gopher_symbol_word_ratio"] == pytest.approx(1 / 7)  # one "#", one "...": max
    assert signals["gopher_bullet_lines_frac"] == pytest.approx(2 / 3)
    assert signals["gopher_ellipsis_lines_frac"] == pytest.approx(1 / 3)
    # whitespace tokens: 7 words, "•" twice, "...", "#" = 11; with a letter: 6 (not "12")
    assert signals["gopher_alpha_words_frac"] == pytest.approx(6 / 11)


def test_duplicate_line_and_paragraph_fractions_by_hand():
    text = "a b c\nd e\na b c\n\na b c\nd e"  # 26 characters, 5 non-empty lines
    signals = gopher.repetition_signals(segment(text))
    assert signals["gopher_dup_line_frac"] == pytest.approx(3 / 5)  # lines 3, 4 repeat "a b c"; 5 repeats "d e"
    assert signals["gopher_dup_line_char_frac"] == pytest.approx((5 + 5 + 3) / 26)  # Gopher: over the text
    assert signals["gopher_dup_para_frac"] == 0.0  # "a b c\nd e\na b c" and "a b c\nd e" differ


def test_ngram_fractions_use_word_characters_not_the_whole_text():
    # Gopher divides by the document's characters; we divide by its word characters (README's
    # rule table: the numerator counts word characters only, so the fraction does not move with
    # spacing and punctuation). "aa bb cc dd ee" twice: 10 word characters of 20, 29 characters of text.
    text = "aa bb cc dd ee, aa bb cc dd ee"
    signals = gopher.repetition_signals(segment(text))
    assert signals["gopher_dup_5gram_char_frac"] == pytest.approx(10 / 20)
    paper = 10 / len(text)
    assert signals["gopher_dup_5gram_char_frac"] / paper == pytest.approx(len(text) / 20)  # 1.5x here
    # top 2-gram: "aa bb" x 2 = 8 characters; every 2-gram occurs twice and all are 4 long
    assert signals["gopher_top_2gram_char_frac"] == pytest.approx(8 / 20)


ARTICLE = (
    "Home | News | Contact\n"  # no end mark: removed
    "Click here.\n"  # 2 words: removed
    "var x = {a: 1}\n"  # code without end mark: removed before C4 looks for "{"
    "Enable JavaScript to see the map.\n"  # javascript: removed
    "We use cookies on this site.\n"  # policy: removed
    "The council met on Monday. It voted twice.\n"  # 2 sentences
    "Mr Lee said the plan was ready! Work starts soon.\n"  # 2 sentences
    "Read more...\n"  # ellipsis: removed
    "Residents were told in a letter [1].\n"  # citation cut, 1 sentence
)


def test_c4_line_filters_and_sentences_by_hand():
    signals = c4.signals(segment(ARTICLE))
    assert signals["c4_kept_lines_frac"] == pytest.approx(3 / 9)
    assert signals["c4_sentences"] == 5
    assert signals["c4_curly_bracket_lines"] == 0  # C4 never sees the code line
    assert signals["c4_javascript_lines"] == 1 and signals["c4_policy_lines"] == 1


def test_c4_page_rules_on_surviving_lines():
    assert c4.signals(segment("Use the map {x} below to find it."))["c4_curly_bracket_lines"] == 1
    assert c4.signals(segment("Lorem ipsum dolor sit amet."))["c4_lorem_ipsum_lines"] == 1
    assert c4.signals(segment("lorem ipsum dolor"))["c4_lorem_ipsum_lines"] == 0  # removed first: no end mark
    # a line with both "javascript" and "{" is removed for javascript before the "{" check, as in C4
    assert c4.signals(segment("Call javascript:go({a: 1}) to start it.\n"))["c4_curly_bracket_lines"] == 0


def test_c4_line_filters_on_chinese_count_characters():
    text = "新华社北京电\n今天，北京下了第一场雪。市民纷纷出门赏雪！\n好。\n"
    signals = c4.signals(segment(text))
    # the dateline has no end mark; "好。" is 1 character (< 3 words); the middle line stays
    assert signals["c4_kept_lines_frac"] == pytest.approx(1 / 3)
    assert signals["c4_sentences"] == 2  # 。 and ！


def test_sentence_rule_is_opt_in():
    stage = QualityStage()
    assert all(name != "c4_sentences" for name, *_ in stage.rules.checks("en"))
    rules = {"c4_sentences": {"signal": "c4_sentences", "min": 5, "enabled": True}}
    enabled = QualityStage(QualityConfig(rules=rules))
    assert ("c4_sentences", "c4_sentences", 5, None) in enabled.rules.checks("en")
    assert enabled.rules.verdict({"c4_sentences": 4}, "en").reason == "c4_sentences"
    assert enabled.rules.verdict({"c4_sentences": 5}, "en") is None
    assert stage.rules.verdict({"c4_sentences": 4}, "en") is None
