"""IBANs (ISO 13616): a known country code, that country's exact length, and the mod-97 check.

Printed compact (`GB29NWBK60161331926819`) or in groups of four (`GB29 NWBK 6016 1331 9268 19`),
upper or lower case. The length table is SWIFT's IBAN registry; a candidate from any other country
code, of another length, or failing mod-97 (which catches every single-character error and all but
one in 97 random strings) is not an IBAN.
"""

from __future__ import annotations

from corpus_pipeline.pii.types import Span

IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27,
    "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25,
    "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18,
    "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33,
    "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def iban_valid(compact: str) -> bool:
    """`compact`: the IBAN without spaces, any case."""
    compact = compact.upper()
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact.isalnum():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def iban_at(text: str, start: int) -> Span | None:
    """The IBAN starting at text[start] (its country code), if there is a valid one.

    Takes exactly the country's length of letters and digits, single spaces between them allowed;
    the IBAN must end there (a letter or digit right after it means a longer token)."""
    length = IBAN_LENGTHS.get(text[start : start + 2].upper())
    if length is None:
        return None
    kept, end = [], start
    while len(kept) < length and end < len(text):
        char = text[end]
        if char in _ALNUM:
            kept.append(char)
        elif char != " " or text[end - 1] == " ":
            break
        end += 1
    if len(kept) == length and (end == len(text) or text[end] not in _ALNUM) and iban_valid("".join(kept)):
        return Span(start, end, "iban")
    return None
