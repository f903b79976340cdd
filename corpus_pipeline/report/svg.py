"""Hand-written SVG charts: horizontal bars for labelled counts, vertical stacked bars for histograms,
lines for values over training steps.

Plain SVG 1.1 with sizes in the markup and colours inline, so each chart draws the same in any
browser, offline, with no script, stylesheet or font to fetch; it is also well-formed XML, which
the tests parse. On the demo run the 45 charts take 0.4-6 KB each, 129 KB in all.
"""

from __future__ import annotations

import math
import re
from html import escape

from corpus_pipeline.report.bars import MAX_BARS, Bars
from corpus_pipeline.report.curves import Curves
from corpus_pipeline.report.histogram import Histogram

WIDTH = 540
BAR_HEIGHT = 18
BAR_GAP = 5
LABEL_WIDTH = 180
VALUE_WIDTH = 60
SERIES_COLOURS = {"kept": "#3b7dd8", "rejected": "#d8613b"}
BAR_COLOUR = "#3b7dd8"
THRESHOLD_COLOUR = "#b00020"
CURVE_COLOURS = ("#3b7dd8", "#d8613b", "#2a9d5c", "#8a4fd8")


def compact(value: float) -> str:
    """1,234 / 45.6k / 7.8M / 0.123: a label that fits beside a bar."""
    if value != int(value):
        return f"{value:.3g}"
    value = int(value)
    if abs(value) >= 1_000_000:
        return f"{value / 1e6:.1f}M"
    if abs(value) >= 100_000:
        return f"{value / 1e3:.0f}k"
    return f"{value:,}"


def _text(x: float, y: float, content: str, anchor: str = "start", size: int = 12, colour: str = "#222") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}">'
        f"{escape(content)}</text>"
    )


def _svg(height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" font-family="sans-serif">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


LABEL_CHARS = 28  # of 12 px sans-serif in LABEL_WIDTH's 180 px, less the 6 px gap
LINE_HEIGHT = 14
_BREAK_AFTER = re.compile(r"(?<=[_:/.,-])")


def wrap_label(label: str, chars: int = LABEL_CHARS) -> list[str]:
    """The label in lines of at most `chars`: broken between words, a word longer than a line after
    a `_`, `:`, `/`, `.`, `,` or `-` in it, and split where it must only when it has none of those.
    "quality: fineweb_line_punct_ratio" is two whole lines, not "quality: fineweb_line_punct…"."""
    pieces: list[tuple[str, str]] = []  # (text, what joins it to the piece before: " " or "")
    for word in label.split(" "):
        parts = [word] if len(word) <= chars else [p for p in _BREAK_AFTER.split(word) if p]
        chunks = [part[i : i + chars] for part in parts for i in range(0, len(part), chars)] or [""]
        pieces += [(chunk, " " if n == 0 else "") for n, chunk in enumerate(chunks)]
    lines: list[str] = []
    for piece, glue in pieces:
        if lines and len(lines[-1]) + len(glue) + len(piece) <= chars:
            lines[-1] += glue + piece
        else:
            lines.append(piece)
    return lines or [""]


def _label(x: float, middle: float, label: str) -> tuple[str, float]:
    """A right-aligned, wrapped bar label centred on `middle`, and the height its lines take."""
    lines = wrap_label(label)
    first = middle - (len(lines) - 1) * LINE_HEIGHT / 2 + 4
    spans = "".join(
        f'<tspan x="{x:.1f}" y="{first + n * LINE_HEIGHT:.1f}">{escape(line)}</tspan>' for n, line in enumerate(lines)
    )
    text = f'<text font-size="12" text-anchor="end" fill="#222">{spans}</text>'
    return text, len(lines) * LINE_HEIGHT


def bar_chart(bars: Bars) -> str:
    items = bars.items[:MAX_BARS]
    hidden = len(bars.items) - len(items)
    largest = max([value for _, value in items] + [0]) or 1
    plot_width = WIDTH - LABEL_WIDTH - VALUE_WIDTH
    body = []
    y = 6.0
    for label, value in items:
        width = plot_width * value / largest
        lines = len(wrap_label(label))
        row = max(BAR_HEIGHT, lines * LINE_HEIGHT)
        y += (row - BAR_HEIGHT) / 2  # the bar centred on its label's lines
        text, _ = _label(LABEL_WIDTH - 6, y + BAR_HEIGHT / 2, label)
        body.append(text)
        if value > 0:  # at least a pixel wide: a count of 3 beside 3 million still shows
            tip = escape(f"{label}: {value:,.6g} {bars.unit}")
            body.append(
                f'<rect x="{LABEL_WIDTH}" y="{y:.1f}" width="{max(width, 1):.1f}" height="{BAR_HEIGHT}" '
                f'fill="{BAR_COLOUR}"><title>{tip}</title></rect>'
            )
        body.append(_text(LABEL_WIDTH + width + 4, y + BAR_HEIGHT - 5, compact(value)))
        y += BAR_HEIGHT + (row - BAR_HEIGHT) / 2 + BAR_GAP
    if not items:
        body.append(_text(LABEL_WIDTH, y + BAR_HEIGHT - 5, f"no {bars.unit}", colour="#666"))
        y += BAR_HEIGHT + BAR_GAP
    if hidden:
        rest = sum(value for _, value in bars.items[MAX_BARS:])
        body.append(_text(LABEL_WIDTH, y + BAR_HEIGHT - 5, f"{hidden} more not drawn ({compact(rest)} {bars.unit})"))
        y += BAR_HEIGHT + BAR_GAP
    return _svg(y + 4, bars.title, body)


def _tick(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1e5 else f"{value:.2e}"


def histogram_chart(plot: Histogram) -> str:
    left, right, top, bottom = 56.0, 16.0, 26.0, 36.0
    height = 220.0
    plot_width, plot_height = WIDTH - left - right, height - top - bottom
    edges = plot.edges
    low, high = edges[0], edges[-1]

    def x_of(value: float) -> float:
        return left + plot_width * (value - low) / (high - low)

    stacked = [sum(counts[i] for counts in plot.series.values()) for i in range(len(edges) - 1)]
    largest = max(stacked + [1])
    body = [
        f'<line x1="{left}" y1="{top + plot_height}" x2="{left + plot_width}" y2="{top + plot_height}" stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_height}" stroke="#444"/>',
        _text(left - 4, top + 4, compact(largest), "end", 11),
        _text(left - 4, top + plot_height, "0", "end", 11),
    ]
    for i in range(len(edges) - 1):
        base = top + plot_height
        x, width = x_of(edges[i]), max(x_of(edges[i + 1]) - x_of(edges[i]) - 1, 1)
        for name, counts in plot.series.items():
            if counts[i]:
                bar = plot_height * counts[i] / largest
                base -= bar
                body.append(
                    f'<rect x="{x:.1f}" y="{base:.1f}" width="{width:.1f}" height="{bar:.1f}" '
                    f'fill="{SERIES_COLOURS.get(name, BAR_COLOUR)}"><title>'
                    f"{escape(f'{name}: {counts[i]:,} in [{edges[i]:.4g}, {edges[i + 1]:.4g})')}</title></rect>"
                )
    for k in range(5):
        value = low + (high - low) * k / 4
        # The last label ends at the axis: centred there, "1.59e+06" ran 10 px past the image's edge.
        anchor = "end" if k == 4 else "middle"
        body.append(_text(x_of(value), top + plot_height + 14, _tick(value), anchor, 11))
    for index, (name, bound) in enumerate(plot.thresholds):
        x = x_of(bound)
        body.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + plot_height}" stroke="{THRESHOLD_COLOUR}" '
            f'stroke-width="2" stroke-dasharray="5,3"/>'
        )
        anchor = "end" if x > left + plot_width / 2 else "start"
        label = f"{name} = {bound:g}"
        body.append(
            _text(x + (-4 if anchor == "end" else 4), top + 8 + 12 * index, label, anchor, 11, THRESHOLD_COLOUR)
        )
    legend_x = left
    for name in plot.series:
        colour = SERIES_COLOURS.get(name, BAR_COLOUR)
        body.append(f'<rect x="{legend_x}" y="4" width="10" height="10" fill="{colour}"/>')
        total = sum(plot.series[name])
        body.append(_text(legend_x + 14, 13, f"{name} ({total:,})", size=11))
        legend_x += 120
    return _svg(height, plot.title, body)


