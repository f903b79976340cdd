"""The PII types, their placeholders, and the priority that settles overlapping matches.

Overlaps are resolved by specificity first, then length, then position (see `resolve_overlaps`):
a match whose format is checked by a checksum or a strict structure beats a looser one on the same
characters. The order, most specific first:

    secret > email > iban > cn_id > card > ssn > ip > phone

- secret first: a token or key block may contain anything (digits, `@`, dots).
- email before the number types: `123456789@qq.com` holds a digit run that is not a phone.
- iban (mod-97 and exact per-country length) and cn_id (MOD 11-2 checksum and a real birth date)
  before card (Luhn passes one random digit string in ten): an 18-digit resident ID that happens to
  pass Luhn is still an ID.
- ssn (fixed 3-2-4 shape with valid ranges) and ip (validated by `ipaddress`) before phone, the
  loosest pattern, which would otherwise swallow `460-89-9847` or `106.31.73.20`.
"""

from __future__ import annotations

from typing import NamedTuple, get_args

from corpus_pipeline.pii.config import PiiTypeName

# Most specific first; the index is the rank used to resolve overlaps.
PII_TYPES: tuple[str, ...] = ("secret", "email", "iban", "cn_id", "card", "ssn", "ip", "phone")
RANK = {kind: rank for rank, kind in enumerate(PII_TYPES)}

PLACEHOLDERS = {
    "email": "<EMAIL>",
    "phone": "<PHONE>",
    "ip": "<IP_ADDRESS>",
    "card": "<CREDIT_CARD>",
    "iban": "<IBAN>",
    "ssn": "<ID_NUMBER>",
    "cn_id": "<ID_NUMBER>",
    "secret": "<SECRET>",
}

if set(PII_TYPES) != set(get_args(PiiTypeName)) or set(PLACEHOLDERS) != set(PII_TYPES):
    raise ImportError("corpus_pipeline.pii.types and config.PiiTypeName disagree on the PII types")


class Span(NamedTuple):
    """A match: characters [start, end) of the text are PII of type `kind`."""

    start: int
    end: int
    kind: str
