"""Payment card numbers: 12-19 digits in a card layout, a known issuer prefix, and a valid Luhn checksum.

Luhn alone passes one random digit string in ten, so the issuer prefix narrows it further: it
rules out ISBN-13s (978/979...), most order and tracking numbers, and anything starting with 0, 7,
8 or 9. Prefixes accepted: Visa 4; Mastercard 51-55 and 2221-2720; Amex 34, 37; Diners 30, 36, 38,
39; Discover 6011, 644-649, 65; JCB 35, 2131, 1800; Maestro 50, 56-69; UnionPay 62; Mir 2200-2204.
"""

from __future__ import annotations

import re

from corpus_pipeline.pii.types import Span

# Inside a numeric chunk (see numeric.py): contiguous, 4-4-4-4(-3) with one separator, or Amex /
# Diners 4-6-5 / 4-6-4. A run right after `.` or `,` is a decimal fraction, not a card.
CARD = re.compile(
    r"(?<![0-9.,])(?<![0-9][ -])(?:[0-9]{12,19}(?![0-9])"
    r"|[0-9]{4}([ -])[0-9]{4}\1[0-9]{4}\1[0-9]{1,4}(?:\1[0-9]{3})?(?![0-9]|\1[0-9])"
    r"|[0-9]{4}([ -])[0-9]{6}\2[0-9]{4,5}(?![0-9]|\2[0-9]))",
    re.ASCII,
)
_ISSUER = re.compile(r"4|5[0-9]|3[0-9]|6[0-9]|2(?:131|2[2-9][0-9]|[3-6][0-9]{2}|7[01][0-9]|720|20[0-4])|1800", re.ASCII)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def find_cards(chunk: str, offset: int) -> list[Span]:
    spans = []
    for match in CARD.finditer(chunk):
        digits = match.group().replace(" ", "").replace("-", "")
        if 12 <= len(digits) <= 19 and _ISSUER.match(digits) and luhn_valid(digits):
            spans.append(Span(offset + match.start(), offset + match.end(), "card"))
    return spans
