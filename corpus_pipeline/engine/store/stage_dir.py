"""A stage's output directory: appears only complete, is skipped when already done, resumes, and is
written by one command at a time, never over what corpus_pipeline did not write.

Layout (schemas/stage_dir.md): `part-*.parquet`, `_rejected/reason=<r>/`, `_tasks/`, `_stats.json`,
`_SUCCESS` last: the manifest that names every file of the stage. Readers open a stage through its
manifest only (`stage_files`), on a local disk as on a store. Locally the work happens in a hidden
sibling `.<name>.inprogress-<fingerprint>` that is renamed into place, so a reader never sees a
half-written stage; the fingerprint in its name means a killed run resumes only into work done for
the same input and config. On a store nothing renames: the same promises are kept by writing
objects in an order (engine/store/object_stage.py). `open_stage_dir` picks the placement; both share
`OutputClaim`'s claim (guard and lock) and marker, and answer the one protocol
(store_protocol.StageStore).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from corpus_pipeline import __version__
from corpus_pipeline.engine.store.layout import (
    ATTEMPTS_DIR,
    COMMITTED_DIR,
    KEPT_HERE,
    STATS_DIR,
    STATS_FILE,
    STEPS_DIR,
    SUCCESS,
    WORK_OWNER,
)
from corpus_pipeline.engine.store.object_stage import ObjectStageDir
from corpus_pipeline.engine.store.output_guard import (
    ForeignOutputError,
    OutputClaim,
    OutputOverlapsInputError,
    check_output_apart,
    read_marker,
    refuse_foreign,
)
from corpus_pipeline.engine.store.task_output import distribute, forget_task, task_identity_done
from corpus_pipeline.stats import StageStats, merge_task_stats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location, child, location, renames, settled_output

__all__ = [
    "KEPT_HERE",
    "SUCCESS",
    "STATS_FILE",
    "Location",
    "MissingInputError",
    "OutputOverlapsInputError",
    "check_output_apart",
    "child",
    "location",
]

log = logging.getLogger(__name__)


class MissingInputError(FileNotFoundError):
    """An input that does not exist, or a stage directory that never finished."""


def fingerprint(stage_name: str, stage_config: str, input_identity: list[str]) -> str:
    payload = json.dumps([__version__, stage_name, stage_config, input_identity], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def read_success(stage_dir: Location, storage: Storage) -> dict:
    marker = read_marker(str(stage_dir), storage)
    if marker is not None:
        return marker
    if storage.kind(str(stage_dir)) == "missing":
        raise MissingInputError(f"{stage_dir} does not exist")
    if storage.exists(str(child(stage_dir, SUCCESS))):
        raise MissingInputError(f"{stage_dir} has an unreadable {SUCCESS}: that stage did not finish; run it again")
    raise MissingInputError(f"{stage_dir} has no {SUCCESS}: that stage did not finish there; run it first")


def stage_files(stage_dir: Location, storage: Storage) -> dict[str, Location]:
    """Every logical file of a finished stage -> where it is, as its manifest names them (a listing
    may show files of an attempt that lost). A marker of an earlier version named no files: then
    the directory's files are the stage's."""
    files = read_success(stage_dir, storage).get("files")
    if files is None:
        base = str(stage_dir).rstrip("/") + "/"
        files = {uri[len(base) :]: uri[len(base) :] for uri in storage.list_under(str(stage_dir))}
        files.pop(SUCCESS, None)
    return {relative: child(stage_dir, key) for relative, key in sorted(files.items())}


def stage_file(stage_dir: Location, relative: str, storage: Storage) -> Location | None:
    """Where a finished stage's logical file `relative` (`_stats.json`, `manifest.json`) is, or None.
    A directory without our marker (token shards copied by hand, made by another tool) holds its
    files under their names."""
    try:
        return stage_files(stage_dir, storage).get(relative)
    except MissingInputError:
        where = child(stage_dir, relative)
        return where if storage.exists(str(where)) else None


def read_stage_bytes(stage_dir: Location, relative: str, storage: Storage) -> bytes:
    found = stage_file(stage_dir, relative, storage)
    if found is None:
        raise MissingInputError(f"{stage_dir} has no {relative}: it is not a finished stage of that kind")
    try:
        return storage.read_bytes(str(found))
    except FileNotFoundError:
        raise MissingInputError(f"{found} is gone, though {stage_dir}/{SUCCESS} names it") from None


def input_parts(input_dir: Location, storage: Storage) -> list[Location]:
    """The kept documents of a finished stage directory (the ones its manifest names)."""
    kept = read_success(input_dir, storage).get("kept", KEPT_HERE)
    if kept != KEPT_HERE:
        raise MissingInputError(
            f"{input_dir} ran fused with the stages after it: its kept documents are in {kept}; "
            "read that directory, or rerun with --set engine.write_intermediate=true to keep them here"
        )
    files = stage_files(input_dir, storage)
    is_part = lambda name: "/" not in name and name.startswith("part-") and name.endswith(".parquet")  # noqa: E731
    return [where for name, where in files.items() if is_part(name)]


@dataclass
class StageDir(OutputClaim):
    output: Path
    fingerprint: str
    storage: Storage = field(default_factory=Storage)

    @property
    def work(self) -> Path:
        return self.output.with_name(f".{self.output.name}.inprogress-{self.fingerprint[:16]}")

    def _made_by_us(self, work: Path) -> bool:
        """Whether a work directory of this output's naming is ours: it holds our owner note, or our
        `_SUCCESS`, of the fingerprint its name carries (so a data tree moved or copied whole keeps
        its work directories). A look-alike is never opened beyond these two reads, never written,
        renamed or deleted."""
        if not work.is_dir() or work.is_symlink():
            return False
        named = work.name.rpartition("-")[2]
        owner = _read_json(work / WORK_OWNER)
        if owner is not None:
            return str(owner.get("fingerprint", "")).startswith(named)
        marker = read_marker(str(work), self.storage)
        return marker is not None and str(marker.get("fingerprint", "")).startswith(named)

    def _refuse_look_alike(self, work: Path) -> None:
        if os.path.lexists(work) and not self._made_by_us(work):
            raise ForeignOutputError(
                f"{str(work)!r} has the name of this stage's work directory, but corpus_pipeline did not make it "
                "(no owner note or marker of ours inside): refusing to touch it; move it away"
            )

    def is_done(self) -> bool:
        """Done: published with this fingerprint, or completed and killed before its rename."""
        self._refuse_look_alike(self.work)
        if os.path.lexists(self.work) and self._marker_matches(self.work):
            self.publish()
        return self._marker_matches(self.output)

    def _marker_matches(self, directory: Path) -> bool:
        marker = read_marker(str(directory), self.storage)
        if marker is None and (directory / SUCCESS).exists():
            log.warning("%s: unreadable %s (cut short by a crash?): not finished, running it again", directory, SUCCESS)
        return marker is not None and marker.get("fingerprint") == self.fingerprint

    def kept_here(self) -> bool:
        return read_success(self.output, self.storage).get("kept", KEPT_HERE) == KEPT_HERE

    def done_stats(self) -> StageStats:
        return StageStats.read(self.output / STATS_FILE)

    def begin(self) -> None:
        """The work directory, kept from an interrupted attempt (its finished tasks are reused)."""
        self.output.parent.mkdir(parents=True, exist_ok=True)
        for stale in self.output.parent.glob(f".{self.output.name}.inprogress-*"):
            if stale == self.work:
                continue
            if self._made_by_us(stale):  # an attempt with another input or config: useless now
                shutil.rmtree(stale)
            else:
                log.warning("%r: not made by corpus_pipeline for this output: left as it is", str(stale))
        self._refuse_look_alike(self.work)
        if not self.work.exists():
            self.work.mkdir()
            owner = {"output": str(self.output), "fingerprint": self.fingerprint, "pid": os.getpid()}
            (self.work / WORK_OWNER).write_text(json.dumps(owner) + "\n", encoding="utf-8")
        (self.work / SUCCESS).unlink(missing_ok=True)  # one that could not be read: redone
        # Attempts that never committed belong to a dead driver (the output lock: one driver at a time).
        shutil.rmtree(self.work / ATTEMPTS_DIR, ignore_errors=True)

    def abandon(self, work: LocalWork | None = None) -> None:
        """A stage refused after it began: its work is of no use to a rerun (the same config is
        refused again), so nothing is left behind."""
        if self._made_by_us(self.work):
            shutil.rmtree(self.work, ignore_errors=True)

    def has_committed_tasks(self) -> bool:
        """Whether a rerun could reuse work of this attempt: a task committed or distributed, or a
        step begun (engine/sub_steps.py)."""
        return any(any((self.work / folder).glob("*")) for folder in (COMMITTED_DIR, STATS_DIR, STEPS_DIR))

    # What the lifecycle asks of a placement (ObjectStageDir answers the same calls).
    tasks_share_work = True  # a global stage's tasks commit into the work directory itself

    def global_work(self) -> LocalWork:
        self.begin()
        return LocalWork(self.work, self.storage)

    def forget_stale_tasks(self, chain: list[StageDir], planned: dict[str, str]) -> None:
        """Remove the files of tasks that are not in the plan, or were run for another input slice."""
        works = [stage_dir.work for stage_dir in chain]
        names = {path.stem for work in works for path in (work / STATS_DIR).glob("*.json")}
        names |= {path.name for path in (self.work / COMMITTED_DIR).glob("*")}
        for name in sorted(names):
            if planned.get(name) != task_identity_done(self.work, name):
                forget_task(works, name)

    def task_areas(self, names: list[str], chain: list[StageDir]) -> tuple:
        return ()  # attempts commit into this work directory, then settle_tasks moves their files

    def settle_tasks(self, stage_works: dict[str, Path], task_names: list[str]) -> None:
        for task in task_names:
            distribute(stage_works, self.work, task)

    def fused_marker(self) -> dict:
        return {}

    def task_seconds(self, stage_name: str, last: StageDir) -> float:
        return merge_task_stats(stage_name, list((self.work / STATS_DIR).glob("*.json"))).task_seconds

    def complete(
        self,
        stage_name: str,
        wall_seconds: float,
        work: LocalWork | None = None,
        kept: str = KEPT_HERE,
        area: str | None = None,
        **marker,
    ) -> StageStats:
        """Merge the task counters, check them, and write `_stats.json` and `_SUCCESS` in the work
        directory (not yet visible: `publish` renames it into place). `work` and `area` name what a
        store's stage reads its files and records from; here every file is in the work directory."""
        stats = merge_task_stats(stage_name, list((self.work / STATS_DIR).glob("*.json")))
        stats.check_balanced()
        stats.seconds = wall_seconds
        stats.write(self.work / STATS_FILE)
        for leftover in (ATTEMPTS_DIR, COMMITTED_DIR):
            shutil.rmtree(self.work / leftover, ignore_errors=True)
        base = str(self.work) + "/"
        files = {uri[len(base) :]: uri[len(base) :] for uri in self.storage.list_under(str(self.work))}
        files.pop(SUCCESS, None)
        files.pop(WORK_OWNER, None)
        success = {"stage": stage_name, "fingerprint": self.fingerprint, "version": __version__, "kept": kept}
        success.update(marker)
        success["files"] = dict(sorted(files.items()))
        self.storage.put_bytes(str(self.work / SUCCESS), (json.dumps(success, indent=2) + "\n").encode())
        return stats

    def publish(self) -> None:
        if not os.path.lexists(self.output):
            os.rename(self.work, self.output)
            (self.output / WORK_OWNER).unlink(missing_ok=True)  # published: its marker is the proof now
            return
        # Replaced only now that the new output is complete. Checked again here, not only at the
        # claim: a file a user put there while the stage ran is refused, the work kept for a rerun.
        refuse_foreign(self.output, self.storage)
        previous = read_marker(str(self.output), self.storage)
        # A name no one else has: a look-alike `.out.retired` of the user's is never touched.
        retired = self.output.with_name(f".{self.output.name}.retired-{uuid.uuid4().hex[:12]}")
        os.rename(self.output, retired)  # readers see old or new, never neither longer than two renames
        os.rename(self.work, self.output)
        (self.output / WORK_OWNER).unlink(missing_ok=True)
        remove_replaced(retired, previous)

    def finish(self, stage_name: str, wall_seconds: float, work: LocalWork | None = None, **marker) -> StageStats:
        stats = self.complete(stage_name, wall_seconds, work, **marker)
        self.publish()
        return stats


