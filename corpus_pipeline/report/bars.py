"""Labelled counts for a bar chart: languages, domains, drop reasons, PII types, shards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# A chart draws at most this many bars; the rest are named in a last line, not squeezed in.
MAX_BARS = 40


@dataclass
class Bars:
    title: str
    items: list[tuple[str, float]]  # label, value; drawn in this order
    unit: str = "documents"

    @property
    def total(self) -> float:
        return sum(value for _, value in self.items)


def ranked(counts: Mapping[str, float]) -> list[tuple[str, float]]:
    """Largest first, ties by label, so the same counts always draw the same chart."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def top_with_other(counts: Mapping[str, float], top: int, other: str = "(other)") -> list[tuple[str, float]]:
    items = ranked(counts)
    if len(items) <= top:
        return items
    return items[:top] + [(other, sum(value for _, value in items[top:]))]


def shares(counts: Mapping[str, float]) -> dict[str, float]:
    total = sum(counts.values())
    return {key: value / total for key, value in counts.items()} if total else {}
