"""Which document of a duplicate cluster stays: the copy of the highest-priority source when the
config ranks sources (`dedup.source_priority`), then highest preferred signal when the input has that
column (a quality score), then earliest fetch `date`, then smallest id. A total order, so the choice
never depends on how rows were partitioned."""

from __future__ import annotations

import math
from collections.abc import Callable

import pyarrow as pa

from corpus_pipeline.dedup.config import DedupConfig

# The rank of a document's source in `dedup.source_priority` (0 first), added for the keep order.
SOURCE_RANK = "_source_rank"


def keep_order(config: DedupConfig, columns: list[str]) -> list[tuple[str, str]]:
    """(column, direction) pairs, most important first; direction 'desc' or 'asc', nulls last."""
    order = [(SOURCE_RANK, "asc")] if SOURCE_RANK in columns else []
    if config.prefer_column and config.prefer_column in columns:
        order.append((config.prefer_column, "desc"))
    if "date" in columns:
        order.append(("date", "asc"))
    order.append(("id", "asc"))
    return order


def ranked_batch(docs: pa.Table | pa.RecordBatch, priority: list[str]):
    """docs with SOURCE_RANK, the position of each one's `source` in `priority` (len(priority) for
    any other source or none), when there is a priority and a source column; as
    spark_job.with_source_rank gives a frame."""
    if not priority or "source" not in docs.schema.names:
        return docs
    positions = {name: position for position, name in enumerate(priority)}
    ranks = [positions.get(source, len(priority)) for source in docs.column("source").to_pylist()]
    return docs.append_column(SOURCE_RANK, pa.array(ranks, pa.int32()))


class _Descending:
    """A value that sorts in reverse: for the 'desc' columns of a sort key."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __lt__(self, other: _Descending) -> bool:
        return other.value < self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.value == other.value


def _sort_component(value, direction: str) -> tuple:
    if value is None:
        return (1,)  # nulls last, in either direction
    if isinstance(value, float) and math.isnan(value):
        value = (1, 0.0)  # Spark sorts NaN above every number (and -0.0 equal to 0.0, as Python)
    else:
        value = (0, value)
    return (0, value if direction == "asc" else _Descending(value))


def keep_key(order: list[tuple[str, str]]) -> Callable[[dict], tuple]:
    """Sort key of a row (a dict) that orders rows as Spark orders them by `keep_order`'s columns:
    the first row of a sorted cluster is the document the keep rule keeps."""
    return lambda row: tuple(_sort_component(row[column], direction) for column, direction in order)
