"""Find every enabled PII type in a text, settle overlaps, and replace matches with placeholders.

`PiiDetector.find` returns non-overlapping spans in text order. Overlaps between candidates are
settled by `resolve_overlaps`: the more specific type wins (order in `types.PII_TYPES`), then the
longer match, then the earlier one; a candidate that overlaps an accepted one is dropped whole,
never trimmed. `redact` rewrites only the matched characters: the text between matches is copied
unchanged, byte for byte.

Chinese and Japanese pages often write numbers and addresses in full-width forms (`１３８１２３４５６７８`,
`ｈｒ＠ｅｘａｍｐｌｅ．ｃｏｍ`). When a text holds a full-width digit or `＠`, detection runs on a copy with
the full-width ASCII block folded to ASCII, one character for one, so the spans found there are
the spans of the original, which is the text redacted. The test costs nothing on texts without
characters beyond Latin-1 (CPython answers `in` at once for a character wider than the string's).
"""

from __future__ import annotations

import bisect

from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.credentials import find_secrets
from corpus_pipeline.pii.emails import find_emails, find_obfuscated_emails
from corpus_pipeline.pii.ip_addresses import find_ipv6
from corpus_pipeline.pii.numeric import find_numeric
from corpus_pipeline.pii.types import PLACEHOLDERS, RANK, Span

_NUMERIC_KINDS = frozenset({"phone", "card", "ssn", "cn_id", "ip", "iban"})
# U+FF01-U+FF5E are the full-width forms of ASCII ! to ~; U+3000 is the ideographic space.
_FOLD_FULLWIDTH = {**{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}, 0x3000: 0x20}
_FULLWIDTH_HINTS = "０１２３４５６７８９＠"


def resolve_overlaps(candidates: list[Span]) -> list[Span]:
    """The accepted spans, in text order; deterministic whatever the order of `candidates`."""
    if len(candidates) < 2:
        return list(candidates)
    starts: list[int] = []  # of the accepted spans, which never overlap: sorted by start and by end
    accepted: list[Span] = []
    for span in sorted(set(candidates), key=lambda s: (RANK[s.kind], s.start - s.end, s.start)):
        index = bisect.bisect_left(starts, span.start)
        if (index == 0 or accepted[index - 1].end <= span.start) and (
            index == len(accepted) or span.end <= accepted[index].start
        ):
            starts.insert(index, span.start)
            accepted.insert(index, span)
    return accepted


def redact(text: str, spans: list[Span]) -> str:
    """`text` with each span (non-overlapping, in order) replaced by its type's placeholder."""
    if not spans:
        return text
    parts, position = [], 0
    for start, end, kind in spans:
        parts.append(text[position:start])
        parts.append(PLACEHOLDERS[kind])
        position = end
    parts.append(text[position:])
    return "".join(parts)


class PiiDetector:
    def __init__(self, config: PiiConfig | None = None):
        self.config = config or PiiConfig()
        self.kinds = frozenset(self.config.types)
        self._numeric_kinds = self.kinds & _NUMERIC_KINDS

    def candidates(self, text: str) -> list[Span]:
        """Every match of every enabled type, overlaps not yet settled."""
        config, kinds = self.config, self.kinds
        spans: list[Span] = []
        if "email" in kinds:
            spans += find_emails(text)
            if config.obfuscated_emails:
                spans += find_obfuscated_emails(text)
        if self._numeric_kinds:
            spans += find_numeric(text, self._numeric_kinds, config.public_ips_only)
        if "ip" in kinds:
            spans += find_ipv6(text, config.public_ips_only)
        if "secret" in kinds:
            spans += find_secrets(text, config.secret_min_length, config.secret_min_entropy)
        return spans

    def find(self, text: str) -> list[Span]:
        if any(char in text for char in _FULLWIDTH_HINTS):
            text = text.translate(_FOLD_FULLWIDTH)
        return resolve_overlaps(self.candidates(text))
