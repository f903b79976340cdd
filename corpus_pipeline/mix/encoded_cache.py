"""Mix's encoded tasks kept across runs: the nightly re-mixes the whole published corpus every
night (`<data_root>/nightly/mix_encoded/`), and a published document is encoded once, the night it
arrives; later nights take its tokens and counts from here.

An entry is the files of one encode task (encode_part.py) under a key of everything that decides
them: the task's identity (its input stage's fingerprint, its part and row groups), the tokenizer
and the encoding settings; not the task's name, which is its number among one run's tasks. The
cache is a folder or an object prefix (a data_root on a store keeps it there too): files are hard
links where the cache and the work directory are both local, copies, uploads or downloads
otherwise. An entry's `encoded.json` is written last and an entry without it is none, so a keep
killed midway leaves nothing that is read.

A task restored from here is marked in the work directory (`_encoded/<task>.cached`), so a mix
resumed after a kill still counts its documents as cached, not encoded. After each mix the cache
keeps only the entries of that mix's tasks: the nightly re-mixes the whole published corpus, so an
entry it did not use belongs to a retired snapshot or to other settings, and would never be read.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from corpus_pipeline.engine.whole_corpus import REJECTED_DIR, Task
from corpus_pipeline.mix.encode_part import ENCODED_DIR, EncodeJob
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location, child
from corpus_pipeline.tokenize.shard_task import EMPTY_TEXT


def _task_files(name: str) -> dict[str, str]:
    """Entry file -> the task's file in the work directory (the empty-text rejects may be absent)."""
    return {
        "encoded.tokens": f"{ENCODED_DIR}/{name}.tokens",
        "encoded.parquet": f"{ENCODED_DIR}/{name}.parquet",
        "encoded.json": f"{ENCODED_DIR}/{name}.json",
        f"{EMPTY_TEXT}.parquet": f"{REJECTED_DIR}/reason={EMPTY_TEXT}/{name}.parquet",
    }


_ENTRY = re.compile(r"[0-9a-f]{32}")  # cache_key's names


def cache_key(job: EncodeJob, task: Task) -> str:
    # Not `work`, `tokenizer_path` (where this run put the tokenizer its sha names) nor `threads`.
    decides = [task.identity, job.tokenizer_sha256, job.dtype, job.max_chunk_chars, job.batch_chars, job.seed]
    decides.append([[column, [list(tier) for tier in tiers]] for column, tiers in job.weights])
    return hashlib.sha256(json.dumps(decides).encode("utf-8")).hexdigest()[:32]


def _marker(work: Path, name: str) -> Path:
    return work / ENCODED_DIR / f"{name}.cached"


def _entry_files(storage: Storage, entry: str) -> set[str]:
    return {uri.rpartition("/")[2] for uri in storage.list_under(entry)}


def restore(cache: Location, storage: Storage, job: EncodeJob, task: Task, work: Path) -> bool:
    """Put the cached files of `task` in the work directory under its name; False when not cached."""
    _marker(work, task.name).unlink(missing_ok=True)  # a task to encode again is no longer the cache's
    entry = str(child(cache, cache_key(job, task)))
    held = _entry_files(storage, entry)  # one listing, not a request per file
    if "encoded.json" not in held:
        return False
    for cached, placed in _task_files(task.name).items():
        if cached in held:
            storage.get_linked(f"{entry}/{cached}", str(work / placed))
    _marker(work, task.name).touch()
    return True


def restored(work: Path, name: str) -> bool:
    """Whether the task's files in the work directory came from the cache (in this attempt or an
    earlier one of the same run)."""
    return _marker(work, name).exists()


def keep(cache: Location, storage: Storage, job: EncodeJob, task: Task, work: Path) -> None:
    """Add the task's files (encoded in this work directory) to the cache, unless it holds them."""
    entry = str(child(cache, cache_key(job, task)))
    if storage.exists(f"{entry}/encoded.json"):
        return
    files = [(cached, work / placed) for cached, placed in _task_files(task.name).items() if (work / placed).exists()]
    for cached, path in sorted(files, key=lambda file: file[0] == "encoded.json"):  # the summary last
        storage.put_linked(str(path), f"{entry}/{cached}")


def prune(cache: Location, storage: Storage, job: EncodeJob, tasks: list[Task]) -> None:
    """Remove every entry but those of `tasks`. An entry is ours by its name (cache_key's 32 hex
    digits; one cut short by a kill has no `encoded.json` yet): anything else is left alone."""
    used = {cache_key(job, task) for task in tasks}
    prefix = str(cache).rstrip("/") + "/"
    held = {uri.removeprefix(prefix).partition("/")[0] for uri in storage.list_under(str(cache))}
    ours = {name for name in held if _ENTRY.fullmatch(name)}
    for name in sorted(ours - used):
        storage.delete_prefix(str(child(cache, name)))
