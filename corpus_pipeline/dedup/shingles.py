"""What a document is compared on: its normalized text cut into overlapping n-grams.

Space-separated languages are cut into word n-grams; Chinese, Japanese, Thai and other scripts
written without spaces into character n-grams (a "word" there would be a whole sentence).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

import numpy as np

# Languages written without spaces between words (ISO 639-1/3 codes as fastText and GlotLID emit).
NO_SPACE_LANGUAGES = frozenset({"zh", "ja", "th", "lo", "km", "my", "bo", "yue", "wuu", "dz"})
# Unicode blocks of those scripts, used when a document has no language (langid not run).
# Thai, Lao, Myanmar, Khmer, kana, CJK ideographs (Korean is written with spaces: not here).
_NO_SPACE_SCRIPT = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# A document is cut by characters when this share of its characters is in such a script.
NO_SPACE_SHARE = 0.3
_PLANES_WITH_SYMBOLS = 0x20000  # code points of planes 0 (BMP) and 1


@lru_cache(maxsize=1)
def _stripped_code_points() -> np.ndarray:
    """True for every code point in a punctuation or symbol category (8,560 of them): digits and
    letters carry the content that tells pages apart. Every one lies in planes 0 and 1 (the last
    is U+1FBCA in Unicode 14; planes 2-16 hold ideographs, tags, variation selectors and private
    use), so only those are looked up: 40 ms per process instead of 0.3 s, which was a fifth of a
    local dedup of 1,432 pages. tests/dedup/test_dedup_helpers.py checks every code point."""
    stripped = np.zeros(sys.maxunicode + 1, dtype=bool)
    stripped[[c for c in range(_PLANES_WITH_SYMBOLS) if unicodedata.category(chr(c))[0] in "PS"]] = True
    return stripped


def normalize_for_hashing(text: str) -> str:
    """Lower-case, punctuation and symbols replaced by spaces, whitespace collapsed: two copies
    that differ only in quotes, dashes or line breaks hash the same. The lookup runs on the UTF-32
    code points in numpy: 7x faster than a per-character loop on the real pages (0.20 s vs 1.46 s
    for 1,000 documents), which made it three quarters of the signature time."""
    # str.split() splits on exactly the characters regex \s matches (checked on every code point).
    return " ".join(_symbols_as_spaces(text.lower()).split())


def normalize_many(texts: list[str]) -> list[str]:
    """normalize_for_hashing of each text, with one lookup over all of them: a document's ~40
    paragraphs each paid the lookup's fixed cost (numpy's calls, the encode and decode) when
    normalized one by one."""
    lowered = [text.lower() for text in texts]
    mapped = _symbols_as_spaces("".join(lowered))  # code point for code point, so slices line up
    normalized, start = [], 0
    for text in lowered:
        normalized.append(" ".join(mapped[start : start + len(text)].split()))
        start += len(text)
    return normalized


def _symbols_as_spaces(text: str) -> str:
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    codes[_stripped_code_points()[codes]] = ord(" ")
    return codes.tobytes().decode("utf-32-le", "surrogatepass")


@lru_cache(maxsize=1)
def _space_code_points() -> np.ndarray:
    """True for the 29 code points str.split() splits on, all at or below U+3000 (the ideographic
    space): looking below it costs 3 ms, not the 1 s of every code point."""
    spaces = np.zeros(sys.maxunicode + 1, dtype=bool)
    spaces[[c for c in range(0x3001) if chr(c).isspace()]] = True
    return spaces


def normalize_with_offsets(text: str) -> tuple[str, np.ndarray]:
    """`normalize_for_hashing(text)` and, for each of its characters, the index in `text` of the
    character it comes from (a collapsed space: of the character before it), so a match found in
    the normalized text can be cut out of the original one (decontamination)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        origin = np.arange(len(text))
    else:  # a character whose lower case is longer (U+0130 is two code points in lower case)
        origin = np.repeat(np.arange(len(text)), [len(c.lower()) for c in text])
    codes = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    kept = np.flatnonzero(~(_stripped_code_points()[codes] | _space_code_points()[codes]))
    if not len(kept):
        return "", np.empty(0, dtype=np.int64)
    # One space before each run of kept characters but the first.
    space_before = np.concatenate(([0], (np.diff(kept) > 1).astype(np.int64)))
    positions = np.arange(len(kept)) + np.cumsum(space_before)
    normalized = np.full(positions[-1] + 1, ord(" "), dtype=np.uint32)
    normalized[positions] = codes[kept]
    offsets = np.zeros(len(normalized), dtype=np.int64)
    offsets[positions] = origin[kept]
    offsets[positions[space_before == 1] - 1] = origin[kept[np.flatnonzero(space_before) - 1]]
    return normalized.tobytes().decode("utf-32-le", "surrogatepass"), offsets


def base_language(language: str | None) -> str:
    """`zh`, `zh-Hans`, `zho_Hans` and `cmn` style labels to the code NO_SPACE_LANGUAGES uses."""
    if not language:
        return ""
    code = language.replace("-", "_").split("_")[0].lower()
    return {"zho": "zh", "cmn": "zh", "jpn": "ja", "tha": "th", "lao": "lo", "khm": "km", "mya": "my"}.get(code, code)


def has_no_space_script(text: str) -> bool:
    """Any character of a script written without spaces (an English page may quote Chinese)."""
    return _NO_SPACE_SCRIPT.search(text) is not None


def uses_characters(language: str | None, normalized: str) -> bool:
    if language:
        return base_language(language) in NO_SPACE_LANGUAGES
    if not normalized:
        return False
    return len(_NO_SPACE_SCRIPT.findall(normalized)) / len(normalized) >= NO_SPACE_SHARE


def shingles(normalized: str, by_characters: bool, word_ngram: int, char_ngram: int) -> set[str]:
    """The set of n-grams of an already normalized text; a text shorter than one n-gram is its own
    single shingle, and an empty text has none (it is left to the exact method)."""
    if by_characters:
        units: list[str] | str = normalized.replace(" ", "")
        size, joiner = char_ngram, ""
    else:
        units = normalized.split(" ") if normalized else []
        size, joiner = word_ngram, " "
    if not units:
        return set()
    if len(units) <= size:
        return {joiner.join(units)}
    return {joiner.join(units[i : i + size]) for i in range(len(units) - size + 1)}


def document_shingles(text: str, language: str | None, word_ngram: int, char_ngram: int) -> set[str]:
    normalized = normalize_for_hashing(text)
    return shingles(normalized, uses_characters(language, normalized), word_ngram, char_ngram)


def jaccard(first: set[str], second: set[str]) -> float:
    if not first and not second:
        return 1.0
    return len(first & second) / len(first | second)
