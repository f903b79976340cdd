"""Keep rules of the quality stage: the bounds on signals, their defaults, and the changes a
document's domain makes to them (QualityConfig in config.py holds them)."""

from __future__ import annotations

from pydantic import Field

from corpus_pipeline.config_base import Strict


class SignalBounds(Strict):
    """Keep a document when min <= signal <= max; an absent bound does not limit, and a signal that
    is null for a document (no stop-word list for its language, say) does not decide either."""

    min: float | None = None
    max: float | None = None
    enabled: bool = True


class KeepRule(SignalBounds):
    """One keep rule of the quality stage; its key in `QualityConfig.rules` is its drop reason.
    `by_language` overrides, for documents of that language, the fields it sets (min, max, enabled)."""

    signal: str
    by_language: dict[str, SignalBounds] = Field(default_factory=dict)


def _rule(signal: str, min: float | None = None, max: float | None = None, **by_language: dict) -> dict:
    return {"signal": signal, "min": min, "max": max, "by_language": by_language}


_CJK_OFF = {"zh": {"enabled": False}, "ja": {"enabled": False}}
# Gopher's duplicated n-gram bounds (n, web, zh/ja on characters); see the rules below.
_DUP_NGRAM_LIMITS = (
    (5, 0.15, 0.35),
    (6, 0.14, 0.32),
    (7, 0.13, 0.29),
    (8, 0.12, 0.26),
    (9, 0.11, 0.23),
    (10, 0.10, 0.20),
)
# The default keep rules, in the order they are checked (the first that fails names the drop).
# English thresholds: Gopher (Rae et al. 2021, appendix A), C4 and FineWeb as published; zh/ja
# bounds are on character units (word_units.py), calibrated on People's Daily articles in
# tests/quality/test_quality_realdata.py. Names are the signal names: what was out of bounds.
DEFAULT_QUALITY_RULES: dict[str, dict] = {
    "gopher_word_count": _rule("gopher_word_count", 50, 100_000, zh={"min": 80, "max": 200_000}, ja={"min": 80}),
    # Korean is space-separated, but each Hangul block is a syllable: words run 2-3 blocks long.
    "gopher_mean_word_length": _rule("gopher_mean_word_length", 3, 10, **_CJK_OFF, ko={"min": 1.5}),
    "gopher_symbol_word_ratio": _rule("gopher_symbol_word_ratio", max=0.1),
    "gopher_bullet_lines_frac": _rule("gopher_bullet_lines_frac", max=0.9),
    "gopher_ellipsis_lines_frac": _rule("gopher_ellipsis_lines_frac", max=0.3),
    "gopher_alpha_words_frac": _rule("gopher_alpha_words_frac", min=0.8),
    "gopher_stop_words": _rule("gopher_stop_words", min=2),
    "gopher_dup_line_frac": _rule("gopher_dup_line_frac", max=0.3),
    "gopher_dup_para_frac": _rule("gopher_dup_para_frac", max=0.3),
    "gopher_dup_line_char_frac": _rule("gopher_dup_line_char_frac", max=0.2),
    "gopher_dup_para_char_frac": _rule("gopher_dup_para_char_frac", max=0.2),
    **{
        f"gopher_top_{n}gram_char_frac": _rule(f"gopher_top_{n}gram_char_frac", max=limit)
        for n, limit in ((2, 0.20), (3, 0.18), (4, 0.16))
    },
    # Chinese/Japanese n-grams are of characters (a word is 1-3 of them), and news repeats names and
    # set phrases (中华人民共和国): each zh/ja bound lies above the 99.5th percentile of the signal
    # on People's Daily articles (dup 5-gram: 0.309, 10-gram: 0.188).
    **{
        f"gopher_dup_{n}gram_char_frac": _rule(
            f"gopher_dup_{n}gram_char_frac", max=limit, zh={"max": cjk_limit}, ja={"max": cjk_limit}
        )
        for n, limit, cjk_limit in _DUP_NGRAM_LIMITS
    },
    # C4's page rules, on the lines its line filters leave (quality/c4.py), as its code does.
    "c4_lorem_ipsum_lines": _rule("c4_lorem_ipsum_lines", max=0),
    "c4_curly_bracket_lines": _rule("c4_curly_bracket_lines", max=0),
    # C4's "at least 5 sentences" on those lines: opt-in (`enabled: true`). Off by default: it
    # would drop 221 of the 2,581 People's Daily articles (8.6%; 189 of them kept by every other
    # rule) and 566 of the 2,852 ABC news pages (19.8%): short reports are ordinary text. (With
    # C4's English-only end marks no Chinese line survives at all: 0 of People's Daily's 19,484.)
    "c4_sentences": {**_rule("c4_sentences", min=5), "enabled": False},
    "fineweb_line_punct_ratio": _rule("fineweb_line_punct_ratio", min=0.12),
    "fineweb_short_line_ratio": _rule("fineweb_short_line_ratio", max=0.67),
    "fineweb_dup_line_char_ratio": _rule("fineweb_dup_line_char_ratio", max=0.01),
    "fineweb_list_ratio": _rule("fineweb_list_ratio", max=0.3),
    "quality_classifier_score": _rule("quality_classifier_score", min=0.5),
    # Spam (quality/spam.py), calibrated on benchmarks/bench_spam.py's development set (ordinary
    # People's Daily, ABC and web pages against spam generated from other such documents): a
    # title naming a betting, gambling or adult term its body never names is hijacked;
    "spam_title_hijack_terms": _rule("spam_title_hijack_terms", max=0),
    # an SEO title repeats its keyword across its parts (`X_X价格_X排名`): of the titled ordinary
    # documents (822 of the development set's two halves, 5,404 People's Daily and ABC pages) none
    # passes 0.34, of the generated keyword-stuffed ones most reach 0.5 to 0.86;
    "spam_title_self_repeat_frac": _rule("spam_title_self_repeat_frac", max=0.5),
    # ordinary titles cover at most 0.30 of their body with their n-grams (99th percentile 0.15,
    # the same documents), a page stuffed with them more;
    "spam_title_repeat_frac": _rule("spam_title_repeat_frac", max=0.45),
    # 5+ gambling/adult/brand terms at more than 10 per 1,000 characters: a People's Daily report
    # on a slot-machine crackdown names 5 in 560 characters (8.9 per 1,000);
    "spam_term_density": _rule("spam_term_density", max=10.0),
    # half the lines addresses: a link farm; half the lines offers and contacts: an ads-only page.
    "spam_link_line_frac": _rule("spam_link_line_frac", max=0.5),
    "spam_ad_line_frac": _rule("spam_ad_line_frac", max=0.5),
    # A betting operator named anywhere (quality/spam_operators.py): none of the 2,581 People's
    # Daily articles, 2,852 ABC news pages or 1,432 real web pages names one.
    "spam_operator_terms": _rule("spam_operator_terms", max=0),
    # spam_listing_line_frac has no default bound: a People's Daily letters page reaches 0.14 with
    # its dates, the one real link farm at hand (a lottery site) 0.12.
}


