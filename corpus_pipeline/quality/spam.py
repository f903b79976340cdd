"""Web-spam signals, for Chinese and English pages that pass the generic rules: hijacked titles,
keyword stuffing, link farms and ads-only pages. Each signal is a column and its own keep rule.

The title. Neither extract (trafilatura's main text) nor ingest keeps a `title` column, so the
title is derived from the text's first line: trafilatura's text often starts with the page's
heading (`Mandelplätzchen`, `Woher kommt die dicke Luft?` in web_docs.jsonl), People's Daily
articles and ABC news items start with their headline, and a dataset that keeps a page's `<title>`
puts it first (assumed of the cleaned Common Crawl pages of issue 24). The title is the first
line when it is short (at most `title_max_chars`), does not end in a full stop (a sentence: a
lead paragraph, not a heading) and more text follows; a document whose first line is a paragraph
(a Wikipedia article's lead) has no title and null title signals.

- spam_title_hijack_terms: distinct gambling, adult or betting-brand terms in the title that the
  body never names. A hijacked site keeps an ordinary article and puts the operator in the title
  (`..._华体会`, `【欧宝体育app】_欧宝体育app`, `bt365手机下载`); a news report on a betting firm
  names it in its body too.
  Brand names are found anywhere in the title, glued to other letters too (`12betapp下载`,
  `必威betway中文版`); the generic terms only as whole words.
- spam_title_self_repeat_frac: the share of the title's word units inside an n-gram that two of
  its parts (split at `_ | / - – —`) hold (character 3-grams for Chinese/Japanese titles, word
  2-grams otherwise): an SEO title lists its keyword's variants (`深圳装修公司_深圳装修公司价格`).
- spam_title_repeat_frac: the share of the body's word units covered by n-grams of the title
  (character 4-grams for Chinese/Japanese titles, word 2-grams otherwise): an SEO page repeats its
  title's keywords through the body.
- spam_term_density: gambling, adult and brand terms per 1,000 characters of the whole text, from
  `min_term_matches` matches on (null below: one mention in a short news item is no spam).
- spam_link_line_frac: the share of lines that are a URL or a bare domain with at most 50 other
  characters (a link farm's text is a list of anchors and addresses); null under `min_lines` lines.
- spam_ad_line_frac: the share of lines holding an advertising or contact marker (WeChat, QQ,
  hotline, "order now", or pii's <PHONE> placeholder for a phone number); null under `min_lines`
  lines.
- spam_operator_terms, spam_listing_line_frac: a betting operator named anywhere, and a link
  farm's entry lines (spam_operators.py).

The lists ship under quality/data (SPAM_LISTS.md says where each term comes from and how many).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from pathlib import Path

from corpus_pipeline.quality import spam_operators
from corpus_pipeline.quality.blocklist import DATA_DIR, TermAutomaton, read_entries
from corpus_pipeline.quality.config import SpamConfig
from corpus_pipeline.word_units import CJK_CHARS, Segments, ends_sentence, word_units

SIGNALS = (
    "spam_title_hijack_terms",
    "spam_title_self_repeat_frac",
    "spam_title_repeat_frac",
    "spam_term_density",
    "spam_link_line_frac",
    "spam_ad_line_frac",
    "spam_operator_terms",
    "spam_listing_line_frac",
)
INT_SIGNALS = frozenset({"spam_title_hijack_terms", "spam_operator_terms"})
SHIPPED_TERM_LISTS = ("spam_terms_zh.txt", "spam_terms_adult_zh.txt", "spam_terms_en.txt")
SHIPPED_BRANDS = "spam_brands.txt"
SHIPPED_OPERATOR_PHRASES = "spam_operator_phrases_zh.txt"
SHIPPED_AD_MARKERS = "spam_ad_markers.txt"

_CJK_CHAR = re.compile(f"[{CJK_CHARS}]")
# A first line ending in one of these is a sentence; "?" and "!" end headlines too.
_FULL_STOPS = (".", "。", "．", "｡")
# A URL, or a bare host under a top-level domain that link farms and betting mirrors use.
_TLDS = "com|net|org|cn|cc|vip|top|xyz|info|me|io|tv|app|bet|club|site|online|hk|tw"
_LINK = re.compile(rf"(?:https?://|www\.)\S+|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:{_TLDS})\b")
# What every link holds, found 6x faster than _LINK itself (0.045 against 0.27 ms a page on the
# real pages): _LINK then runs only on the lines holding one.
_LINK_HINT = re.compile(rf"\.(?:{_TLDS})\b|https?://|www\.")
# Phone numbers are pii's to find (pii/phones.py, every country's formats); pii runs before
# quality and redacts each to this placeholder, which counts as an ad marker. With pii off or
# not redacting, the listed markers alone count.
PHONE_PLACEHOLDER = "<phone>"
# What SEO titles put between their keyword's variants.
_TITLE_SEPARATORS = re.compile(r"[_|｜/\\—–-]+")
_TERM, _AD, _OPERATOR = "term", "ad", "operator"  # the payload kinds of the one automaton
# A link farm's line is an anchor and an address: "华体会官网 www.hth123.com", "cheap flights http://...".
# Prose naming a site is no link farm: two real pages of web_docs.jsonl (a VPN review naming
# hide.me, a notice naming its campaign's site) hold an address in over half their lines.
LINK_LINE_MAX_OTHER_CHARS = 50
# Title n-gram lengths: characters carry less than words (a Chinese word is 1-3 characters). The
# self-repeat grams are shorter: a title is 10-30 units.
CHARACTER_NGRAM = 4
WORD_NGRAM = 2
CHARACTER_SELF_NGRAM = 3
WORD_SELF_NGRAM = 2


def term_list_paths(config: SpamConfig) -> list[Path]:
    return [Path(p) for p in config.term_lists] if config.term_lists else [DATA_DIR / n for n in SHIPPED_TERM_LISTS]


def brand_list_path(config: SpamConfig) -> Path:
    return Path(config.brands) if config.brands else DATA_DIR / SHIPPED_BRANDS


def ad_marker_path(config: SpamConfig) -> Path:
    return Path(config.ad_markers) if config.ad_markers else DATA_DIR / SHIPPED_AD_MARKERS


def operator_phrase_path(config: SpamConfig) -> Path:
    return Path(config.operator_phrases) if config.operator_phrases else DATA_DIR / SHIPPED_OPERATOR_PHRASES


def split_title(text: str, max_chars: int) -> tuple[str, str] | None:
    """(title, body) when the first line is a short line with more text after it, else None."""
    stripped = text.lstrip()
    newline = stripped.find("\n")
    if newline < 0:
        return None
    title, body = stripped[:newline].strip(), stripped[newline + 1 :]
    if not title or len(title) > max_chars or not body.strip() or ends_sentence(title, _FULL_STOPS):
        return None
    return title, body


class SpamSignals:
    """One automaton finds every term, brand and ad marker in one pass; it is built on first use
    in each process, never pickled."""

    def __init__(self, config: SpamConfig):
        self.config = config
        # Read now: a missing list fails when the stage is built, not on the first document.
        self._terms = [term for path in term_list_paths(config) for term in read_entries(path)]
        self._brands = read_entries(brand_list_path(config))
        self._markers = read_entries(ad_marker_path(config))
        self._phrases = read_entries(operator_phrase_path(config))
        self._brand_set = frozenset(self._brands)
        self._automaton: TermAutomaton | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_automaton": None}

    def files(self) -> list[Path]:
        c = self.config
        return [*term_list_paths(c), brand_list_path(c), ad_marker_path(c), operator_phrase_path(c)]

    def automaton(self) -> TermAutomaton:
        if self._automaton is None:
            entries = [(t, (_TERM, t)) for t in [*self._terms, *self._brands]]
            entries += [(m, (_AD, m)) for m in [*self._markers, PHONE_PLACEHOLDER]]
            entries += [(p, (_OPERATOR, p)) for p in self._phrases]
            self._automaton = TermAutomaton(entries, anywhere=self._brand_set | frozenset(self._phrases))
        return self._automaton

    def signals(self, seg: Segments) -> dict[str, float | int | None]:
        automaton = self.automaton()
        c = self.config
        lower = seg.lower
        matches = list(automaton.find(lower))
        terms = sum(kind == _TERM for _start, _end, (kind, _) in matches)
        density = 1000.0 * terms / max(len(seg.text), 1) if terms >= c.min_term_matches else None
        hijack = self_repeat = repeat = None
        parts = split_title(seg.text, c.title_max_chars)
        if parts is not None:
            title, body = parts
            title_lower, body_lower = title.lower(), body.lower()
            named = {term for _s, _e, (kind, term) in automaton.find(title_lower) if kind == _TERM}
            hijack = sum(term not in body_lower for term in named)
            title_units = word_units(title_lower)
            self_repeat = title_self_repeat_frac(title_lower)
            # The body's units are the text's after the title's (the text is split once, in
            # words.segment), lower-cased here as the title's are.
            body_units = seg.words[len(title_units) :]
            if not _is_character_title(title_units):  # characters have no case
                body_units = [unit.lower() for unit in body_units]
            repeat = title_repeat_frac(title_units, body_units, c.min_body_units)
        phrases = [term for _s, _e, (kind, term) in matches if kind == _OPERATOR]
        brands = [(start, end, term) for start, end, (kind, term) in matches if term in self._brand_set]
        operators = spam_operators.operator_terms(lower, phrases, brands)
        link_share = ad_share = None
        if len(seg.lines) >= c.min_lines:
            link_share, ad_share = _line_shares(lower, [start for start, _e, (kind, _) in matches if kind == _AD])
        return {
            "spam_title_hijack_terms": hijack,
            "spam_title_self_repeat_frac": self_repeat,
            "spam_title_repeat_frac": repeat,
            "spam_term_density": density,
            "spam_link_line_frac": link_share,
            "spam_ad_line_frac": ad_share,
            "spam_operator_terms": operators,
            "spam_listing_line_frac": spam_operators.listing_line_frac(seg.lines, c.min_lines),
        }


def _line_shares(lower: str, ad_marker_starts: list[int]) -> tuple[float, float]:
    """(link lines, ad lines) over the non-empty lines, from matches found in the whole text (one
    regex scan each, not one per line)."""
    lines = lower.split("\n")
    starts = [0, *accumulate(len(line) + 1 for line in lines[:-1])]
    non_empty = sum(1 for line in lines if line.strip())

    def line_of(position: int) -> int:
        return bisect_right(starts, position) - 1

    ad_lines = {line_of(position) for position in ad_marker_starts}
    link_lines = 0
    for line in {line_of(m.start()) for m in _LINK_HINT.finditer(lower)}:
        text = lines[line].strip()
        chars = sum(m.end() - m.start() for m in _LINK.finditer(text))
        link_lines += 0 < chars and len(text) - chars <= LINK_LINE_MAX_OTHER_CHARS
    return link_lines / non_empty, len(ad_lines) / non_empty


def _is_character_title(units: list[str]) -> bool:
    return 2 * sum(bool(_CJK_CHAR.fullmatch(unit)) for unit in units) >= len(units)


def _cover(covered: bytearray, start: int, n: int) -> None:
    covered[start : start + n] = b"\x01" * n


def title_self_repeat_frac(title_lower: str) -> float | None:
    """Share of the title's units inside an n-gram that two or more of its separated parts hold
    (`深圳装修公司_深圳装修公司价格`: parts split at _ | / - – —). A repeat within one part is
    rhetoric, not SEO: `成也规模败也规模`, `一场雪不仅仅是一场雪` (People's Daily headlines)."""
    parts = [word_units(part) for part in _TITLE_SEPARATORS.split(title_lower)]
    units = [unit for part in parts for unit in part]
    n = CHARACTER_SELF_NGRAM if _is_character_title(units) else WORD_SELF_NGRAM
    if len(units) < n:
        return None
    holders: dict[tuple[str, ...], set[int]] = {}
    for number, part in enumerate(parts):
        for i in range(len(part) - n + 1):
            holders.setdefault(tuple(part[i : i + n]), set()).add(number)
    covered = 0
    for part in parts:
        marks = bytearray(len(part))
        for i in range(len(part) - n + 1):
            if len(holders[tuple(part[i : i + n])]) > 1:
                _cover(marks, i, n)
        covered += sum(marks)
    return covered / len(units)


def title_repeat_frac(title_units: list[str], body_units: list[str], min_body_units: int) -> float | None:
    """Share of the body's word units inside an occurrence of one of the title's n-grams; None
    when the body is too short to say or the title too short to have an n-gram."""
    if len(body_units) < min_body_units:
        return None
    n = CHARACTER_NGRAM if _is_character_title(title_units) else WORD_NGRAM
    grams = {tuple(title_units[i : i + n]) for i in range(len(title_units) - n + 1)}
    if not grams:
        return None
    firsts = {gram[0] for gram in grams}  # a set lookup per unit, a tuple only where one may start
    covered = bytearray(len(body_units))
    for i in range(len(body_units) - n + 1):
        if body_units[i] in firsts and tuple(body_units[i : i + n]) in grams:
            _cover(covered, i, n)
    return sum(covered) / len(body_units)
