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


def fix_mojibake(text: str) -> str:
    """ftfy's repairs only (see FTFY_CONFIG), run only on the lines that ftfy could change.

    Same output as `ftfy.fix_text(text, FTFY_CONFIG)`, which fixes a text line by line (each line
    with its `\n`; a line longer than `max_decode_length` in pieces of that length from the line's
    start), carrying nothing from one line to the next: the one setting that would,
    `unescape_html="auto"`, is off. So only the lines in which `_MOJIBAKE_SUSPECT` finds a match go
    through `ftfy.fix_text`, each on its own (which cuts a long line into the same pieces); the
    others are copied. On the 1,432 real pages, 912 documents hold a character that the former
    per-document gate looked for (`ü`, `é`, `€`...), and ftfy then read all 22,511 of their lines,
    its badness regex tried at every position: 1.64 s. Now the suspect regex scans all pages (0.07
    s) and sends 45 lines to ftfy (5 documents change): 0.10 s. People's Daily in 8-line documents:
    0.018 s before (23 of 2,436 passed the gate), 0.012 s now (none has a suspect match).
    """
    if text.isascii() and "\x1b" not in text:
        return text
    if _MOJIBAKE_SUSPECT is None:
        return ftfy.fix_text(text, FTFY_CONFIG)
    match = _MOJIBAKE_SUSPECT.search(text)
    if match is None:
        return text
    parts, done = [], 0  # text[:done] is settled: copied or fixed
    while match is not None:
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.start()) + 1 or len(text)
        parts += (text[done:start], ftfy.fix_text(text[start:end], FTFY_CONFIG))
        done = end
        match = _MOJIBAKE_SUSPECT.search(text, end)
    parts.append(text[done:])
    return "".join(parts)