def merge_rules(defaults: dict, given: dict) -> dict:
    """`given` over `defaults`, key by key at every depth."""
    merged = dict(defaults)
    for key, value in given.items():
        old = merged.get(key)
        merged[key] = merge_rules(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return merged


class KeepRulePatch(Strict):
    """A domain's change to one keep rule: only the fields it sets, and not to null, replace the
    rule's own (a bound is lifted with a far value or the rule turned off with `enabled: false`);
    `by_language` merges language by language. A rule new to the domain must name its signal."""

    signal: str | None = None
    min: float | None = None
    max: float | None = None
    enabled: bool | None = None
    by_language: dict[str, SignalBounds] | None = None


_OFF = {"enabled": False}
# Rule sets by a document's `domain` column: each domain's patches apply over `quality.rules`, and a
# domain not listed (web, general, or none) is judged by `quality.rules` alone, as before.
# Encyclopedia: on gensim's English Wikipedia articles (benchmarks/bench_spam_domains.py) the web
# rules drop articles for their lists, tables and headings: short lines without a stop
# (fineweb_line_punct_ratio, fineweb_short_line_ratio, fineweb_list_ratio, c4 is not a rule), and
# the Vietnamese date articles ("Ngày N tháng 3") fail gopher_alpha_words_frac on their
# year numbers. On the vi, ja, hy, uk and el dumps (benchmarks/wiki_residue.py, 1,776 articles):
# - fineweb_dup_line_char_ratio (36 drops, 0.0100-0.061 against 0.01): the repeated lines are
#   section headings (`Tháng 1` under events, births and deaths of a year; `Народились`), a
#   song's chorus; a copied block is still dropped by gopher_dup_line/para_char_frac (0.2).
# - gopher_dup_{5..10}gram_char_frac (25 drops): an article names its subject throughout (`Tòa án
#   Quốc tế` 4 syllables, `著作権の保護期間` 8 characters), and a year's article starts each
#   event with its date; the Vietnamese unit is a syllable, the Japanese one a character, so a
#   5-gram is a name. Twice the web (and the zh/ja) bound: on 5-grams the articles reach 0.25
#   (vi), 0.27 (uk), 0.62 (ja); the median is 0.014 (en), 0.040 (vi), 0.195 (ja).
# - c4_curly_bracket_lines (13): set notation, code in articles on C, AWK or CSS, a
#   pronunciation `{կանե}`; ingest removes the markup (0 articles with residue in the 7 dumps).
# Word count and blocklists stay: a stub or a disambiguation page is dropped (wiki_residue.py
# counts those apart), and so are the line and paragraph repeats of a copied list.
# News: headlines, datelines and bylines are short lines without a stop. Books: verse and dialogue.
# Code: none of the prose rules mean anything on source code; repetition and size still do.
DEFAULT_RULES_BY_DOMAIN: dict[str, dict[str, dict]] = {
    "encyclopedia": {
        "fineweb_line_punct_ratio": _OFF,
        "fineweb_short_line_ratio": _OFF,
        "fineweb_list_ratio": _OFF,
        "gopher_bullet_lines_frac": _OFF,
        "gopher_alpha_words_frac": {"min": 0.5},
        "gopher_symbol_word_ratio": {"max": 0.3},
        "spam_title_repeat_frac": _OFF,  # an article names its subject throughout
        "fineweb_dup_line_char_ratio": _OFF,
        "c4_curly_bracket_lines": _OFF,
        **{
            f"gopher_dup_{n}gram_char_frac": {
                "max": 2 * limit,
                "by_language": {"zh": {"max": 2 * cjk}, "ja": {"max": 2 * cjk}},
            }
            for n, limit, cjk in _DUP_NGRAM_LIMITS
        },
    },
    "news": {
        "fineweb_line_punct_ratio": _OFF,
        "fineweb_short_line_ratio": _OFF,
    },
    "books": {
        "fineweb_line_punct_ratio": _OFF,
        "fineweb_short_line_ratio": _OFF,
        "gopher_ellipsis_lines_frac": _OFF,
        "spam_title_repeat_frac": _OFF,
    },
    "code": {
        name: _OFF
        for name in (
            "gopher_mean_word_length",
            "gopher_symbol_word_ratio",
            "gopher_bullet_lines_frac",
            "gopher_alpha_words_frac",
            "gopher_stop_words",
            "c4_curly_bracket_lines",
            "fineweb_line_punct_ratio",
            "fineweb_short_line_ratio",
            "fineweb_list_ratio",
            "spam_title_repeat_frac",
            "spam_link_line_frac",
        )
    },
}
