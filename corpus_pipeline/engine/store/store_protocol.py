"""The stage store's protocol: what the lifecycle (lifecycle.py) asks of a stage's output and its
work area, with one signature per member, answered alike by the local placement (stage_dir.StageDir:
a hidden work directory renamed into place) and the object one (object_stage.ObjectStageDir:
objects written in an order, a manifest last). Nothing above the store asks which one it has.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from corpus_pipeline.engine.store.layout import KEPT_HERE
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location


class StageWork(Protocol):
    """What a global stage writes through while it runs (stage_dir.LocalWork, object_stage.ObjectWork)."""

    storage: Storage
    task_target: str  # where its tasks commit (TaskAttempt's work)

    @property
    def driver_dir(self) -> Path: ...

    def file(self, relative: str) -> Path: ...

    def read_bytes(self, relative: str) -> bytes | None: ...

    def rename(self, source: str, target: str) -> None: ...

    def local_dir(self, stage: str) -> Path: ...

    def step_output(self, name: str) -> Location:
        """Where the stage's step `name` (engine/sub_steps.py) publishes, inside the work area."""
        ...

    def drop_steps(self) -> None:
        """Remove every step's output: the stage has completed, and they are not part of it."""
        ...

    def close(self) -> None: ...


class StageStore(Protocol):
    output: Location
    fingerprint: str
    storage: Storage
    # True: a global stage's tasks commit into the work area itself (local); False: they commit
    # records naming uploaded objects (a store).
    tasks_share_work: bool

    @property
    def work(self) -> Location: ...

    def claim(self) -> AbstractContextManager[None]:
        """Refuse an output that holds what we did not write; then hold its one-writer lock."""
        ...

    def is_done(self) -> bool:
        """Published with this fingerprint (a run killed after its commit is finished here)."""
        ...

    def kept_here(self) -> bool: ...

    def done_stats(self) -> StageStats: ...

    def begin(self) -> None:
        """Make (or keep, to resume) this fingerprint's work area; another config's goes."""
        ...

    def global_work(self) -> StageWork: ...

    def abandon(self, work: StageWork | None = None) -> None: ...

    def has_committed_tasks(self) -> bool: ...

    def forget_stale_tasks(self, chain: Sequence[StageStore], planned: dict[str, str]) -> None: ...

    def task_areas(self, names: list[str], chain: Sequence[StageStore]) -> tuple[tuple[str, str], ...]: ...

    def settle_tasks(self, stage_works: dict[str, Location], task_names: list[str]) -> None: ...

    def fused_marker(self) -> dict: ...

    def task_seconds(self, stage_name: str, last: StageStore) -> float: ...

    def complete(
        self,
        stage_name: str,
        wall_seconds: float,
        work: StageWork | None = None,
        kept: str = KEPT_HERE,
        area: str | None = None,
        **marker,
    ) -> StageStats:
        """Merge the tasks' counters and name every file in the manifest (not yet visible)."""
        ...

    def publish(self) -> None:
        """The commit point: the new output replaces the old one whole."""
        ...

    def finish(self, stage_name: str, wall_seconds: float, work: StageWork | None = None, **marker) -> StageStats: ...
