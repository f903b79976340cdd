"""The units every quality signal counts: lines, paragraphs and words, split once per document.

Words. One compiled regex serves every language, so a document is tokenized once whatever its
language, and a Chinese quotation inside English text is split like Chinese:

- Han characters and kana are one unit each. Chinese and Japanese are written without spaces, and
  the Gopher/C4/FineWeb signals only need countable units, so characters stand in for words there
  (the thresholds for zh/ja in the config are calibrated on characters). A segmenter was the
  alternative: jieba 0.42, the usual one, takes 5.7 ms on a 670-character People's Daily article,
  this regex 0.2 ms (measured on 300 articles); and the Chinese stop words that the Gopher check
  needs (的 了 是 在 和 ...) are single characters, so characters serve that check too.
- Everything else: runs of word characters (letters, digits, underscore), with apostrophes inside
  a word kept (`don't`, `l’école`). Punctuation attached to a word is not part of it, so `world.`
  is the word `world`. Hyphenated compounds are separate words, as spaCy splits them.
- Scripts written without spaces but not CJK (Thai, Lao, Khmer, Myanmar) come out as long
  "words"; their thresholds, if wanted, belong in the config per language.

Standalone symbol tokens (`•`, `|`, `»`, `--` with whitespace on both sides) are counted apart:
Gopher's "share of words with a letter" is over whitespace tokens, in which a menu separator is a
token without a letter but a comma glued to a word is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Han (CJK unified ideographs, extension A, compatibility, extensions B-G), hiragana, katakana,
# katakana phonetic extensions, half-width katakana. 々 (U+3005) and ー (U+30FC) are inside these.
CJK_CHARS = "\u3005\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
WORD = re.compile(rf"[{CJK_CHARS}]|[^\W{CJK_CHARS}]+(?:['’][^\W{CJK_CHARS}]+)*")
# Combining marks are not `\w` to Python's re, so Indic, Thai or Hebrew words would be cut at
# every vowel sign (Bengali came out at 1.4 characters per word). Text holding such a mark is
# tokenized with them counted as word characters; other text keeps the simpler, faster pattern.
# (After NFC, Latin, Greek and Cyrillic accents are precomposed letters, not marks.)
COMBINING_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0dff\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd\u0f18-\u0fbc"
    "\u102b-\u103e\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20f0\ufe20-\ufe2f"
)
_MARK = re.compile(f"[{COMBINING_MARKS}]")
# Text with neither a CJK character nor a combining mark (most pages in space-separated scripts):
# there WORD's classes are plain `\w`, and this spelling of it is found 1.3x faster (302 against
# 403 ms for the 1,316 such real pages); one scan for either kind of character tells which is which.
_PLAIN_WORD = re.compile(r"\w+(?:['’]\w+)*")
_CJK_OR_MARK = re.compile(f"[{CJK_CHARS}{COMBINING_MARKS}]")
_WORD_CHAR_OR_MARK = rf"(?:[^\W{CJK_CHARS}]|[{COMBINING_MARKS}])"
WORD_WITH_MARKS = re.compile(rf"[{CJK_CHARS}]|{_WORD_CHAR_OR_MARK}+(?:['’]{_WORD_CHAR_OR_MARK}+)*")
# A whitespace character then the token (twice as fast as a `(?<!\S)` look-behind); the text's
# first token, which has no whitespace before it, is matched apart.
_SYMBOL_TOKEN = re.compile(r"\s[^\w\s]+(?!\S)")
_LEADING_SYMBOL_TOKEN = re.compile(r"[^\w\s]+(?!\S)")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")

# Languages whose words are characters (see above): thresholds on words and word lengths differ.
CHARACTER_LANGUAGES = frozenset({"zh", "ja", "yue", "wuu", "gan", "lzh"})

# Gopher's English stop words (Rae et al. 2021, MassiveText), and for other languages the most
# frequent function words, which any running text of some length contains. Chinese and Japanese:
# single characters, matching the character units. A language without a list gets no stop-word
# signal (null), and the rule on it is skipped.
STOP_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("the", "be", "to", "of", "and", "that", "have", "with"),
    # Function characters: news headlines and short reports can do without 的, not without all.
    "zh": tuple("的了是在和有不这也就都与为对以将等从而及其之中上到说要把被让向于地得着个们我你他她它"),
    "ja": ("の", "に", "は", "を", "た", "が", "で", "て", "と", "し"),
    "de": ("der", "die", "und", "in", "den", "von", "zu", "das", "mit", "sich", "ist", "nicht"),
    "fr": ("le", "la", "les", "de", "et", "un", "une", "est", "que", "des", "du", "pour"),
    "es": ("de", "la", "que", "el", "en", "y", "los", "del", "se", "las", "por", "un"),
    "it": ("di", "il", "la", "che", "e", "in", "per", "un", "una", "del", "non", "sono"),
    "pt": ("de", "que", "o", "a", "do", "da", "em", "um", "para", "com", "uma", "os"),
    "nl": ("de", "het", "een", "van", "en", "in", "is", "dat", "op", "te", "zijn", "met"),
    "ru": ("и", "в", "не", "на", "что", "с", "он", "как", "по", "это", "к", "но"),
}


def is_character_language(language: str | None) -> bool:
    return language in CHARACTER_LANGUAGES


def stop_word_set(words: tuple[str, ...] | list[str]) -> frozenset[str]:
    """The words as written at a sentence start or in capitals too, so that counting needs no
    lowercased copy of the document's words."""
    return frozenset(form for word in words for form in (word, word.capitalize(), word.upper()))


