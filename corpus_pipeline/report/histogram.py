"""Histograms of a numeric column, kept and rejected counted apart, with threshold lines.

Web signals are heavy-tailed (a word count's 99th percentile is a few thousand, its maximum can be
a million), so when the largest value lies far beyond the 99th percentile the axis stops at that
percentile and the last bar also counts everything above it. A threshold inside, or near, the
data's range widens the axis to show its line; one far outside is named in the note instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The axis stops at the 99th percentile when the maximum lies more than this many percentile
# spans (p99 - min) above it.
_TAIL_SPANS = 3.0


@dataclass
class Histogram:
    title: str
    edges: list[float]
    series: dict[str, list[int]]  # series name ("kept", "rejected") -> count per bin
    thresholds: list[tuple[str, float]] = field(default_factory=list)  # drawn: ("min", 50.0)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(sum(counts) for counts in self.series.values())


def _axis(values: np.ndarray, thresholds: list[tuple[str, float]]) -> tuple[float, float, list[str]]:
    low, high = float(values.min()), float(values.max())
    notes = []
    p99 = float(np.quantile(values, 0.99))
    if high > p99 + _TAIL_SPANS * (p99 - low) and p99 > low:
        notes.append(f"the last bar also counts values above {p99:.4g} (up to {high:.4g})")
        high = p99
    # A constant signal (every line unique: 0.0) has no span of its own; its magnitude stands in.
    span = high - low if high > low else max(abs(low), 1.0)
    for name, bound in thresholds:
        if low - span <= bound <= high + span:
            low, high = min(low, bound), max(high, bound)
        else:
            notes.append(f"{name} {bound:g} lies off the axis")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high, notes


def histogram(
    title: str, series: dict[str, np.ndarray], bins: int, thresholds: list[tuple[str, float]] = ()
) -> Histogram | None:
    """None when no series has a value (a signal that is null for every document)."""
    present = [values for values in series.values() if len(values)]
    if not present:
        return None
    values = np.concatenate(present).astype(np.float64)
    low, high, notes = _axis(values, list(thresholds))
    integers = bool(np.all(values == np.round(values))) and high - low < bins
    if integers:  # one bar per integer: a line count of 0, 1, 2 reads better than 0-0.07
        edges = np.arange(np.floor(low) - 0.5, np.ceil(high) + 1.0, 1.0)
    else:
        edges = np.linspace(low, high, bins + 1)
    counts = {
        name: np.histogram(np.clip(v.astype(np.float64), edges[0], edges[-1]), bins=edges)[0].tolist()
        for name, v in series.items()
    }
    shown = [(name, bound) for name, bound in thresholds if edges[0] <= bound <= edges[-1]]
    return Histogram(title, edges.tolist(), counts, shown, notes)
