"""Mojibake repair: ftfy's repairs only (FTFY_CONFIG), run on the lines ftfy could change.

Step 1 of normalize (see normalize.py). The suspect-line pattern is derived from ftfy's own
badness regex, so a line it skips is a line ftfy would leave unchanged.
"""

from __future__ import annotations

import re

import ftfy

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


def fix_mojibake(text: str) -> str:
    """ftfy's repairs only (see FTFY_CONFIG), run only on the lines that ftfy could change.

    Same output as `ftfy.fix_text(text, FTFY_CONFIG)`, which fixes a text line by line (each line
    with its `\n`; a line longer than `max_decode_length` in pieces of that length from the line's
    start), carrying nothing from one line to the next: the one setting that would,
    `unescape_html="auto"`, is off. So only the lines in which `_MOJIBAKE_SUSPECT` finds a match go
    through `ftfy.fix_text`, each on its own (which cuts a long line into the same pieces); the
    others are copied. On the 1,432 real pages, 912 documents hold a character that a per-document
    gate would look for (`ü`, `é`, `€`...), and ftfy would then read all 22,511 of their lines, its
    badness regex tried at every position: 1.64 s. The suspect regex scans all pages (0.07 s) and
    sends 45 lines to ftfy (5 documents change): 0.10 s. People's Daily in 8-line documents: 0.012 s
    (no line has a suspect match), against 0.018 s behind a per-document gate (23 of 2,436 pass it).
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
