"""A stage's output directory: appears only complete, is skipped when already done, resumes.

Layout (DESIGN.md): `part-*.parquet`, `_rejected/reason=<r>/`, `_stats.json`, `_SUCCESS` last.
Work happens in a hidden sibling `.<name>.inprogress-<fingerprint>` that is renamed into place, so a
reader never sees a half-written stage; the fingerprint in its name means a killed run resumes only
into work done for the same input and config.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline import __version__
from corpus_pipeline.engine.task_output import STATS_DIR
from corpus_pipeline.stats import StageStats, merge_task_stats

SUCCESS = "_SUCCESS"
STATS_FILE = "_stats.json"


class MissingInputError(FileNotFoundError):
    """An input stage directory without `_SUCCESS`: that stage never finished."""


def fingerprint(stage_name: str, stage_config: str, input_identity: list[str]) -> str:
    payload = json.dumps([__version__, stage_name, stage_config, input_identity], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def file_identity(paths: list[str]) -> list[str]:
    """Raw input files are identified by path, size and modification time (hashing 100 GB of WARC
    to decide whether to skip would cost as much as the stage)."""
    identity = []
    for path in paths:
        stat = os.stat(path)
        identity.append(f"{os.path.abspath(path)}|{stat.st_size}|{stat.st_mtime_ns}")
    return identity


def stage_input_identity(input_dir: Path) -> list[str]:
    """A stage's output is identified by its own fingerprint, so a rerun upstream invalidates
    everything downstream."""
    return [read_success(input_dir)["fingerprint"]]


def read_success(stage_dir: Path) -> dict:
    marker = stage_dir / SUCCESS
    if not marker.exists():
        raise MissingInputError(f"{stage_dir} has no {SUCCESS}: that stage did not finish; run it first")
    return json.loads(marker.read_text(encoding="utf-8"))


def input_parts(input_dir: Path) -> list[Path]:
    read_success(input_dir)
    return sorted(input_dir.glob("part-*.parquet"))


@dataclass
class StageDir:
    output: Path
    fingerprint: str

    @property
    def work(self) -> Path:
        return self.output.with_name(f".{self.output.name}.inprogress-{self.fingerprint[:16]}")

    def is_done(self) -> bool:
        marker = self.output / SUCCESS
        if not marker.exists():
            return False
        return json.loads(marker.read_text(encoding="utf-8")).get("fingerprint") == self.fingerprint

    def done_stats(self) -> StageStats:
        return StageStats.read(self.output / STATS_FILE)

    def begin(self) -> Path:
        """The work directory, kept from an interrupted attempt (its finished tasks are reused)."""
        self.output.parent.mkdir(parents=True, exist_ok=True)
        for stale in self.output.parent.glob(f".{self.output.name}.inprogress-*"):
            if stale != self.work:  # an attempt with another input or config: useless now
                shutil.rmtree(stale)
        self.work.mkdir(exist_ok=True)
        return self.work

    def finish(self, stage_name: str, wall_seconds: float) -> StageStats:
        stats = merge_task_stats(stage_name, list((self.work / STATS_DIR).glob("*.json")))
        stats.check_balanced()
        stats.seconds = wall_seconds
        stats.write(self.work / STATS_FILE)
        success = {"stage": stage_name, "fingerprint": self.fingerprint, "version": __version__}
        (self.work / SUCCESS).write_text(json.dumps(success, indent=2) + "\n", encoding="utf-8")
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
        return stats
