"""What each task of a stage covers, decided on the driver from the input alone.

A task is named by its place in the plan (`part-NNNNN`, the names of the files it writes) and
identified by the input it covers: a crawl file or object (path, size, modification time), a byte
span of a large one (engine.task_bytes), or whole row groups of one input part. All come from the
input and the config only, never from the cluster's cores or a partition number, so a run resumed
under another runner or another core count plans the same tasks;
a finished task is reused only when its recorded identity equals the planned one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_metadata


@dataclass(frozen=True)
class Task:
    name: str  # part-NNNNN: the base name of every file the task writes
    identity: str  # the input it covers, recorded with its output and compared on resume
    path: str  # the crawl file or input part it reads
    row_groups: tuple[int, ...] | None = None  # of `path`; None: the whole file
    span: tuple[int, int] | None = None  # bytes [start, end) of `path` (the source resolves them); None: all


def part_name(number: int) -> str:
    return f"part-{number:05d}"


def file_identity(path: str, storage: Storage) -> str:
    """Raw input files are identified by path (or object URI), size and modification time
    (`Storage.identity`; schemas/storage.md)."""
    return storage.identity(path)


def plan_file_tasks(
    paths: list[str], storage: Storage, spans: Callable[[str], list[tuple[int, int]]] = lambda path: []
) -> list[Task]:
    """One task per input file (local or an object), in the (sorted) order given, or one per byte
    span of it where `spans(path)` (the source stage's) cuts it; a span's identity is the file's and
    the span's bounds, so a resumed run reuses a finished span only when it plans the same one."""
    tasks: list[Task] = []
    for path in paths:
        identity = file_identity(path, storage)
        cuts = spans(path)
        if not cuts:
            tasks.append(Task(part_name(len(tasks)), identity, path))
        for start, end in cuts:
            tasks.append(Task(part_name(len(tasks)), f"{identity}|bytes {start}-{end}", path, span=(start, end)))
    return tasks


def plan_part_tasks(parts: list[Path | str], task_rows: int, storage: Storage) -> list[Task]:
    """Consecutive row groups of each part, up to `task_rows` rows a task (a row group larger than
    that is a task of its own). A part without rows still gets one task, so every part is read."""
    tasks: list[Task] = []
    for part in parts:
        metadata = parquet_metadata(storage, str(part))
        groups: list[int] = []
        rows = 0
        for index in range(metadata.num_row_groups):
            group_rows = metadata.row_group(index).num_rows
            if groups and rows + group_rows > task_rows:
                tasks.append(_part_task(len(tasks), part, groups, rows))
                groups, rows = [], 0
            groups.append(index)
            rows += group_rows
        if groups or metadata.num_row_groups == 0:
            tasks.append(_part_task(len(tasks), part, groups, rows))
    return tasks


def _part_task(number: int, part: Path | str, groups: list[int], rows: int) -> Task:
    covered = f"row groups {groups[0]}-{groups[-1]}" if groups else "no row groups"
    return Task(part_name(number), f"{str(part).rpartition('/')[2]}|{covered}|{rows} rows", str(part), tuple(groups))
