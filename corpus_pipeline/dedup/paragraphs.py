"""Paragraphs of a document for CCNet-style boilerplate removal (Wenzek et al., "CCNet", 2019, 3.3):
split the text into paragraphs, hash each normalized paragraph, and drop those that a Spark job
(paragraph_job.py) found in too many documents. Plain Python; no Spark here.

A paragraph is a line: the record separates paragraphs with a blank line, and extractors often
put one paragraph per line, so every line break splits (CCNet splits on "\n" too). Normalization is
the dedup one (case, punctuation and whitespace ignored) with every digit read as 0, as CCNet does:
"© 2021 Example Ltd" and "© 2023 Example Ltd", "Page 3 of 12" and "Page 4 of 12" are one template.
Chinese needs nothing more: a paragraph is a line whatever the script, spaces or none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import xxhash

from corpus_pipeline.dedup.shingles import normalize_many

# A run of whitespace holding at least one line break separates two paragraphs.
_SEPARATOR = re.compile(r"\s*\n\s*")
_DIGIT = re.compile(r"\d")  # \d in Python's str patterns: every Unicode digit, full-width ones too


def split_paragraphs(text: str) -> tuple[list[str], list[str]]:
    """(paragraphs, separators): separators[i] joins paragraphs[i] and [i + 1]; leading and
    trailing whitespace belongs to no paragraph. Empty text: no paragraphs."""
    stripped = text.strip()
    if not stripped:
        return [], []
    return _SEPARATOR.split(stripped), _SEPARATOR.findall(stripped)


def normalize_paragraph(paragraph: str) -> str:
    return normalize_paragraphs([paragraph])[0]


def normalize_paragraphs(paragraphs: list[str]) -> list[str]:
    """normalize_paragraph of each paragraph, normalized together (shingles.normalize_many)."""
    return [_DIGIT.sub("0", text) for text in normalize_many(paragraphs)]


def paragraph_hash(paragraph: str) -> int | None:
    """Signed 64-bit hash (Spark's LongType) of the normalized paragraph; None for a paragraph that
    normalizes to nothing ("***", "—"), which says nothing about boilerplate and is never counted."""
    return paragraph_hashes([paragraph])[0]


def paragraph_hashes(paragraphs: list[str]) -> list[int | None]:
    """paragraph_hash of each paragraph."""
    normalized = normalize_paragraphs(paragraphs)
    return [xxhash.xxh3_64_intdigest(text.encode()) - (1 << 63) if text else None for text in normalized]


def document_paragraph_hashes(text: str) -> set[int]:
    """The distinct hashes of a document's paragraphs: a paragraph repeated inside one document
    counts once, since the job counts documents, not occurrences."""
    return {h for h in paragraph_hashes(split_paragraphs(text)[0]) if h is not None}


@dataclass(frozen=True)
class Cleaned:
    text: str
    paragraphs_removed: int
    characters_removed: int  # characters of `text` before minus after (paragraphs and separators)


def remove_paragraphs(text: str, repeated: set[int]) -> Cleaned:
    """The text without the paragraphs whose hash is in `repeated`. Two kept paragraphs that had
    removed ones between them are joined by the widest separator of that stretch (most line
    breaks), so a paragraph break around a removed line stays a paragraph break."""
    paragraphs, separators = split_paragraphs(text)
    hashes = paragraph_hashes(paragraphs)
    kept: list[str] = []
    pending = ""  # the widest separator since the last kept paragraph
    removed = 0
    for index, paragraph in enumerate(paragraphs):
        if index:
            separator = separators[index - 1]
            pending = max(pending, separator, key=lambda s: s.count("\n")) if pending else separator
        if hashes[index] in repeated:
            removed += 1
            continue
        if kept:
            kept.append(pending)
        kept.append(paragraph)
        pending = ""
    cleaned = "".join(kept) if removed else text
    return Cleaned(cleaned, removed, len(text) - len(cleaned))
