"""Mix's encoded tasks kept across runs: the nightly re-mixes the whole published corpus every
night (`<data_root>/nightly/mix_encoded/`), and a published document is encoded once, the night it
arrives; later nights take its tokens and counts from here.

An entry is the files of one encode task (encode_part.py) under a key of everything that decides
them: the task's identity (its input stage's fingerprint, its part and row groups), the tokenizer
and the encoding settings; not the task's name, which is its number among one run's tasks. Files
are hard links where the cache and the work directory share a file system (a local data_root),
copies otherwise. An entry is written under a temporary name and renamed: whole or absent.

A task restored from here is marked in the work directory (`_encoded/<task>.cached`), so a mix
resumed after a kill still counts its documents as cached, not encoded. After each mix the cache
keeps only the entries of that mix's tasks: the nightly re-mixes the whole published corpus, so an
entry it did not use belongs to a retired snapshot or to other settings, and would never be read.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path

from corpus_pipeline.engine.task_output import REJECTED_DIR
from corpus_pipeline.engine.task_plan import Task
from corpus_pipeline.mix.encode_part import ENCODED_DIR, EncodeJob
from corpus_pipeline.tokenize.shard_task import EMPTY_TEXT


def _task_files(name: str) -> dict[str, str]:
    """Entry file -> the task's file in the work directory (the empty-text rejects may be absent)."""
    return {
        "encoded.tokens": f"{ENCODED_DIR}/{name}.tokens",
        "encoded.parquet": f"{ENCODED_DIR}/{name}.parquet",
        "encoded.json": f"{ENCODED_DIR}/{name}.json",
        f"{EMPTY_TEXT}.parquet": f"{REJECTED_DIR}/reason={EMPTY_TEXT}/{name}.parquet",
    }


def cache_key(job: EncodeJob, task: Task) -> str:
    # Not `work`, `tokenizer_path` (where this run put the tokenizer its sha names) nor `threads`.
    decides = [task.identity, job.tokenizer_sha256, job.dtype, job.max_chunk_chars, job.batch_chars, job.seed]
    decides.append([[column, [list(tier) for tier in tiers]] for column, tiers in job.weights])
    return hashlib.sha256(json.dumps(decides).encode("utf-8")).hexdigest()[:32]


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another file system (a scratch work directory): a copy
        shutil.copyfile(source, target)


def _marker(work: Path, name: str) -> Path:
    return work / ENCODED_DIR / f"{name}.cached"


def restore(cache: Path, job: EncodeJob, task: Task, work: Path) -> bool:
    """Put the cached files of `task` in the work directory under its name; False when not cached."""
    _marker(work, task.name).unlink(missing_ok=True)  # a task to encode again is no longer the cache's
    entry = cache / cache_key(job, task)
    if not (entry / "encoded.json").exists():
        return False
    for cached, placed in _task_files(task.name).items():
        if (entry / cached).exists():
            _link(entry / cached, work / placed)
    _marker(work, task.name).touch()
    return True


def restored(work: Path, name: str) -> bool:
    """Whether the task's files in the work directory came from the cache (in this attempt or an
    earlier one of the same run)."""
    return _marker(work, name).exists()


def prune(cache: Path, job: EncodeJob, tasks: list[Task]) -> None:
    """Remove every entry but those of `tasks`, and staging left by a killed `keep`."""
    used = {cache_key(job, task) for task in tasks}
    for entry in cache.iterdir() if cache.is_dir() else ():
        if entry.name not in used:
            shutil.rmtree(entry, ignore_errors=True)


def keep(cache: Path, job: EncodeJob, task: Task, work: Path) -> None:
    """Add the task's files (encoded in this work directory) to the cache, unless it holds them."""
    entry = cache / cache_key(job, task)
    if entry.exists():
        return
    staging = cache / f".{entry.name}.{uuid.uuid4().hex[:8]}"
    for cached, placed in _task_files(task.name).items():
        if (work / placed).exists():
            _link(work / placed, staging / cached)
    try:
        staging.rename(entry)
    except OSError:  # another run kept the same task first: its entry is the same files
        shutil.rmtree(staging)