def _read_json(path: Path) -> dict | None:
    """A small JSON file of ours, or None: a link, a FIFO or a device is never opened."""
    try:
        if not path.is_file() or path.is_symlink():
            return None
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def remove_replaced(retired: Path, manifest: dict | None) -> None:
    """Delete exactly the files the replaced output's manifest named, and the folders they leave
    empty; anything else (a file added while the new output was written) stays, said in the log."""
    if manifest is not None and "files" not in manifest:
        shutil.rmtree(retired)  # a marker of an earlier version named no files: the folder was its stage's
        return
    for relative in [SUCCESS, *((manifest or {}).get("files") or {}).values()]:
        (retired / relative).unlink(missing_ok=True)
    for folder, _, _ in os.walk(retired, topdown=False):  # children before their parents
        try:
            os.rmdir(folder)
        except OSError:
            pass  # not empty: something the manifest did not name
    if os.path.lexists(retired):
        log.warning("%r: kept: it holds files the replaced output's manifest did not name", str(retired))


def open_stage_dir(output: Location, fingerprint: str, storage: Storage) -> StageDir | ObjectStageDir:
    """The stage store of `output`: rename placement where the filesystem renames, manifest-named
    objects where it cannot (schemas/stage_dir.md)."""
    if not renames(output):
        return ObjectStageDir(str(output).rstrip("/"), fingerprint, storage)
    return StageDir(settled_output(Path(output)), fingerprint, storage)


class LocalWork:
    """What a global stage writes through in a local work directory (the ObjectWork calls, as
    plain file operations: object_stage.py)."""

    def __init__(self, directory: Path, storage: Storage):
        self.directory = self.driver_dir = directory
        self.storage = storage  # what the stage reads its inputs through
        self.task_target = str(directory)

    def file(self, relative: str) -> Path:
        path = self.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def read_bytes(self, relative: str) -> bytes | None:
        path = self.directory / relative
        return path.read_bytes() if path.is_file() else None

    def rename(self, source: str, target: str) -> None:
        if (self.directory / source).exists():
            os.replace(self.directory / source, self.directory / target)
        elif not (self.directory / target).exists():
            raise FileNotFoundError(f"{self.directory / source} is missing")

    def local_dir(self, stage: str) -> Path:
        return self.directory

    def step_output(self, name: str) -> Path:
        return self.directory / STEPS_DIR / name

    def drop_steps(self) -> None:
        shutil.rmtree(self.directory / STEPS_DIR, ignore_errors=True)

    def close(self) -> None:
        """Nothing to remove: the work directory is published whole."""
