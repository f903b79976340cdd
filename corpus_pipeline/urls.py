"""URL canonicalization shared by document ids, URL dedup and the crawler's seen-set."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Everything printable ASCII stays as written (reserved characters such as `&` and `%26` mean
# different things); only spaces, controls and non-ASCII characters get percent-encoded.
_KEEP_LITERAL = "".join(chr(c) for c in range(0x21, 0x7F))


def _normalize_escapes(component: str) -> str:
    """RFC 3986 6.2.2: decode escapes of unreserved characters, upper-case the others."""

    def fix(match: re.Match) -> str:
        byte = int(match.group(1), 16)
        return chr(byte) if byte in _UNRESERVED else "%" + match.group(1).upper()

    return _PERCENT_ESCAPE.sub(fix, quote(component, safe=_KEEP_LITERAL))


def canonical_url(url: str) -> str:
    """Lower-case scheme and host, drop the default port, the fragment and an empty query,
    and percent-encode consistently, so `HTTP://Example.com:80/a%7eb#x` == `http://example.com/a~b`.

    Query parameter order is kept: many sites give different pages for different orders.
    Unparseable URLs are returned stripped, never raised on (the id must always be computable).
    """
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:  # IPv6 literal: urlsplit drops the brackets
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    if parts.username:
        host = f"{parts.username}@{host}"
    path = _normalize_escapes(parts.path) or ("/" if host else "")
    query = _normalize_escapes(parts.query)
    return urlunsplit((scheme, host, path, query, ""))
