"""A stage's output directory: appears only complete, is skipped when already done, resumes.

Layout (DESIGN.md): `part-*.parquet`, `_rejected/reason=<r>/`, `_tasks/`, `_stats.json`, `_SUCCESS`
last. Work happens in a hidden sibling `.<name>.inprogress-<fingerprint>` that is renamed into place,
so a reader never sees a half-written stage; the fingerprint in its name means a killed run resumes
only into work done for the same input and config. An `s3://` output keeps the same promises
without a rename (engine/object_stage.py); `open_stage_dir` and the readers below take either.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline import __version__
from corpus_pipeline.engine.layout import (
    ATTEMPTS_DIR,
    COMMITTED_DIR,
    KEPT_HERE,
    STATS_DIR,
    STATS_FILE,
    SUCCESS,
)
from corpus_pipeline.engine.object_stage import ObjectStageDir, read_manifest
from corpus_pipeline.engine.object_stage import join as join_key
from corpus_pipeline.stats import StageStats, merge_task_stats
from corpus_pipeline.storage import Storage, is_object_uri

# A stage directory: a local path, or an `s3://bucket/prefix` URI (a str).
Location = Path | str


class MissingInputError(FileNotFoundError):
    """An input that does not exist, or a stage directory that never finished."""


class OutputOverlapsInputError(ValueError):
    """An --output that equals, contains or lies inside an --input: writing it would destroy the input."""


def fingerprint(stage_name: str, stage_config: str, input_identity: list[str]) -> str:
    payload = json.dumps([__version__, stage_name, stage_config, input_identity], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


_OTHER_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def location(path: Location | str) -> Location:
    """A path given by a user or a config: a URI stays a string (Path would fold `s3://` to `s3:/`).
    Another scheme (`s3a://`, `gs://`) is refused: as a Path it would be a local folder `s3a:`."""
    if is_object_uri(path):
        return str(path).rstrip("/")
    if isinstance(path, str) and _OTHER_SCHEME.match(path):
        scheme = path.split("://")[0]
        raise ValueError(f"{path}: {scheme}:// is not supported; give s3://bucket/key (any S3 API store) or a path")
    return Path(path)


def child(base: Location, name: str) -> Location:
    return join_key(base, name) if is_object_uri(base) else Path(base) / name


def read_success(stage_dir: Location, storage: Storage | None = None) -> dict:
    if is_object_uri(stage_dir):
        manifest = read_manifest(str(stage_dir), storage or Storage())
        if manifest is None:
            raise MissingInputError(f"{stage_dir} has no {SUCCESS}: that stage did not finish there; run it first")
        return manifest
    marker = Path(stage_dir) / SUCCESS
    if not marker.exists():
        if not Path(stage_dir).exists():
            raise MissingInputError(f"{stage_dir} does not exist")
        raise MissingInputError(f"{stage_dir} has no {SUCCESS}: that stage did not finish; run it first")
    return json.loads(marker.read_text(encoding="utf-8"))


def stage_file(stage_dir: Location, relative: str, storage: Storage | None = None) -> Location | None:
    """Where a finished stage's logical file `relative` (`_stats.json`, `manifest.json`) is, or None.
    On a store only the manifest says: a listing may show files of an attempt that lost."""
    if not is_object_uri(stage_dir):
        path = Path(stage_dir) / relative
        return path if path.exists() else None
    key = read_success(stage_dir, storage).get("files", {}).get(relative)
    return None if key is None else join_key(str(stage_dir), key)


def stage_files(stage_dir: Location, storage: Storage | None = None) -> dict[str, Location]:
    """Every logical file of a finished stage -> where it is."""
    if not is_object_uri(stage_dir):
        root = Path(stage_dir)
        read_success(root)
        return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
    files = read_success(stage_dir, storage).get("files", {})
    return {relative: join_key(str(stage_dir), key) for relative, key in sorted(files.items())}


def read_stage_bytes(stage_dir: Location, relative: str, storage: Storage | None = None) -> bytes:
    found = stage_file(stage_dir, relative, storage)
    if found is None:
        raise MissingInputError(f"{stage_dir} has no {relative}: it is not a finished stage of that kind")
    if is_object_uri(found):
        return (storage or Storage()).read_bytes(str(found))
    return Path(found).read_bytes()


def stage_input_identity(input_dir: Path) -> list[str]:
    """A stage's output is identified by its own fingerprint, so a rerun upstream invalidates
    everything downstream."""
    return [read_success(input_dir)["fingerprint"]]


def input_parts(input_dir: Location, storage: Storage | None = None) -> list[Location]:
    """The kept documents of a finished stage directory (on a store: the ones its manifest names)."""
    kept = read_success(input_dir, storage).get("kept", KEPT_HERE)
    if kept != KEPT_HERE:
        raise MissingInputError(
            f"{input_dir} ran fused with the stages after it: its kept documents are in {kept}; "
            "read that directory, or rerun with --set engine.write_intermediate=true to keep them here"
        )
    if is_object_uri(input_dir):
        files = stage_files(input_dir, storage)
        return [
            uri
            for name, uri in files.items()
            if "/" not in name and name.startswith("part-") and name.endswith(".parquet")
        ]
    return sorted(Path(input_dir).glob("part-*.parquet"))


def _within(inner: str, outer: str) -> bool:
    return inner.startswith(outer.rstrip("/") + "/")


def _absolute(path: Location | str) -> str:
    return str(path).rstrip("/") if is_object_uri(path) else str(Path(path).resolve())


def check_output_apart(output: Location, inputs: list[str | Path]) -> None:
    """Refuse an output that equals, contains or lies inside an input, before anything is written."""
    target = _absolute(output)
    for name in inputs:
        source = _absolute(name)
        if target == source or _within(source, target) or _within(target, source):
            relation = "is" if target == source else "contains" if _within(source, target) else "lies inside"
            raise OutputOverlapsInputError(
                f"--output {output} {relation} the input {name}: writing it would destroy the input"
            )


@dataclass
class StageDir:
    output: Path
    fingerprint: str

    @property
    def work(self) -> Path:
        return self.output.with_name(f".{self.output.name}.inprogress-{self.fingerprint[:16]}")

    def is_done(self) -> bool:
        """Done: published with this fingerprint, or completed and killed before its rename."""
        if self._marker_matches(self.work):
            self.publish()
        return self._marker_matches(self.output)

    def _marker_matches(self, directory: Path) -> bool:
        marker = directory / SUCCESS
        if not marker.exists():
            return False
        return json.loads(marker.read_text(encoding="utf-8")).get("fingerprint") == self.fingerprint

    def kept_here(self) -> bool:
        return read_success(self.output).get("kept", KEPT_HERE) == KEPT_HERE

    def done_stats(self) -> StageStats:
        return StageStats.read(self.output / STATS_FILE)

    def begin(self) -> Path:
        """The work directory, kept from an interrupted attempt (its finished tasks are reused)."""
        self.output.parent.mkdir(parents=True, exist_ok=True)
        for stale in self.output.parent.glob(f".{self.output.name}.inprogress-*"):
            if stale != self.work:  # an attempt with another input or config: useless now
                shutil.rmtree(stale)
        self.work.mkdir(exist_ok=True)
        # Attempts that never committed belong to a dead driver (one driver per stage at a time).
        shutil.rmtree(self.work / ATTEMPTS_DIR, ignore_errors=True)
        return self.work

    def complete(self, stage_name: str, wall_seconds: float, kept: str = KEPT_HERE, **marker) -> StageStats:
        """Merge the task counters, check them, and write `_stats.json` and `_SUCCESS` in the work
        directory (not yet visible: `publish` renames it into place)."""
        stats = merge_task_stats(stage_name, list((self.work / STATS_DIR).glob("*.json")))
        stats.check_balanced()
        stats.seconds = wall_seconds
        stats.write(self.work / STATS_FILE)
        for leftover in (ATTEMPTS_DIR, COMMITTED_DIR):
            shutil.rmtree(self.work / leftover, ignore_errors=True)
        success = {"stage": stage_name, "fingerprint": self.fingerprint, "version": __version__, "kept": kept}
        success.update(marker)
        (self.work / SUCCESS).write_text(json.dumps(success, indent=2) + "\n", encoding="utf-8")
        return stats

    def publish(self) -> None:
        if self.output.exists():
            # Replaced only now that the new output is complete; readers see old or new, never neither
            # for longer than two renames.
            retired = self.output.with_name(f".{self.output.name}.retired")
            shutil.rmtree(retired, ignore_errors=True)
            os.replace(self.output, retired)
            os.replace(self.work, self.output)
            shutil.rmtree(retired)
        else:
            os.replace(self.work, self.output)

    def finish(self, stage_name: str, wall_seconds: float, work: LocalWork | None = None, **marker) -> StageStats:
        stats = self.complete(stage_name, wall_seconds, **marker)
        self.publish()
        return stats


def open_stage_dir(output: Location, fingerprint: str, storage: Storage | None = None) -> StageDir | ObjectStageDir:
    if is_object_uri(output):
        return ObjectStageDir(str(output).rstrip("/"), fingerprint, storage or Storage())
    return StageDir(Path(output), fingerprint)


class LocalWork:
    """What a global stage writes through in a local work directory (the ObjectWork calls, as
    plain file operations: object_stage.py)."""

    def __init__(self, directory: Path, storage: Storage | None = None):
        self.directory = self.driver_dir = directory
        self.storage = storage or Storage()  # what the stage reads its inputs through
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
