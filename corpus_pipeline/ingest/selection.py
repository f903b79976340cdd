"""A first look at a big dataset: `ingest.limit` (at most N records in all) and `ingest.sample`
(a fraction of them, seeded). Records left out are not records in: the stage's counters are
taken back for them, and `extra.limit` / `extra.sample` say how many were left out.

The sample keeps record k of a file when splitmix64(seed, the file's name, k) falls under the
fraction: the same records every run, whatever the batching, and a record's chance does not
depend on its neighbours'.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.stages.base import VerdictTable
from corpus_pipeline.stats import StageStats

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix64(values: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = values + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def sample_mask(seed: int, name: str, first: int, rows: int, fraction: float) -> np.ndarray:
    """Which of records first..first+rows-1 of the file `name` the sample keeps."""
    key = np.uint64((seed & 0xFFFFFFFF) << 32 | zlib.crc32(name.encode("utf-8")))
    with np.errstate(over="ignore"):
        hashed = _splitmix64(np.arange(first, first + rows, dtype=np.uint64) ^ _splitmix64(np.array([key]))[0])
    return (hashed >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53)) < fraction


def _subset(part: VerdictTable, mask: np.ndarray, stats: StageStats, group: str) -> VerdictTable:
    """The rows of `part` under `mask`; the counters of the others taken back."""
    left_out = int(len(mask) - mask.sum())
    if not left_out:
        return part
    keep = pa.array(mask)
    dropped = pc.invert(keep)
    text_bytes = pc.sum(pc.binary_length(part.table.column("text").filter(dropped))).as_py() or 0
    stats.add_in(-left_out, -text_bytes)
    stats.count(group, "records left out", left_out)
    return VerdictTable(part.table.filter(keep), part.reasons.filter(keep), part.details.filter(keep))


def selected(
    parts: Iterator[VerdictTable], stats: StageStats, name: str, budget: int | None, sample: float | None, seed: int
) -> Iterator[VerdictTable]:
    """`parts` cut after `budget` records (None: all), then sampled (None: all of them)."""
    seen = 0
    for part in parts:
        rows = part.table.num_rows
        if budget is not None and seen + rows > budget:
            mask = np.arange(rows) < budget - seen
            part = _subset(part, mask, stats, "limit")
            rows = int(mask.sum())
        if sample is not None and rows:
            part = _subset(part, sample_mask(seed, name, seen, rows, sample), stats, "sample")
        seen += rows
        yield part
        if budget is not None and seen >= budget:
            return  # the rest of the file is not read
