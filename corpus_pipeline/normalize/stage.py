"""normalize: repair and canonicalize document text, then drop boilerplate lines (C4-style).

Steps, in this order, each switchable in `NormalizeConfig`:

0. Lone UTF-16 surrogates become U+FFFD (always on): Arrow, Parquet and every `encode("utf-8")`
   downstream would raise on them, and a job must not crash on one bad string.
1. Mojibake repair with ftfy (`fix_mojibake`), before anything else touches the code points: ftfy
   recognises mojibake by the exact characters a wrong decoding produced. Normalizing first would
   destroy the evidence: NFKC turns the `™` of `â€™` (a mis-decoded `’`) into `TM`, after which
   the sequence cannot be repaired. ftfy's own rewrites that are not mojibake repair (quote
   uncurling, width folding, ligatures, line breaks, HTML entities, Unicode normalization) are off:
   steps 2-4 own those decisions, so each switch in the config means one thing.
2. Removal of control and invisible characters (`remove_invisible`), after ftfy (whose C1 fix turns
   `\\x93` into the `“` it stood for, and whose repair turns `ï»¿` into the BOM removed here) and
   before Unicode normalization: an invisible character between a letter and its combining accent
   (`e` + ZWSP + U+0301) blocks composition, so removing it after NFC would leave un-normalized text.
3. Unicode normalization (`unicode_form`, NFC or NFKC).
4. Whitespace collapse (`collapse_whitespace`), after 2 (a line holding only a zero-width space is
   blank only once the space is gone) and 3 (NFKC turns U+3000 and NBSP into spaces to collapse).
5. Boilerplate lines (`boilerplate`), on trimmed single-spaced lines (see `boilerplate.py`) and
   after NFKC, so that a full-width `ｃｏｏｋｉｅ` matches the same pattern as `cookie`.
6. A document left with fewer than `min_chars` characters is dropped (`empty_after_normalize`).
"""

from __future__ import annotations

import re
import unicodedata

import ftfy

from corpus_pipeline.normalize.boilerplate import BoilerplateFilter
from corpus_pipeline.normalize.config import NormalizeConfig
from corpus_pipeline.normalize.mojibake import fix_mojibake
from corpus_pipeline.stages.base import DocumentStage, Drop, Verdict
from corpus_pipeline.stats import StageStats

STATS_GROUP = "normalize"
BOILERPLATE_STATS_GROUP = "boilerplate_lines_removed"

_SURROGATE = re.compile("[\ud800-\udfff]")

# Controls and invisible format characters, one character class: `subn` counts the removals and
# returns the very same string object when there is none (the common case), at ~400 MB/s.
# Kept on purpose: \t and \n; \r, VT, FF and NEL (\x85), which are line breaks that step 4 turns
# into \n; ZWNJ U+200C and ZWJ U+200D (Persian/Indic orthography, emoji sequences like 👩‍💻);
# variation selectors and tag characters (emoji presentation, flag sequences); U+180E, U+034F and
# the Hangul fillers, which shape or compose text in their scripts.
_INVISIBLE = re.compile(
    "["
    "\x00-\x08\x0e-\x1f\x7f"  # C0 controls (but \t \n VT FF \r) and DEL
    "\x80-\x84\x86-\x9f"  # C1 controls (but NEL); with fix_mojibake on, ftfy has mapped most already
    "\u00ad"  # soft hyphen: a hyphenation hint, invisible unless the line breaks there
    "\u061c\u200e\u200f"  # Arabic letter mark, LRM, RLM: bidi display hints
    "\u200b"  # zero-width space
    "\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides and isolates
    "\u2060-\u2064"  # word joiner; invisible function application, times, separator, plus
    "\u206a-\u206f"  # deprecated format characters
    "\ufeff"  # BOM / zero-width no-break space
    "\ufff9-\ufffb"  # interlinear annotation marks
    "]"
)

# Line breaks other than \n (after \r\n became \n): \r, VT, FF, NEL, U+2028. U+2029 (paragraph
# separator) becomes a paragraph break `\n\n`.
_LINE_BREAK = re.compile("[\r\x0b\x0c\x85\u2028]")
# Horizontal whitespace: what str.isspace() calls whitespace, less the line breaks above and \n.
_HSPACE = " \t\x1c-\x1f\xa0\u1680\u2000-\u200a\u202f\u205f\u3000"
# Runs of it become one space in two passes: from its first character other than an ASCII space
# (tab, NBSP, U+3000...) on, a run becomes one space; then runs of spaces, all that is left, become
# one. A lone space, the common case, is never rewritten, and neither pattern is tried at every
# position: the first starts with a class, which the regex engine scans for in C, the second with a
# literal. 78 ms against 124 for the 1,416 real pages with the former single pattern,
# `(?: [ws]|[ws but space])[ws]*`, whose alternation is tried at every character.
_HSPACE_FROM_OTHER = re.compile(f"[{_HSPACE[1:]}][{_HSPACE}]*")
_SPACES = re.compile("  +")
_BLANK_LINES = re.compile(r"\n{3,}")


