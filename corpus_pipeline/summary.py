"""The funnel table printed at the end of every run: what went in and out of each stage."""

from __future__ import annotations

from corpus_pipeline.stats import StageStats

_TOP_REASONS = 3


def _mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:,.1f}"


def format_funnel(stages: list[StageStats], skipped: set[str] = frozenset()) -> str:
    header = ("stage", "docs in", "kept", "dropped", "MB in", "MB kept", "seconds", "docs/s", "top drop reasons")
    rows = [header]
    for stats in stages:
        dropped = sum(stats.dropped.values())
        reasons = ", ".join(f"{r} {n:,}" for r, n in stats.dropped.most_common(_TOP_REASONS))
        rate = f"{stats.docs_in / stats.seconds:,.0f}" if stats.seconds > 0 else "-"
        name = stats.stage + (" (reused)" if stats.stage in skipped else "")
        rows.append(
            (
                name,
                f"{stats.docs_in:,}",
                f"{stats.kept:,}",
                f"{dropped:,}",
                _mb(stats.bytes_in),
                _mb(stats.bytes_kept),
                f"{stats.seconds:,.1f}",
                rate,
                reasons or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for index, row in enumerate(rows):
        cells = [
            cell.ljust(widths[i]) if i in (0, len(row) - 1) else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
