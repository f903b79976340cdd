"""Mix's second pass: one task per output shard copies its documents' tokens, in plan order, out of
the encoded token files into a Megatron shard (indexed_dataset.ShardWriter, as tokenize writes them).

The plan is three arrays in the work directory, one row per entry of the output (a document, or a
repeat of one), in shard order: `_plan/part.npy` (which encoded file), `_plan/offset.npy` and
`_plan/length.npy` (its text tokens there). A shard task reads rows [start, stop) through a memory
map, so no task holds more than its own rows. Files of a shard task, committed with one rename:
    <prefix>_<NNNNN>.bin/.idx    the final names (the plan fixes them before any task runs)
    _shards/<prefix>_<NNNNN>.json  its ShardFile and identity (written last: the shard is done)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_pipeline.engine.whole_corpus import TaskAttempt
from corpus_pipeline.mix.encode_part import ENCODED_DIR
from corpus_pipeline.tokenize.indexed_dataset import ShardFile, ShardWriter
from corpus_pipeline.tokenize.shard_task import SHARDS_DIR

PLAN_DIR = "_plan"
PLAN_ARRAYS = ("part", "offset", "length")


@dataclass(frozen=True)
class ShardTask:
    name: str  # <prefix>_<NNNNN>
    start: int  # rows of the plan
    stop: int
    identity: str  # the rows and the plan's digest: a resumed run reuses the shard only for the same plan


@dataclass(frozen=True)
class ShardJob:
    work: str
    dtype: str
    eod_id: int
    parts: tuple[str, ...]  # the encoded files' task names, by index of `_plan/part.npy`


def shard_summary(work: Path, name: str) -> dict | None:
    path = work / SHARDS_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def read_shard_file(work: Path, name: str) -> ShardFile:
    summary = shard_summary(work, name)
    if summary is None:
        raise FileNotFoundError(f"{work / SHARDS_DIR / name}.json is missing: shard {name} was not written")
    return ShardFile(**summary["shard"])


def write_shard(job: ShardJob, task: ShardTask) -> str:
    work = Path(job.work)
    plan = {
        name: np.load(work / PLAN_DIR / f"{name}.npy", mmap_mode="r")[task.start : task.stop] for name in PLAN_ARRAYS
    }
    dtype = np.dtype(job.dtype)
    tokens: dict[int, np.ndarray] = {}  # encoded file -> its memory map, opened when first needed
    attempt = TaskAttempt(work, task.name, task.identity)
    writer = ShardWriter(attempt.path(task.name), dtype, job.eod_id)
    try:
        for part, offset, length in zip(*(plan[name].tolist() for name in PLAN_ARRAYS), strict=True):
            if length and part not in tokens:  # (a file of no tokens cannot be mapped)
                tokens[part] = np.memmap(work / ENCODED_DIR / f"{job.parts[part]}.tokens", dtype=dtype, mode="r")
            writer.add_document([tokens[part][offset : offset + length]] if length else [])
        shard = writer.close()
        summary = {"identity": task.identity, "shard": shard.to_dict()}
        attempt.path(f"{SHARDS_DIR}/{task.name}.json").write_text(
            json.dumps(summary, indent=2) + "\n", encoding="utf-8"
        )
        attempt.commit({})
    except BaseException:
        writer.abort()
        attempt.abort()
        raise
    return task.name
