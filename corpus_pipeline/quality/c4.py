"""C4 signals (Raffel et al. 2020, "Exploring the Limits of Transfer Learning"; the code is
tensorflow_datasets' c4_utils.clean_page, which datatrove's C4QualityFilter follows).

C4's line filters, in its order, on each stripped line: a line with a whitespace word over 1,000
characters goes; Wikipedia citations (`[1]`, `[edit]`, `[citation needed]`) are cut; a line not
ending in terminal punctuation, or ending in an ellipsis, goes; a line of fewer than 3 words goes;
lorem ipsum on a line left drops the page; a line holding "javascript" goes; a curly bracket on a
line left drops the page; a line holding a policy substring goes. The page is dropped with fewer
than 5 sentences on the lines that survive.

Here they are signals and `rules.py` decides; the text is never rewritten (quality scores and
keeps, it does not edit):
- c4_terminal_punct_lines_frac: share of non-empty lines ending in terminal punctuation.
- c4_javascript_lines, c4_policy_lines: lines holding "javascript" / a policy substring, of all
  lines (what the line filters would remove).
- c4_lorem_ipsum_lines, c4_curly_bracket_lines: of the lines left when C4 checks them (after the
  punctuation and word-count filters, and for "{" the javascript one), as C4's code and datatrove
  do: a page with inline code in a menu or a script line is not dropped for it.
- c4_kept_lines_frac: share of non-empty lines surviving every line filter.
- c4_sentences: sentences on the surviving lines (C4 counts them with NLTK's punkt; here a run
  of . ! ? 。！？ followed by a closer and a space or the line's end is one sentence's end, and
  every surviving line holds at least one: abbreviations such as "Mr." count as ends, so this
  counts more than punkt on such text).

CJK-aware, where C4 is English-only: the terminal set adds the Chinese/Japanese full stops and
closing quotes, so a Chinese line ending in 。 or ” counts as an English line ending in "." or
'"'; a line's words are word units (words.py: one per Han character or kana), so a Chinese line
needs 3 characters, not 3 spaces. Policy substrings have Chinese counterparts.
"""

from __future__ import annotations

import re

from corpus_pipeline.word_units import CLOSERS, Segments, ends_sentence, word_units

TERMINAL_PUNCTUATION = (".", "!", "?", '"', "'", "”", "’", "…", "。", "！", "？", "．", "」", "』", "｡")
# C4's line filter: terminal punctuation but not an ellipsis (a truncated teaser, "Read more...").
ELLIPSES = ("...", "…")
MIN_WORDS_PER_LINE = 3
MAX_WORD_CHARS = 1000
_CITATION = re.compile(r"\[\d*]|\[edit]|\[citation needed]")
_SENTENCE_END = re.compile(rf"[.!?]+[{re.escape(CLOSERS)}]*(?=\s|$)|[。！？｡．]+[{re.escape(CLOSERS)}]*")
# C4's policy substrings (lower case), and their Chinese counterparts.
POLICY_SUBSTRINGS = (
    "terms of use",
    "privacy policy",
    "cookie policy",
    "uses cookies",
    "use of cookies",
    "use cookies",
    "隐私政策",
    "隱私政策",
    "使用条款",
    "使用條款",
    "用户协议",
    "使用cookie",
)
_POLICY = re.compile("|".join(map(re.escape, POLICY_SUBSTRINGS)))
# One of these is in every policy substring: "cookie" stands for the five that hold it. Searched
# with `in` first (31 ms for the 1,416 real pages), they spare the regex scan, which stops at every
# t, p, c and u (61 ms), in all but the 18 pages that hold one (4 hold a policy substring).
POLICY_HINTS = tuple(dict.fromkeys("cookie" if "cookie" in s else s for s in POLICY_SUBSTRINGS))

SIGNALS = (
    "c4_terminal_punct_lines_frac",
    "c4_javascript_lines",
    "c4_lorem_ipsum_lines",
    "c4_curly_bracket_lines",
    "c4_policy_lines",
    "c4_kept_lines_frac",
    "c4_sentences",
)
INT_SIGNALS = frozenset({"c4_javascript_lines", "c4_lorem_ipsum_lines", "c4_curly_bracket_lines"})
INT_SIGNALS |= {"c4_policy_lines", "c4_sentences"}


def _lines_containing(lower: str, needle: str) -> int:
    # Checked on the whole text first: almost no page has any, and then no line is looked at.
    if needle not in lower:
        return 0
    return sum(needle in line for line in lower.split("\n"))


def _has_policy(lower: str) -> bool:
    return any(map(lower.__contains__, POLICY_HINTS)) and _POLICY.search(lower) is not None


def line_filters(lines: list[str], lower: str) -> tuple[int, int, int, int, int]:
    """C4's line filters over stripped, non-empty lines (`lower`: the whole text, lower-cased):
    (lines ending in terminal punctuation, lines kept, their sentences, lorem ipsum lines and
    curly-bracket lines among those C4 checks for them). The substring checks look at a line only
    when the whole text holds the substring: most pages hold none of them."""
    has_lorem, has_javascript, has_curly = "lorem ipsum" in lower, "javascript" in lower, "{" in lower
    has_policy = _has_policy(lower)
    terminal = kept = sentences = lorem = curly = 0
    for line in lines:
        ends = ends_sentence(line, TERMINAL_PUNCTUATION)
        terminal += ends
        if "[" in line:
            line = _CITATION.sub("", line).strip()
            ends = ends_sentence(line, TERMINAL_PUNCTUATION)
        if not ends or line.rstrip(CLOSERS).endswith(ELLIPSES):
            continue
        # C4 counts whitespace words; word units count a Chinese line's characters (found only
        # for the few lines with fewer than 3 whitespace words).
        if len(line.split(None, MIN_WORDS_PER_LINE - 1)) < MIN_WORDS_PER_LINE and (
            len(word_units(line)) < MIN_WORDS_PER_LINE
        ):
            continue
        if len(line) > MAX_WORD_CHARS and any(len(word) > MAX_WORD_CHARS for word in line.split()):
            continue
        line_lower = line.lower() if has_lorem or has_javascript or has_policy else ""
        if has_lorem and "lorem ipsum" in line_lower:
            lorem += 1
            continue
        if has_javascript and "javascript" in line_lower:
            continue
        if has_curly and "{" in line:
            curly += 1
            continue
        if has_policy and _POLICY.search(line_lower):
            continue
        kept += 1
        sentences += max(1, len(_SENTENCE_END.findall(line)))
    return terminal, kept, sentences, lorem, curly


def signals(seg: Segments) -> dict[str, float | int]:
    lines, lower = seg.lines, seg.lower
    policy = sum(bool(_POLICY.search(line)) for line in lower.split("\n")) if _has_policy(lower) else 0
    terminal, kept, sentences, lorem, curly = line_filters(lines, lower)
    return {
        "c4_terminal_punct_lines_frac": terminal / len(lines) if lines else 0.0,
        "c4_javascript_lines": _lines_containing(lower, "javascript"),
        "c4_lorem_ipsum_lines": lorem,
        "c4_curly_bracket_lines": curly,
        "c4_policy_lines": policy,
        "c4_kept_lines_frac": kept / len(lines) if lines else 0.0,
        "c4_sentences": sentences,
    }
