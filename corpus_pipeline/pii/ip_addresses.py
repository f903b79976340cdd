"""IPv4 and IPv6 addresses, validated by the standard library's `ipaddress`.

By default only public (globally routable) addresses count: 10.0.0.1, 127.0.0.1, 192.168.x.x,
fe80::1 and documentation ranges identify no one (`pii.public_ips_only`). `ipaddress` also rejects
octets over 255 and leading zeros, so `03.93.92.16` (a French phone number's start) is no address.
"""

from __future__ import annotations

import ipaddress
import re

from corpus_pipeline.pii.types import Span

# Inside a numeric chunk: four dotted octets, not part of a longer dotted run (`1.2.3.4.5`).
IPV4 = re.compile(r"(?<![0-9.])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?![0-9]|\.[0-9])", re.ASCII)
# IPv6 needs two colons within five characters; the hint starts at a colon (a fast literal scan).
_IPV6_HINT = re.compile(r":[0-9A-Fa-f]{0,4}:", re.ASCII)
_IPV6 = re.compile(
    r"(?<![0-9A-Za-z_:.])(?:[0-9A-Fa-f]{1,4}:|:)(?:[0-9A-Fa-f]{0,4}:){1,7}"
    r"(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![0-9A-Za-z_:]|\.[0-9A-Za-z])",
    re.ASCII,
)


def _counts(text: str, public_only: bool) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return address.is_global if public_only else True


def _looks_like_ipv6(candidate: str) -> bool:
    # `a::b` and `dead::beef` parse as addresses but are C++ scopes and hex words in prose; real
    # addresses carry digits.
    return candidate.count(":") >= 2 and any(char.isdigit() for char in candidate)


def find_ipv4(chunk: str, offset: int, public_only: bool) -> list[Span]:
    return [
        Span(offset + m.start(), offset + m.end(), "ip")
        for m in IPV4.finditer(chunk)
        if _counts(m.group(), public_only)
    ]


def find_ipv6(text: str, public_only: bool) -> list[Span]:
    if not _IPV6_HINT.search(text):
        return []
    return [
        Span(m.start(), m.end(), "ip")
        for m in _IPV6.finditer(text)
        if _looks_like_ipv6(m.group()) and _counts(m.group(), public_only)
    ]
