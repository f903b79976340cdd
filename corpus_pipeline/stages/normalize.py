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

from corpus_pipeline.config import NormalizeConfig
from corpus_pipeline.stages.base import DocumentStage, Drop, Verdict
from corpus_pipeline.stages.boilerplate import BoilerplateFilter
from corpus_pipeline.stats import StageStats

STATS_GROUP = "normalize"
BOILERPLATE_STATS_GROUP = "boilerplate_lines_removed"

# ftfy restricted to repairs: mojibake (`fix_encoding` and its sub-steps), C1 controls that stood for
# Windows-1252 characters, UTF-16 surrogate pairs, ANSI terminal escapes (removed whole: removing
# only the ESC byte in step 2 would leave `[31m` in the text).
# - unescape_html off: extracted text (trafilatura, Common Crawl WET) has its entities decoded
#   already; an `&amp;` still there was written literally (a page about HTML, a double-escaped
#   source), and ftfy's "auto" mode would decode it or not depending on whether the line has a `<`.
# - fix_character_width, fix_latin_ligatures, normalization off: that is what NFKC does, and
#   `unicode_form` decides it (under NFC `２０２６` and `ﬁ` stay as written).
# - uncurl_quotes off: quotes stay as written. fix_line_breaks off: step 4 owns line breaks.
# - remove_control_chars off: step 2 owns it, so `remove_invisible: false` really keeps them.
FTFY_CONFIG = ftfy.TextFixerConfig(
    unescape_html=False,
    remove_terminal_escapes=True,
    fix_encoding=True,
    fix_c1_controls=True,
    fix_latin_ligatures=False,
    fix_character_width=False,
    uncurl_quotes=False,
    fix_line_breaks=False,
    fix_surrogates=True,
    remove_control_chars=False,
    normalization=None,
    explain=False,
)

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
# A run that is not a lone ASCII space: a space followed by more whitespace, or any other whitespace
# character (tab, NBSP, U+3000...) and what follows it. A lone space, the common case, is no match,
# so English text is not rewritten word by word (2x faster than `[^\S\n]{2,}|[^\S\n ]`).
_HSPACE_RUN = re.compile(f"(?: [{_HSPACE}]|[{_HSPACE[1:]}])[{_HSPACE}]*")
_BLANK_LINES = re.compile(r"\n{3,}")


def replace_lone_surrogates(text: str) -> str:
    """Join surrogate pairs into the character they encode and replace lone surrogates with U+FFFD."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def fix_mojibake(text: str) -> str:
    """ftfy's repairs only (see FTFY_CONFIG), skipping documents that ftfy would leave unchanged.

    Same output as `ftfy.fix_text(text, FTFY_CONFIG)`: ftfy only runs where `_MOJIBAKE_GATE` finds
    one of the characters it could act on. (ftfy itself spends ~200 ms per MB of Chinese just
    deciding that a line is fine; the gate scan costs ~5 ms.)
    """
    if text.isascii() and "\x1b" not in text:
        return text
    if _MOJIBAKE_GATE is not None and not _MOJIBAKE_GATE.search(text):
        return text
    return ftfy.fix_text(text, FTFY_CONFIG)


def _mojibake_gate() -> re.Pattern | None:
    """A character class that every line ftfy would change (with FTFY_CONFIG) must contain.

    With FTFY_CONFIG, ftfy 6 changes a line only (a) through fix_encoding, which leaves a line alone
    unless `ftfy.badness.is_bad(line)`, i.e. BADNESS_RE matches; or through (b) fix_c1_controls: a C1
    control, (c) fix_surrogates: a surrogate, (d) remove_terminal_escapes: an ESC. Each branch of
    BADNESS_RE is a sequence of character classes; every class in a sequence is required, so one
    class per branch, taken from BADNESS_RE itself, gives a character set that any match contains.
    Of each branch's classes the one least used in clean text is taken: a branch that can be caught
    by its accented letter is not caught by its `”`, which would let nearly every Chinese or English
    document through. Measured on 50-line documents: 5% of People's Daily and of the English texts
    pass the gate; the others skip ftfy (~200-400 ms per MB).

    None (ftfy runs on every non-ASCII document) if ftfy is not version 6 or its badness regex is not
    shaped as expected: slower, never wrong.
    """
    try:
        from ftfy.badness import BADNESS_RE

        try:  # the parser behind re.compile: reads BADNESS_RE's structure, never matches
            import re._parser as parser  # Python >= 3.11
        except ImportError:  # pragma: no cover - Python 3.10
            import sre_parse as parser  # type: ignore[no-redef]

        c = FTFY_CONFIG
        restyles = (
            c.unescape_html,
            c.fix_latin_ligatures,
            c.fix_character_width,
            c.uncurl_quotes,
            c.fix_line_breaks,
            c.remove_control_chars,
            c.normalization,
        )
        if ftfy.__version__.split(".")[0] != "6" or BADNESS_RE.flags & re.IGNORECASE or any(restyles):
            return None  # the reasoning above no longer holds
        chars = _required_chars(list(parser.parse(BADNESS_RE.pattern, BADNESS_RE.flags)), parser)
    except Exception:
        return None
    if chars is None:
        return None
    listed = "".join(re.escape(c) for c in sorted(chars))
    return re.compile(f"[{listed}\x1b\x80-\x9f\ud800-\udfff]")


# Characters frequent in clean text (Chinese and English punctuation, currency, NBSP): a gate class
# holding one of these would let most documents through, so they weigh most in choosing a class.
_FREQUENT = frozenset("“”‘’—–…·\u00a0")
_COMMON = frozenset("„‚«»‹›―•€£¥°×©®™§¶´¡¿\u00ad")


def _required_chars(items: list, parser) -> frozenset[str] | None:
    """A set of non-ASCII characters one of which every match of this sequence contains, or None."""
    candidates: list[frozenset[str]] = []
    for op, av in items:
        found = None
        if op is parser.LITERAL:
            found = frozenset(chr(av))
        elif op is parser.IN:
            found = _class_chars(av, parser)
        elif op is parser.BRANCH:
            branches = [_required_chars(list(branch), parser) for branch in av[1]]
            if all(branches):
                found = frozenset().union(*branches)
        elif op is parser.SUBPATTERN:
            found = _required_chars(list(av[-1]), parser)
        elif op in (parser.MAX_REPEAT, parser.MIN_REPEAT) and av[0] >= 1:
            found = _required_chars(list(av[2]), parser)
        if found and all(ord(c) > 127 for c in found):
            candidates.append(found)
    if not candidates:
        return None
    return min(candidates, key=_commonness)


def _commonness(chars: frozenset[str]) -> int:
    return sum(1000 if c in _FREQUENT else 10 if c in _COMMON else 1 for c in chars)


def _class_chars(members: list, parser) -> frozenset[str] | None:
    chars: set[str] = set()
    for op, av in members:
        if op is parser.LITERAL:
            chars.add(chr(av))
        elif op is parser.RANGE:
            chars.update(map(chr, range(av[0], av[1] + 1)))
        else:  # a negated class, \w, \s...: not a finite set
            return None
    return frozenset(chars)


_MOJIBAKE_GATE = _mojibake_gate()


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
    text = _HSPACE_RUN.sub(" ", text)
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
