"""The pieces every section of the report page is built of: a table, a chart in its figure, a
"not run" note, a size in MB. Every text is escaped here, so the page stays well-formed XML."""

from __future__ import annotations

from html import escape

from corpus_pipeline.report.bars import Bars
from corpus_pipeline.report.curves import Curves
from corpus_pipeline.report.histogram import Histogram
from corpus_pipeline.report.svg import bar_chart, histogram_chart, line_chart


def mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:,.1f}"


def figure(plot: Bars | Histogram | Curves, notes: list[str] = ()) -> str:
    charts = {Bars: bar_chart, Histogram: histogram_chart, Curves: line_chart}
    chart = charts[type(plot)](plot)
    notes_html = f'<div class="notes">{escape("; ".join(notes))}</div>' if notes else ""
    # What the chart counts, for a reader's script or test to tell an empty chart from a drawn one.
    kept = f' data-kept="{sum(plot.series.get("kept", [])):g}"' if isinstance(plot, Histogram) else ""
    return (
        f'<figure class="plot" data-drawn="{plot.total:g}"{kept}><figcaption>{escape(plot.title)}</figcaption>'
        f"{chart}{notes_html}</figure>"
    )


def not_run(stage: str) -> str:
    return f'<p class="not-run">not run: the {escape(stage)} stage did not finish in this run (no _SUCCESS)</p>'


def table(header: tuple[str, ...], rows: list[tuple[str, ...]], raw: frozenset[int] = frozenset()) -> str:
    """Cells are escaped except the columns in `raw`, which hold markup made here."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{cell if i in raw else escape(cell)}</td>" for i, cell in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
