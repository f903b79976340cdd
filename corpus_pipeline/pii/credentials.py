"""Secrets: provider tokens with a known prefix, private-key blocks, JWTs, and high-entropy values
assigned to names like api_key, token, password or secret.

- AWS access key ids: AKIA/ASIA/ABIA/ACCA + 16 of [A-Z0-9] with at least one digit (a run of 20
  capitals such as `ASIAPACIFICREGIONALX` is a heading, not a key).
- GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 36 alphanumerics, and `github_pat_` + 82;
  GitLab `glpat-` + 20; Slack `xoxa-`/`xoxb-`/`xoxp-`/`xoxr-`/`xoxs-` + 10 or more.
- PEM private keys: the whole `-----BEGIN ... PRIVATE KEY-----` block to its END line (or, when
  the END line is missing, to the end of the base64 body).
- JWTs: three base64url parts whose first decodes to a JSON object with an "alg" member.
- Assignments: `name = value`, `name: value`, `"name": "value"` where the name is an api key,
  token, secret, password, private or access key (any case, `_`/`-` or nothing between words) and
  the value (up to a space, quote, comma, `;`, `&` or bracket) has at least `min_length`
  characters, a digit, and a Shannon entropy of at least `min_entropy` bits per character. Only
  the value is replaced.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import re
from collections import Counter

from corpus_pipeline.pii.types import Span

# Each pattern starts with its literal prefix and only then looks behind for a boundary: a pattern
# that starts with a literal is searched with a fast substring scan (~3 us on a 5 KB text), one
# that starts with a lookbehind, or an alternation of several literals, is tried at every position
# or character class test (~50-95 us). Hence one pattern per prefix.
_TOKENS = tuple(
    re.compile(pattern, re.DOTALL)
    for pattern in (
        r"A(?<![A-Za-z0-9]A)(?:KIA|SIA|BIA|CCA)(?=[A-Z]*[0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",  # AWS
        r"glpat-(?<![A-Za-z0-9_]glpat-)[A-Za-z0-9_\-]{20}(?![A-Za-z0-9_\-])",  # GitLab
        r"xox(?<![A-Za-z0-9_]xox)[abprs]-[A-Za-z0-9\-]{10,}",  # Slack
        # The body runs to the END line; it may not cross another `-----` marker, which keeps a text
        # of many BEGIN lines without END linear (a lazy `.*?` would rescan to the end from each).
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----"
        r"(?:(?:(?!-----)[\s\S])*-----END[A-Z0-9 ]*PRIVATE KEY-----|(?:\r?\n[A-Za-z0-9+/=]+)*)",
    )
)
# GitHub tokens all hold an underscore, which only 112 of the 1,432 real documents contain: a
# one-character test (~1 us) spares the two-character `gh` scan (~9 us) almost everywhere.
_GITHUB = re.compile(
    r"gh(?<![A-Za-z0-9_]gh)(?:[pousr]_[A-Za-z0-9]{36}(?![A-Za-z0-9])|ithub_pat_[A-Za-z0-9_]{82}(?![A-Za-z0-9_]))"
)
_JWT = re.compile(r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*(?![A-Za-z0-9_\-])")

# Assignments are found from their separator (`=`, `:`, `:=`, `=>`) followed by a long enough value
# (read in a lookahead, so that `https://x?token=...` still sees the `=` after `https:`), then the
# name is checked in the 40 characters before it. Two literal-prefix scans, one per separator.
# A value is read up to 512 characters: API keys and passwords are far shorter, and the cap keeps a
# run of many `=` without spaces (minified code) linear instead of quadratic.
_MAX_VALUE = 512
_DIGIT = re.compile(r"[0-9]")


@functools.lru_cache(maxsize=8)
def _separators(min_length: int) -> tuple[re.Pattern, ...]:
    value = rf"(?=[ \t]*[\"']?(?!//)([^\s\"'`,;&<>()\[\]{{}}]{{{min(min_length, _MAX_VALUE)},{_MAX_VALUE}}}))"
    return re.compile("=>?" + value), re.compile(":=?" + value)


_NAME_BEFORE = re.compile(
    r"(?<![A-Za-z0-9])(?:api|access|auth|client|secret|private|refresh|bearer)?[_\-]?"
    r"(?:api[_\-]?key|apikey|key|token|secret|secret[_\-]?key|password|passwd|pwd)[\"']?[ \t]*\Z",
    re.ASCII | re.IGNORECASE,
)
_NAME_WINDOW = 40


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _is_jwt(token: str) -> bool:
    header = token.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _high_entropy(value: str, min_length: int, min_entropy: float) -> bool:
    return len(value) >= min_length and _DIGIT.search(value) is not None and shannon_entropy(value) >= min_entropy


def find_secrets(text: str, min_length: int, min_entropy: float) -> list[Span]:
    spans = [Span(m.start(), m.end(), "secret") for pattern in _TOKENS for m in pattern.finditer(text)]
    if "_" in text:
        spans += [Span(m.start(), m.end(), "secret") for m in _GITHUB.finditer(text)]
    spans += [Span(m.start(), m.end(), "secret") for m in _JWT.finditer(text) if _is_jwt(m.group())]
    for separator in _separators(min_length):
        for match in separator.finditer(text):
            value = match.group(1).rstrip(".")  # a full stop ends the sentence, not the value
            # Cheapest test first: most values after a `:` or `=` in prose hold no digit.
            if (
                _DIGIT.search(value)
                and _NAME_BEFORE.search(text, max(0, match.start() - _NAME_WINDOW), match.start())
                and _high_entropy(value, min_length, min_entropy)
            ):
                spans.append(Span(match.start(1), match.start(1) + len(value), "secret"))
    return spans
