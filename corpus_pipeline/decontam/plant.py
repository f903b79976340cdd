"""Copies of eval items as they turn up on the web, planted into real pages, for `eval
decontamination`.

An item is a question and an answer (HumanEval: the prompt and the canonical solution; a Chinese
item: two halves of a People's Daily paragraph). Each edit kind writes it the way a page would:

    verbatim     question and answer inside the page's own text
    reflowed     line breaks and indentation lost, the words rewrapped at 60 columns
    reindented   code indented by 2 spaces or a tab instead of 4; Chinese lines led by 2 ideographic spaces
    split        question and answer in paragraphs apart, page text between them
    answer_only  the answer without its question
"""

from __future__ import annotations

import random
import re
import textwrap
from dataclasses import dataclass

EDIT_KINDS = ("verbatim", "reflowed", "reindented", "split", "answer_only")
_FOUR_SPACES = re.compile(r"(?m)^((?:    )+)")


@dataclass(frozen=True)
class QA:
    id: str
    question: str
    answer: str


def edited(item: QA, kind: str, rng: random.Random, filler: str) -> list[str]:
    """The item as paragraphs of a page, edited as `kind` says; `filler` is page text for `split`."""
    if kind == "verbatim":
        return [f"{item.question}\n{item.answer}"]
    if kind == "reflowed":
        return [textwrap.fill(" ".join(f"{item.question} {item.answer}".split()), 60)]
    if kind == "reindented":
        return [_reindented(f"{item.question}\n{item.answer}", rng)]
    if kind == "split":
        return [item.question, filler, item.answer]
    if kind == "answer_only":
        return [item.answer]
    raise ValueError(f"unknown edit kind {kind!r}: expected one of {', '.join(EDIT_KINDS)}")


def _reindented(text: str, rng: random.Random) -> str:
    if _FOUR_SPACES.search(text):
        unit = rng.choice(["  ", "\t"])
        return _FOUR_SPACES.sub(lambda m: unit * (len(m.group(1)) // 4), text)
    return "\n".join("\u3000\u3000" + line.strip() for line in text.splitlines())


def planted_page(host: str, paragraphs: list[str], rng: random.Random) -> str:
    """The host page with the paragraphs inserted between two of its own paragraphs, so page text
    surrounds them."""
    own = [p for p in host.split("\n") if p.strip()] or [host]
    at = rng.randint(1, max(1, len(own) - 1)) if len(own) > 1 else 1
    return "\n".join(own[:at] + paragraphs + own[at:])