def _mojibake_suspect() -> re.Pattern | None:
    """A regex that finds a match in every segment (a line, or a piece of a long one) that ftfy
    would change with FTFY_CONFIG.

    With FTFY_CONFIG, ftfy 6 changes a segment only (a) through fix_encoding, which leaves a segment
    alone unless `ftfy.badness.is_bad(segment)`, i.e. BADNESS_RE matches; or through (b)
    fix_c1_controls: a C1 control, (c) fix_surrogates: a surrogate, (d) remove_terminal_escapes: an
    ESC. Each branch of BADNESS_RE is a sequence of one-character items (two start with `^` or
    `\\s?`). Each branch is rewritten to start at its rarest item, a set of non-ASCII characters
    (never `[a-z]` or `\\s`): the run of one-character items before it becomes a lookbehind, and
    what comes before a `^` or `\\s?` is dropped, which only widens what matches. The rewritten
    branches are joined behind one class of all their first characters,
    `[first](?:(?<=[first_1])(?:(?<=before_1.)rest_1|...)|...)`: a pattern that starts with a
    character class is scanned for that class in C before anything else is tried, where BADNESS_RE,
    whose branches start with `[a-z]`, `\\s` or `^`, is tried at every position. A rewritten
    branch reads only characters that the original's match covers, and no anchor, so a match inside
    a segment is one in the whole text too, and a search from the segment's start finds it or an
    earlier one.

    A branch starts at its accented letter rather than at its `”`, which would stop the scan in
    nearly every Chinese or English line (`_commonness`). Numbers: see `fix_mojibake`. None (ftfy
    runs on every non-ASCII document) if ftfy is not version 6 or its badness regex is not shaped
    as expected: slower, never wrong.
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
        (op, (_, branches)), *others = parser.parse(BADNESS_RE.pattern, BADNESS_RE.flags)
        if op is not parser.BRANCH or others:
            return None
        # The rewritten branches by their first character (a set), then by the lookbehind before it:
        # what must follow.
        starts: dict[frozenset[str], dict[str, list[str]]] = {}
        one_character = (parser.LITERAL, parser.NOT_LITERAL, parser.IN, parser.ANY)
        for branch in branches:
            items = list(branch)
            first, chars = _rarest_item(items, parser)
            before = first
            while before and items[before - 1][0] in one_character:
                before -= 1
            rests = starts.setdefault(chars, {}).setdefault(_render(items[before:first], parser), [])
            rests.append(_render(items[first + 1 :], parser))
        # ESC, C1 controls and surrogates need nothing around them.
        starts.setdefault(frozenset("\x1b") | _C1 | _SURROGATES, {})[""] = [""]
    except Exception:
        return None
    alternatives = "|".join(f"(?<={_char_class(chars)})(?:{_after(behinds)})" for chars, behinds in starts.items())
    return re.compile(f"{_char_class(frozenset().union(*starts))}(?:{alternatives})")


def _after(behinds: dict[str, list[str]]) -> str:
    """The alternatives after a first character: lookbehind, then what follows. In the lookbehind,
    `.` stands for the first character itself, already matched (never a newline)."""
    return "|".join(
        (f"(?<={behind}.)" if behind else "") + f"(?:{'|'.join(rests)})" for behind, rests in behinds.items()
    )


_C1 = frozenset(map(chr, range(0x80, 0xA0)))
_SURROGATES = frozenset(map(chr, range(0xD800, 0xE000)))
# Characters frequent in clean text (Chinese and English punctuation, currency, NBSP): a branch that
# starts at an item holding one of these would stop the scan in most lines, so they weigh most.
_FREQUENT = frozenset("“”‘’—–…·\u00a0")
_COMMON = frozenset("„‚«»‹›―•€£¥°×©®™§¶´¡¿\u00ad")


def _rarest_item(items: list, parser) -> tuple[int, frozenset[str]]:
    """Where a rewritten branch starts: the index and characters of its item that is a finite set
    of non-ASCII characters, the rarest in clean text (the last of equally rare ones)."""
    candidates = [(i, chars) for i, item in enumerate(items) if (chars := _item_chars(item, parser))]
    candidates = [(i, chars) for i, chars in candidates if all(ord(c) > 127 for c in chars)]
    if not candidates:
        raise ValueError("a BADNESS_RE branch without a non-ASCII character set")
    return min(reversed(candidates), key=lambda candidate: _commonness(candidate[1]))


def _commonness(chars: frozenset[str]) -> int:
    return sum(1000 if c in _FREQUENT else 10 if c in _COMMON else 1 for c in chars)


def _item_chars(item: tuple, parser) -> frozenset[str] | None:
    """The characters a literal or a class of literals and ranges matches; None for anything else
    (a negated class, `\\w`, `\\s`, `.`...: not a finite set)."""
    op, av = item
    if op is parser.LITERAL:
        return frozenset(chr(av))
    if op is not parser.IN:
        return None
    chars: set[str] = set()
    for member, value in av:
        if member is parser.LITERAL:
            chars.add(chr(value))
        elif member is parser.RANGE:
            chars.update(map(chr, range(value[0], value[1] + 1)))
        else:
            return None
    return frozenset(chars)


def _render(items: list, parser) -> str:
    """Regex source for a sequence of one-character items (literals, classes, `.`); ValueError for
    anything else (anchors, lookarounds, repeats), which a rewritten branch must not hold."""
    categories = {getattr(parser, f"CATEGORY_{name}"): code for name, code in _CATEGORIES}
    out = []
    for op, av in items:
        if op is parser.LITERAL:
            out.append(re.escape(chr(av)))
        elif op is parser.NOT_LITERAL:
            out.append(f"[^{re.escape(chr(av))}]")
        elif op is parser.ANY:
            out.append(".")
        elif op is parser.IN:
            members = []
            for member, value in av:
                if member is parser.NEGATE:
                    members.append("^")
                elif member is parser.LITERAL:
                    members.append(re.escape(chr(value)))
                elif member is parser.RANGE:
                    members.append(f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}")
                elif member is parser.CATEGORY and value in categories:
                    members.append(categories[value])
                else:
                    raise ValueError(f"unexpected class member {member} {value}")
            out.append(f"[{''.join(members)}]")
        else:
            raise ValueError(f"unexpected item {op} in a BADNESS_RE branch")
    return "".join(out)


_CATEGORIES = (("SPACE", r"\s"), ("NOT_SPACE", r"\S"), ("WORD", r"\w"), ("NOT_WORD", r"\W"), ("DIGIT", r"\d"))


def _char_class(chars: frozenset[str]) -> str:
    """A regex class of `chars`, runs of consecutive code points written as ranges."""
    codes, runs = sorted(map(ord, chars)), []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "[" + "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in runs) + "]"


_MOJIBAKE_SUSPECT = _mojibake_suspect()


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
