"""Labelled near-duplicates for evaluation: edited copies of real documents.

A copy has 2-15% of its units (words; characters for Chinese and other unspaced scripts) replaced,
inserted or deleted, and sometimes its paragraphs reordered and a boilerplate line added or removed,
the edits that syndication, templates and re-crawls make to real pages.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from corpus_pipeline.dedup.shingles import normalize_for_hashing, uses_characters

BOILERPLATE = (
    "Share this article: Facebook Twitter LinkedIn Email",
    "We use cookies to improve your experience. By continuing you accept our cookie policy.",
    "All rights reserved. Reproduction without permission is prohibited.",
)
BOILERPLATE_UNSPACED = ("版权所有，未经许可不得转载。", "分享到：微信 微博 QQ空间", "责任编辑：王伟")
MIN_EDIT_RATE, MAX_EDIT_RATE = 0.02, 0.15

# Share of the documents that get an edited copy unless told otherwise.
PLANT_SHARE = 0.5


@dataclass(frozen=True)
class PlantedCopy:
    original_id: str
    copy: dict


def _edit_units(units: list[str], rate: float, new_unit: Callable[[], str], rng: random.Random) -> list[str]:
    units = list(units)
    for _ in range(max(1, round(rate * len(units)))):
        operation = rng.choice(("replace", "insert", "delete"))
        position = rng.randrange(len(units)) if units else 0
        if operation == "replace" and units:
            units[position] = new_unit()
        elif operation == "delete" and len(units) > 1:
            del units[position]
        else:
            units.insert(position, new_unit())
    return units


def edited_copy(text: str, by_characters: bool, pool: list[str], rng: random.Random) -> str:
    paragraphs = [p for p in text.split("\n") if p.strip()] or [text]
    if len(paragraphs) > 2 and rng.random() < 0.3:
        rng.shuffle(paragraphs)
    if len(paragraphs) > 2 and rng.random() < 0.2:
        paragraphs.pop(rng.choice((0, -1)))
    rate = rng.uniform(MIN_EDIT_RATE, MAX_EDIT_RATE)
    if by_characters:
        edited = _edit_units(list("\n".join(paragraphs)), rate, lambda: rng.choice(pool), rng)
        text = "".join(edited)
    else:
        lines = [p.split(" ") for p in paragraphs]
        flat = [(i, word) for i, words in enumerate(lines) for word in words]
        kept = _edit_units([f"{i}\x00{w}" for i, w in flat], rate, lambda: f"-1\x00{rng.choice(pool)}", rng)
        rebuilt: list[list[str]] = [[] for _ in lines]
        line = 0
        for unit in kept:
            index, word = unit.split("\x00", 1)
            line = int(index) if int(index) >= 0 else line  # an inserted word joins the current line
            rebuilt[line].append(word)
        text = "\n".join(" ".join(words) for words in rebuilt if words)
    if rng.random() < 0.3:
        line = rng.choice(BOILERPLATE_UNSPACED if by_characters else BOILERPLATE)
        text = f"{text}\n{line}" if rng.random() < 0.5 else f"{line}\n{text}"
    return text


def plant_copies(docs: list[dict], seed: int, share: float = PLANT_SHARE) -> list[PlantedCopy]:
    """One edited copy for a seeded `share` of the documents (ids `<id>#copy`)."""
    rng = random.Random(seed)
    words = sorted({w for doc in docs for w in doc["text"].split()})
    characters = sorted({c for doc in docs for c in doc["text"] if not c.isspace()})
    planted = []
    for doc in docs:
        if rng.random() >= share:
            continue
        by_characters = uses_characters(doc.get("language"), normalize_for_hashing(doc["text"]))
        text = edited_copy(doc["text"], by_characters, characters if by_characters else words, rng)
        planted.append(PlantedCopy(doc["id"], {**doc, "id": f"{doc['id']}#copy", "text": text}))
    return planted
