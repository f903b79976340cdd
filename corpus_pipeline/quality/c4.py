"""C4 signals (Raffel et al. 2020, "Exploring the Limits of Transfer Learning"; datatrove's
C4QualityFilter): lines ending in terminal punctuation, and lines holding "javascript", "lorem
ipsum", a curly bracket or a policy/cookie notice.

C4 removes such lines and drops a page with any lorem ipsum or "{"; here they are counted, and
`rules.py` decides. The terminal set adds the Chinese/Japanese full stops and closing quotes, so a
Chinese line ending in 。 or ”counts as C4 counts an English line ending in "." or '"'.
"""

from __future__ import annotations

import re

from corpus_pipeline.quality.words import Segments, ends_sentence

TERMINAL_PUNCTUATION = (".", "!", "?", '"', "'", "”", "’", "…", "。", "！", "？", "．", "」", "』", "｡")
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
)
INT_SIGNALS = frozenset(SIGNALS[1:])


def _lines_containing(lower: str, needle: str) -> int:
    # Checked on the whole text first: almost no page has any, and then no line is looked at.
    if needle not in lower:
        return 0
    return sum(needle in line for line in lower.split("\n"))


def signals(seg: Segments) -> dict[str, float | int]:
    lines, lower = seg.lines, seg.lower
    policy = 0
    if any(map(lower.__contains__, POLICY_HINTS)) and _POLICY.search(lower):
        policy = sum(bool(_POLICY.search(line)) for line in lower.split("\n"))
    return {
        "c4_terminal_punct_lines_frac": (
            sum(ends_sentence(line, TERMINAL_PUNCTUATION) for line in lines) / len(lines) if lines else 0.0
        ),
        "c4_javascript_lines": _lines_containing(lower, "javascript"),
        "c4_lorem_ipsum_lines": _lines_containing(lower, "lorem ipsum"),
        "c4_curly_bracket_lines": _lines_containing(lower, "{"),
        "c4_policy_lines": policy,
    }
