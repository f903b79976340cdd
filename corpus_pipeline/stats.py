"""Per-stage counters: written by each task to its own file, merged by the driver into `_stats.json`.

Task files rather than Spark accumulators: an accumulator updated inside a retried or speculative
task counts twice, while a task file is overwritten by the retry, so the merge counts each task once.
The invariant every stage must satisfy: `docs_in == kept + sum(dropped.values())`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from corpus_pipeline.storage import local_files


@dataclass
class StageStats:
    stage: str
    docs_in: int = 0
    bytes_in: int = 0
    kept: int = 0
    bytes_kept: int = 0
    dropped: Counter = field(default_factory=Counter)
    seconds: float = 0.0  # wall clock of the stage (of the task, in a task file)
    task_seconds: float = 0.0  # summed over tasks: with `seconds`, tells how well tasks overlapped
    tasks: int = 0
    # Stage-specific counts (languages seen, decodings used, read faults by kind...).
    extra: dict[str, Counter] = field(default_factory=dict)

    def count_in(self, nbytes: int) -> None:
        self.add_in(1, nbytes)

    def count_kept(self, nbytes: int) -> None:
        self.add_kept(1, nbytes)

    def add_in(self, docs: int, nbytes: int) -> None:
        self.docs_in += docs
        self.bytes_in += nbytes

    def add_kept(self, docs: int, nbytes: int) -> None:
        self.kept += docs
        self.bytes_kept += nbytes

    def count_dropped(self, reason: str, n: int = 1) -> None:
        self.dropped[reason] += n

    def count(self, group: str, key: str, n: int = 1) -> None:
        self.extra.setdefault(group, Counter())[key] += n

    def check_balanced(self) -> None:
        dropped = sum(self.dropped.values())
        if self.docs_in != self.kept + dropped:
            raise AssertionError(f"{self.stage}: {self.docs_in} in != {self.kept} kept + {dropped} dropped")

    def merge(self, other: StageStats) -> StageStats:
        self.docs_in += other.docs_in
        self.bytes_in += other.bytes_in
        self.kept += other.kept
        self.bytes_kept += other.bytes_kept
        self.dropped.update(other.dropped)
        self.seconds += other.seconds
        self.task_seconds += other.task_seconds
        self.tasks += other.tasks
        for group, counts in other.extra.items():
            self.extra.setdefault(group, Counter()).update(counts)
        return self

    def to_dict(self) -> dict:
        return {
            "stage": self.stage,
            "docs_in": self.docs_in,
            "bytes_in": self.bytes_in,
            "kept": self.kept,
            "bytes_kept": self.bytes_kept,
            "dropped": dict(sorted(self.dropped.items())),
            "seconds": round(self.seconds, 3),
            "task_seconds": round(self.task_seconds, 3),
            "tasks": self.tasks,
            "extra": {g: dict(sorted(c.items())) for g, c in sorted(self.extra.items())},
        }

    @classmethod
    def from_dict(cls, data: dict) -> StageStats:
        return cls(
            stage=data["stage"],
            docs_in=data["docs_in"],
            bytes_in=data["bytes_in"],
            kept=data["kept"],
            bytes_kept=data["bytes_kept"],
            dropped=Counter(data["dropped"]),
            seconds=data["seconds"],
            task_seconds=data.get("task_seconds", 0.0),
            tasks=data["tasks"],
            extra={g: Counter(c) for g, c in data.get("extra", {}).items()},
        )

    def write(self, path: Path) -> None:
        """Write whole: a reader never sees half a stats file."""
        local_files.put_bytes(path, (json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))

    @classmethod
    def read(cls, path: Path) -> StageStats:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))


def merge_task_stats(stage: str, paths: list[Path]) -> StageStats:
    total = StageStats(stage)
    for path in sorted(paths):
        total.merge(StageStats.read(path))
    return total