def replace_lone_surrogates(text: str) -> str:
    """Join surrogate pairs into the character they encode and replace lone surrogates with U+FFFD."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def remove_invisible(text: str) -> tuple[str, int]:
    """Remove control and invisible characters; return the text and how many were removed."""
    return _INVISIBLE.subn("", text)


def normalize_unicode(text: str, form: str) -> str:
    # is_normalized is CPython's quick check: no copy for text already in the form (most of it).
    return text if unicodedata.is_normalized(form, text) else unicodedata.normalize(form, text)


def collapse_whitespace(text: str) -> str:
    """Line breaks to \\n; within a line, whitespace runs to one space; lines trimmed; at most one
    blank line in a row (a paragraph break); the document stripped. Spaces are only ever collapsed
    or trimmed, never inserted or removed between words, so CJK text keeps its (absent) spacing.

    Each step is one C-level pass (str.replace or one compiled regex), skipped when a substring test
    shows it has nothing to do."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    text = _LINE_BREAK.sub("\n", text)
    if "\u2029" in text:
        text = text.replace("\u2029", "\n\n")
    text = _HSPACE_FROM_OTHER.sub(" ", text)
    if "  " in text:
        text = _SPACES.sub(" ", text)
    # After the collapse a line has at most one space at either end.
    if " \n" in text:
        text = text.replace(" \n", "\n")
    if "\n " in text:
        text = text.replace("\n ", "\n")
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip()


class NormalizeStage(DocumentStage):
    name = "normalize"
    input_columns = ("text",)
    rewrites = ("text",)

    def __init__(self, config: NormalizeConfig | None = None):
        self.config = config or NormalizeConfig()
        # Built here, not per document: the patterns are compiled once, and a bad one fails now.
        self.boilerplate = BoilerplateFilter(self.config.boilerplate)

    def config_fingerprint(self) -> str:
        # The output also depends on ftfy's heuristics and on the Unicode tables of this Python.
        return f"{self.config!r} ftfy={ftfy.__version__} unicode={unicodedata.unidata_version}"

    def normalize(self, text: str, stats: StageStats | None = None) -> str:
        """Steps 0-5 on one text (see the module docstring); counts what changed into `stats`."""
        c = self.config
        count = stats.count if stats is not None else _no_count
        repaired = replace_lone_surrogates(text)
        if repaired is not text:
            count(STATS_GROUP, "docs_with_lone_surrogates")
        text = repaired
        if c.fix_mojibake:
            fixed = fix_mojibake(text)
            if fixed != text:
                count(STATS_GROUP, "docs_mojibake_fixed")
            text = fixed
        if c.remove_invisible:
            text, removed = remove_invisible(text)
            if removed:
                count(STATS_GROUP, "invisible_chars_removed", removed)
        normalized = normalize_unicode(text, c.unicode_form)
        if normalized is not text:
            count(STATS_GROUP, f"docs_changed_by_{c.unicode_form}")
        text = normalized
        if c.collapse_whitespace:
            before = len(text)
            text = collapse_whitespace(text)
            if len(text) != before:
                count(STATS_GROUP, "whitespace_chars_removed", before - len(text))
        text, removed_lines = self.boilerplate.filter(text)
        for rule, n in removed_lines.items():
            count(BOILERPLATE_STATS_GROUP, rule, n)
        return text

    def process(self, doc: dict, stats: StageStats) -> Verdict:
        original = doc.get("text") or ""
        text = self.normalize(original, stats)
        if len(text) < self.config.min_chars:
            # The rejected row keeps its input text (made writable): an empty string would not show
            # a person what the page held.
            doc["text"] = replace_lone_surrogates(original)
            return Drop(
                "empty_after_normalize",
                f"{len(text)} characters left of {len(original)}, min_chars={self.config.min_chars}",
            )
        doc["text"] = text
        return None


def _no_count(group: str, key: str, n: int = 1) -> None:
    pass
