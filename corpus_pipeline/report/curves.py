"""Values over training steps (loss, grad norm) for a line chart (svg.line_chart), and the steps
where a health event was decided."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Curves:
    title: str
    series: dict[str, list[tuple[float, float]]]  # name -> (step, value), finite values only
    marks: list[tuple[float, str]] = field(default_factory=list)  # (step, what): health events

    @property
    def total(self) -> int:
        return sum(len(points) for points in self.series.values())
