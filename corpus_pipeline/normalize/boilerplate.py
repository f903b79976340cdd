"""Line-level boilerplate removal (C4-style): drop cookie banners, "enable JavaScript" notices, policy
and copyright footers, share prompts, and optionally lines too short to be prose.

Lines are judged one at a time, so a page keeps its article and loses only the matching lines. The
normalize stage calls this after whitespace collapse, so a line arrives trimmed, with single spaces
and no NBSP/full-width space: `^` and `$` in a pattern mean the visible start and end of the line.

Patterns are Python `re` syntax, matched case-insensitively against one line; use `^`/`$` for the
line's ends (not `\\A`/`\\Z`, which the whole-document scan below reads differently).

Speed: Python's regex engines try every alternative at every position, and case-insensitive matching
turns off their literal-prefix scan, so six patterns searched line by line run at ~5 MB/s. Nearly every
pattern needs some literal text to match ("cookie", "javascript", "版权所有"), so each rule first
checks whether the lower-cased document contains one of its required literals (one Aho-Corasick pass
finds those of every rule); only documents that do are searched with the pattern, once over the whole
text, and each hit is confirmed on its own line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import ahocorasick
import regex

from corpus_pipeline.normalize.config import BoilerplateConfig

try:  # the parser behind re.compile; used only to find required literals, never to match
    import re._parser as _sre_parse  # Python >= 3.11
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

MIN_WORDS_RULE = "min_words"

# Scripts written without spaces between words: a whitespace token there is a phrase or a sentence,
# so a whitespace word count says nothing about the length of the line. (Korean is written with
# spaces, so Hangul is not in the list.)
# Matched as runs: a Chinese paragraph is a handful of runs between punctuation marks, not hundreds
# of one-character matches.
_UNSPACED_RUN = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}]+")
# A line with at least this share of unspaced-script characters (among its non-space characters) is
# never dropped by the word rule. A quarter rather than a half: a Chinese line that names a product or
# a library ("使用Docker部署", "华为Mate60发布") is half Latin letters and still has no spaces to count.
UNSPACED_SHARE_EXEMPT = 0.25


@dataclass(frozen=True)
class LineRule:
    name: str
    pattern: re.Pattern  # IGNORECASE | MULTILINE
    # Lower-cased strings one of which every match contains, looked up in `text.lower()`; None when
    # that cannot be worked out (the pattern is then searched in every document). The few case
    # pairs `re` matches but str.lower() does not map (ſ/s, İ/i) can slip past the check.
    required: frozenset[str] | None


class BoilerplateFilter:
    """Built once per stage from a `BoilerplateConfig`; `filter(text)` is the per-document call.

    Patterns are compiled once here, so a bad pattern fails when the stage is built, on the driver,
    not in the middle of a Spark job.
    """

    def __init__(self, config: BoilerplateConfig | None = None):
        self.config = config or BoilerplateConfig()
        flags = re.IGNORECASE | re.MULTILINE
        self.rules: tuple[LineRule, ...] = tuple(
            LineRule(name, re.compile(p, flags), required_literals(p, flags))
            for name, p in self.config.line_patterns.items()
        )
        self.min_words = self.config.min_words_per_line
        # Every rule's required literals in one Aho-Corasick automaton, each mapped to the rules
        # (a bit mask) that need it: one pass over the lower-cased document tells which rules can
        # match, where a substring search per literal (33 with the default rules) took 129 ms over
        # the 1,416 real pages, the automaton 88.
        self._literals = ahocorasick.Automaton()
        for index, rule in enumerate(self.rules):
            for literal in rule.required or ():
                self._literals.add_word(literal, self._literals.get(literal, 0) | 1 << index)
        if len(self._literals):
            self._literals.make_automaton()

    @property
    def active(self) -> bool:
        return self.config.enabled and (bool(self.rules) or self.min_words > 0)

    def filter(self, text: str) -> tuple[str, dict[str, int]]:
        """Return the text without its boilerplate lines and the number of lines removed per rule.

        A line matched by several rules counts for the first. Blank lines (paragraph breaks) are never
        removed by a rule; removing a line between two paragraph breaks leaves one, and no blank line
        is left at either end. The text comes back unchanged (the same object) when nothing matched.
        """
        if not self.active or not text:
            return text, {}
        hits = self._pattern_hits(text) if self.rules else {}
        if not hits and not self.min_words:
            return text, {}
        removed: dict[str, int] = {}
        kept: list[str] = []
        start = 0
        for line in text.split("\n"):
            rule = hits.get(start)
            if rule is None and self.min_words and line.strip() and too_few_words(line, self.min_words):
                rule = MIN_WORDS_RULE
            if rule is None:
                kept.append(line)
            else:
                removed[rule] = removed.get(rule, 0) + 1
            start += len(line) + 1
        if not removed:
            return text, {}
        return _join_paragraphs(kept), removed

    def rule_for(self, line: str) -> str | None:
        """The name of the rule that removes this one line, or None to keep it (for tests, audits)."""
        _, removed = self.filter(line)
        return next(iter(removed), None)

    def _pattern_hits(self, text: str) -> dict[int, str]:
        """{offset of a line's first character: name of the first rule that matches the line}."""
        hits: dict[int, str] = {}
        present = 0  # bit i: a required literal of rule i is in the text
        if len(self._literals):
            for _, rules in self._literals.iter(text.lower()):
                present |= rules
        for index, rule in enumerate(self.rules):
            if rule.required is not None and not present >> index & 1:
                continue
            pos = 0
            while pos <= len(text) and (match := rule.pattern.search(text, pos)):
                line_start = text.rfind("\n", 0, match.start()) + 1
                line_end = text.find("\n", match.start())
                if line_end < 0:
                    line_end = len(text)
                # Confirm on the line alone: over the whole text a `\s` can run across a line break.
                if line_start not in hits and rule.pattern.search(text, line_start, line_end):
                    hits[line_start] = rule.name
                pos = line_end + 1
        return hits


def too_few_words(line: str, min_words: int) -> bool:
    """C4's short-line rule, for space-separated scripts only (see UNSPACED_SHARE_EXEMPT)."""
    words = line.split()
    if len(words) >= min_words:
        return False
    if line.isascii():
        return True
    letters = sum(len(word) for word in words)
    unspaced = sum(map(len, _UNSPACED_RUN.findall(line)))
    return unspaced < UNSPACED_SHARE_EXEMPT * letters


def required_literals(pattern: str, flags: int = re.IGNORECASE) -> frozenset[str] | None:
    """Lower-cased strings one of which occurs in every match of `pattern`, or None if unknown.

    Walks the parse tree: in a sequence, every run of literal characters is required (zero-width
    assertions such as `\\b` and `^` do not interrupt a run); a group or a repeat of at least one
    contributes what its body requires; an alternation requires one of its branches' sets. The
    longest such requirement is kept. Anything unusual gives None, which only costs speed.
    """
    try:
        tree = _sre_parse.parse(pattern, flags)
        found = _required_in(list(tree))
    except Exception:  # private parser API: on any surprise, search every document
        return None
    if not found:
        return None
    return frozenset(literal.lower() for literal in found)


_ZERO_WIDTH = {_sre_parse.AT, _sre_parse.ASSERT, _sre_parse.ASSERT_NOT}
_REPEATS = {_sre_parse.MAX_REPEAT, _sre_parse.MIN_REPEAT, getattr(_sre_parse, "POSSESSIVE_REPEAT", None)}


def _required_in(items: list) -> frozenset[str] | None:
    candidates: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in items:
        if op is _sre_parse.LITERAL:
            run.append(chr(av))
            continue
        if op in _ZERO_WIDTH:
            continue
        if run:
            candidates.append(frozenset(["".join(run)]))
            run = []
        part = None
        if op is _sre_parse.BRANCH:
            branches = [_required_in(list(branch)) for branch in av[1]]
            if all(branches):
                part = frozenset().union(*branches)
        elif op is _sre_parse.SUBPATTERN:
            part = _required_in(list(av[-1]))
        elif op in _REPEATS and av[0] >= 1:
            part = _required_in(list(av[2]))
        if part:
            candidates.append(part)
    if run:
        candidates.append(frozenset(["".join(run)]))
    if not candidates:
        return None
    # Most selective: the longest shortest-literal, then the fewest literals.
    return max(candidates, key=lambda c: (min(map(len, c)), -len(c)))


def _join_paragraphs(lines: list[str]) -> str:
    """Join lines, keeping at most one blank line in a row and none at either end."""
    out: list[str] = []
    for line in lines:
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)
