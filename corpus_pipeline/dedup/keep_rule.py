"""Which document of a duplicate cluster stays: highest preferred signal when the input has that
column (a quality score), then earliest fetch `date`, then smallest id. A total order, so the choice
never depends on how rows were partitioned."""

from __future__ import annotations

from corpus_pipeline.config import DedupConfig


def keep_order(config: DedupConfig, columns: list[str]) -> list[tuple[str, str]]:
    """(column, direction) pairs, most important first; direction 'desc' or 'asc', nulls last."""
    order = []
    if config.prefer_column and config.prefer_column in columns:
        order.append((config.prefer_column, "desc"))
    if "date" in columns:
        order.append(("date", "asc"))
    order.append(("id", "asc"))
    return order