@dataclass(slots=True)
class Segments:
    """One document split once; every signal family reads these instead of splitting again."""

    text: str
    lower: str  # text.lower(), for the case-insensitive substring checks (C4, blocklists)
    lines: list[str]  # non-empty lines, stripped
    paragraphs: list[str]  # blocks between blank lines, stripped, non-empty
    words: list[str]  # `word_units(text)`, in order
    symbol_tokens: int  # standalone symbol tokens, see the module docstring
    dup_lines: int  # lines that repeat an earlier line of the document
    dup_line_chars: int  # their characters


def repeats(items: list[str]) -> tuple[int, int]:
    """How many items repeat an earlier item, and their characters (each repeat counted again)."""
    seen: set[str] = set(items)
    if len(seen) == len(items):  # the common case, at C speed
        return 0, 0
    seen.clear()
    count = chars = 0
    for item in items:
        if item in seen:
            count += 1
            chars += len(item)
        else:
            seen.add(item)
    return count, chars


def word_units(text: str) -> list[str]:
    if _CJK_OR_MARK.search(text) is None:
        return _PLAIN_WORD.findall(text)
    return (WORD_WITH_MARKS if _MARK.search(text) else WORD).findall(text)


def segment(text: str) -> Segments:
    lines = [line for line in map(str.strip, text.split("\n")) if line]
    if "\n" in text and _PARAGRAPH_BREAK.search(text):
        paragraphs = [p for p in map(str.strip, _PARAGRAPH_BREAK.split(text)) if p]
    else:
        paragraphs = [text.strip()] if text.strip() else []
    dup_lines, dup_line_chars = repeats(lines)
    return Segments(
        text=text,
        lower=text.lower(),
        lines=lines,
        paragraphs=paragraphs,
        words=word_units(text),
        symbol_tokens=len(_SYMBOL_TOKEN.findall(text)) + (_LEADING_SYMBOL_TOKEN.match(text) is not None),
        dup_lines=dup_lines,
        dup_line_chars=dup_line_chars,
    )


# Closing quotes and brackets after a sentence's stop do not hide it: `he said."`, `。”`, `。）`.
CLOSERS = "\"'”’»」』）)]"


def ends_sentence(line: str, terminal: tuple[str, ...]) -> bool:
    """Whether `line` ends in one of `terminal`, looking past closing quotes and brackets and past
    a bracketed credit after the stop, as Chinese news ends paragraphs: `...暖意。（新华社记者刘宇摄）`."""
    if line.rstrip(CLOSERS).endswith(terminal):
        return True
    if line.endswith(("）", ")")):
        opening = max(line.rfind("（"), line.rfind("("))
        return opening > 0 and line[:opening].rstrip().endswith(terminal)
    return False