def line_chart(curves: Curves) -> str:
    left, right, top, bottom = 56.0, 16.0, 26.0, 36.0
    height = 220.0
    width, plot_height = WIDTH - left - right, height - top - bottom
    points = [point for series in curves.series.values() for point in series]
    steps = [step for step, _ in points] + [step for step, _ in curves.marks]
    low_x, high_x = min(steps, default=0.0), max(steps, default=1.0)
    low_y, high_y = min((v for _, v in points), default=0.0), max((v for _, v in points), default=1.0)
    high_x, high_y = (high_x if high_x > low_x else low_x + 1), (high_y if high_y > low_y else low_y + 1)

    def x_of(step: float) -> float:
        return left + width * (step - low_x) / (high_x - low_x)

    def y_of(value: float) -> float:
        return top + plot_height * (1 - (value - low_y) / (high_y - low_y))

    body = [
        f'<line x1="{left}" y1="{top + plot_height}" x2="{left + width}" y2="{top + plot_height}" stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_height}" stroke="#444"/>',
        _text(left - 4, top + 4, compact(high_y), "end", 11),
        _text(left - 4, top + plot_height, compact(low_y), "end", 11),
    ]
    for k in range(5):
        step = low_x + (high_x - low_x) * k / 4
        body.append(
            _text(x_of(step), top + plot_height + 14, _tick(math.floor(step)), "end" if k == 4 else "middle", 11)
        )
    for step, what in curves.marks:  # a health event: where on the curve it was decided
        x = x_of(step)
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_height}" stroke="{THRESHOLD_COLOUR}" '
            f'stroke-dasharray="4,3"><title>{escape(f"step {step:g}: {what}")}</title></line>'
        )
    legend_x = left
    for index, (name, series) in enumerate(curves.series.items()):
        colour = CURVE_COLOURS[index % len(CURVE_COLOURS)]
        path = " ".join(f"{x_of(step):.1f},{y_of(value):.1f}" for step, value in series)
        if len(series) > 1:
            body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        else:
            body += [f'<circle cx="{x_of(s):.1f}" cy="{y_of(v):.1f}" r="3" fill="{colour}"/>' for s, v in series]
        body.append(f'<rect x="{legend_x}" y="4" width="10" height="10" fill="{colour}"/>')
        body.append(_text(legend_x + 14, 13, f"{name} ({len(series):,})", size=11))
        legend_x += 140
    return _svg(height, curves.title, body)
