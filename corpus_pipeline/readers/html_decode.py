"""Bytes to text for fetched HTML: the HTTP header's charset, then `<meta>`, then detection.

The order browsers use (HTML5 8.2.2.2, minus the BOM which comes first here too). A declared
charset that Python does not know or that fails to decode strictly falls through to the next
source; detection (charset-normalizer) is the last resort because it costs ~1 ms per page and is
wrong more often than a declaration (short pages, mixed scripts).

One exception to "a declaration that decodes wins": a single-byte charset (iso-8859-1, windows-1251...)
decodes almost any bytes, so a GB18030, Shift-JIS or EUC-KR page served with `charset=iso-8859-1`
decodes "cleanly" into mojibake ("ÖÐ¹ú"). Such a decoding is suspected when it holds long runs of
non-ASCII characters (every byte of CJK text is >= 0x80; Latin-script text has its accented letters
one or two at a time between ASCII ones), and overridden (`how` = `<codec>:override`) when detection
confidently finds a multi-byte codec that decodes the page strictly.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE)
# Browsers treat these labels as supersets (WHATWG Encoding Standard): a page labelled gb2312 is
# decoded as GB18030, latin-1 as windows-1252. Decoding with the narrower codec loses characters.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "iso8859-1": "cp1252",
    "x-gbk": "gb18030",
}
# <meta charset> must appear in the first 1024 bytes per HTML5; real pages put it later, so look
# further but not through a whole 10 MB page.
_META_SCAN_BYTES = 8192
# Codecs whose strict decoding of non-ASCII bytes is itself evidence (multi-byte structure): a page
# that decodes in one of them is never second-guessed.
_MULTIBYTE = frozenset(
    codecs.lookup(name).name
    for name in (
        "utf-8",
        "utf-16",
        "utf-32",
        "gb18030",
        "gbk",
        "gb2312",
        "big5",
        "big5hkscs",
        "cp950",
        "shift_jis",
        "cp932",
        "euc_jp",
        "euc_jis_2004",
        "euc_kr",
        "cp949",
        "johab",
        "iso2022_jp",
        "iso2022_kr",
        "hz",
    )
)
# Runs of 4+ non-ASCII characters (no spaces): rare in Latin-script text (a German page of the gold
# set has none), the norm in CJK bytes read one byte per character.
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f\s]{4,}")
# Below this many characters in such runs there is too little text to judge, and too little to lose.
_MOJIBAKE_MIN_CHARS = 20
# charset-normalizer's chaos (0 = clean, 1 = noise) at or under which a detection is trusted over a
# declaration: it is 0.0 for the GB18030, Shift-JIS and EUC-KR pages of the tests.
_CONFIDENT_CHAOS = 0.1
_DETECT_BYTES = 200_000
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().lower()
    label = _SUPERSETS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def charset_from_content_type(content_type: str | None) -> str | None:
    match = _HEADER_CHARSET.search(content_type or "")
    return match.group(1) if match else None


def _strict(payload: bytes, codec: str | None) -> str | None:
    if codec is None:
        return None
    try:
        return payload.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def decode_html(payload: bytes, content_type: str | None) -> tuple[str, str]:
    """Return (text, how), `how` naming the codec and its source, e.g. `gb18030:meta`."""
    for bom, codec in _BOMS:
        if payload.startswith(bom):
            return payload.decode(codec, errors="replace"), f"{codec}:bom"
    header_codec = _codec(charset_from_content_type(content_type))
    text = _strict(payload, header_codec)
    if text is not None:
        return _unless_misdeclared(payload, text, header_codec, "http")
    match = _META_CHARSET.search(payload[:_META_SCAN_BYTES])
    meta_codec = _codec(match.group(1).decode("ascii", "ignore")) if match else None
    text = _strict(payload, meta_codec)
    if text is not None:
        return _unless_misdeclared(payload, text, meta_codec, "meta")
    text = _strict(payload, "utf-8")  # most of the web; cheap to try before detection
    if text is not None:
        return text, "utf-8:default"
    best = from_bytes(payload[:_DETECT_BYTES]).best()
    detected = _codec(best.encoding) if best is not None else None
    if detected is not None:
        return payload.decode(detected, errors="replace"), f"{detected}:detected"
    # A declared charset that failed strictly is still the best guess; replace what does not fit.
    fallback = header_codec or meta_codec or "utf-8"
    return payload.decode(fallback, errors="replace"), f"{fallback}:lossy"


def looks_like_mojibake(text: str) -> bool:
    """Enough non-ASCII characters in long runs to suspect multi-byte text read one byte at a time."""
    in_runs = 0
    for match in _NON_ASCII_RUN.finditer(text):
        in_runs += match.end() - match.start()
        if in_runs >= _MOJIBAKE_MIN_CHARS:
            return True
    return False


def _unless_misdeclared(payload: bytes, text: str, codec: str, source: str) -> tuple[str, str]:
    """The declared decoding, or a confident detection's when the declaration is a single-byte
    charset whose decoding looks like mojibake (see the module docstring)."""
    if codec in _MULTIBYTE or not looks_like_mojibake(text):
        return text, f"{codec}:{source}"
    best = from_bytes(payload[:_DETECT_BYTES]).best()
    detected = _codec(best.encoding) if best is not None else None
    if detected in _MULTIBYTE and detected != codec and best.chaos <= _CONFIDENT_CHAOS:
        overridden = _strict(payload, detected)
        if overridden is not None:
            return overridden, f"{detected}:override"
    return text, f"{codec}:{source}"
