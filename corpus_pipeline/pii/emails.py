"""Email addresses, found from their `@`, and (optionally) obfuscated `name [at] domain [dot] com` forms.

Plain addresses are found by jumping from one `@` to the next (`str.find`, memchr speed) and matching
the domain forward and the local part backward from there, instead of running an address regex
over the whole text: most documents have no `@` at all and cost one scan (~1 us on 5 KB).
Patterns are ASCII (`re.ASCII`), so a Chinese character next to an address is a boundary:
`邮箱123456789@qq.com，谢谢` yields `123456789@qq.com`.
"""

from __future__ import annotations

import re

from corpus_pipeline.pii.types import Span

_LOCAL_CHARS = r"A-Za-z0-9._%+-"  # no quote: `'a@b.com'` must keep its quotes
# The local part ending right before the `@`; searched in a window of at most 64 characters.
_LOCAL = re.compile(rf"(?<![{_LOCAL_CHARS}])[{_LOCAL_CHARS}]{{1,64}}\Z", re.ASCII)
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
# The domain right after the `@`: labels, then an alphabetic top-level domain.
_DOMAIN = re.compile(rf"(?:{_LABEL}\.)+([A-Za-z]{{2,24}})(?![A-Za-z0-9-]|\.[A-Za-z0-9])", re.ASCII)
# `logo@2x.png` is a retina image name, not an address.
_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "css", "js", "ico", "bmp", "tif", "tiff"})

# Obfuscated forms. Bracketed `at` (`[at]`, `(at)`, `{at}`, `<at>`, any case), then a domain whose
# dots are literal or bracketed (`[dot]`); or the spelled-out `name AT domain DOT com`, accepted in
# capitals only: in lower case it is prose as often as not ("looking at google dot com").
_AT_BRACKETED = r"\s?[\[({<]\s?at\s?[\])}>]\s?"
_DOT_BRACKETED = r"\s?[\[({<]\s?dot\s?[\])}>]\s?"
_OBFUSCATED_BRACKETED = re.compile(
    rf"(?<![{_LOCAL_CHARS}])[{_LOCAL_CHARS}]{{1,64}}{_AT_BRACKETED}"
    rf"{_LABEL}(?:(?:{_DOT_BRACKETED}|\.){_LABEL})*(?:{_DOT_BRACKETED}|\.)[A-Za-z]{{2,24}}(?![A-Za-z0-9-])",
    re.ASCII | re.IGNORECASE,
)
_OBFUSCATED_SPELLED = re.compile(
    rf"(?<![{_LOCAL_CHARS}])[{_LOCAL_CHARS}]{{1,64}} AT {_LABEL}(?: DOT {_LABEL})* DOT [A-Za-z]{{2,24}}"
    r"(?![A-Za-z0-9-])",
    re.ASCII,
)
# Cheap presence tests before those patterns run: `at` right before a closing bracket, one pattern
# per bracket so that each starts with a literal (a fast substring scan, ~3 us on 5 KB, where a
# character class of four brackets costs ~40 us); and " DOT " (one substring search).
_BRACKETED_AT_HINTS = tuple(
    re.compile(rf"\{closer}(?:(?<=[aA][tT]\{closer})|(?<=[aA][tT]\s\{closer}))") for closer in "])}>"
)


def find_emails(text: str) -> list[Span]:
    spans = []
    at = text.find("@")
    while at >= 0:
        domain = _DOMAIN.match(text, at + 1)
        local = _LOCAL.search(text, max(0, at - 64), at) if domain else None
        if domain and local and domain.group(1).lower() not in _FILE_SUFFIXES:
            start = local.start()
            while start < at and text[start] == ".":  # a sentence's full stop is not the address
                start += 1
            if start < at:
                spans.append(Span(start, domain.end(), "email"))
            at = text.find("@", domain.end())
        else:
            at = text.find("@", at + 1)
    return spans


def find_obfuscated_emails(text: str) -> list[Span]:
    spans = []
    if any(hint.search(text) for hint in _BRACKETED_AT_HINTS):
        spans += [Span(m.start(), m.end(), "email") for m in _OBFUSCATED_BRACKETED.finditer(text)]
    if " DOT " in text:
        spans += [Span(m.start(), m.end(), "email") for m in _OBFUSCATED_SPELLED.finditer(text)]
    return spans
