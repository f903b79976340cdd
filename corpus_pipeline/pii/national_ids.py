"""National ID numbers: US Social Security numbers and 18-digit Chinese resident identity numbers.

SSN (`AAA-GG-SSSS`, dashes or spaces): area 001-899 except 666, group 01-99, serial 0001-9999,
as the SSA issues them (9xx are ITINs, never SSNs). Bare 9-digit runs are not taken: without the
3-2-4 layout they are as likely to be anything else.

Chinese resident ID (GB 11643-1999): 6-digit region code, birth date YYYYMMDD, 3-digit sequence,
and a check character (0-9 or X) from ISO 7064 MOD 11-2 over the first 17 digits. The birth date
must be a real calendar date from 1900 on and not in the future.
"""

from __future__ import annotations

import datetime
import re

from corpus_pipeline.pii.types import Span

SSN = re.compile(r"(?<![0-9])(?<![0-9][ -])[0-9]{3}([ -])[0-9]{2}\1[0-9]{4}(?![0-9]|[ -][0-9])", re.ASCII)
CN_ID = re.compile(r"(?<![0-9.,])[1-9][0-9]{5}(?:19|20)[0-9]{9}[0-9Xx](?![0-9])", re.ASCII)

_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_CHECK = "10X98765432"  # check character for each value of (weighted sum mod 11)


def ssn_valid(ssn: str) -> bool:
    area, group, serial = int(ssn[0:3]), int(ssn[4:6]), int(ssn[7:11])
    return 0 < area < 900 and area != 666 and group > 0 and serial > 0


def cn_id_check_char(first17: str) -> str:
    return _CN_CHECK[sum(int(d) * w for d, w in zip(first17, _CN_WEIGHTS, strict=True)) % 11]


def cn_id_valid(number: str, today: datetime.date | None = None) -> bool:
    if len(number) != 18 or not number[:17].isdigit():
        return False
    try:
        born = datetime.date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    if not datetime.date(1900, 1, 1) <= born <= (today or datetime.date.today()):
        return False
    return cn_id_check_char(number[:17]) == number[17].upper()


def find_ssns(chunk: str, offset: int) -> list[Span]:
    return [Span(offset + m.start(), offset + m.end(), "ssn") for m in SSN.finditer(chunk) if ssn_valid(m.group())]


def find_cn_ids(chunk: str, offset: int) -> list[Span]:
    return [
        Span(offset + m.start(), offset + m.end(), "cn_id") for m in CN_ID.finditer(chunk) if cn_id_valid(m.group())
    ]
