"""A stage's output directory: appears only complete, is skipped when already done, resumes.

Layout (DESIGN.md): `part-*.parquet`, `_rejected/reason=<r>/`, `_tasks/`, `_stats.json`, `_SUCCESS`
last. Work happens in a hidden sibling `.<name>.inprogress-<fingerprint>` that is renamed into place,
so a reader never sees a half-written stage; the fingerprint in its name means a killed run resumes
only into work done for the same input and config.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline import __version__
from corpus_pipeline.engine.task_output import ATTEMPTS_DIR, COMMITTED_DIR, STATS_DIR
from corpus_pipeline.stats import StageStats, merge_task_stats

SUCCESS = "_SUCCESS"
STATS_FILE = "_stats.json"
KEPT_HERE = "here"


class MissingInputError(FileNotFoundError):
    """An input that does not exist, or a stage directory that never finished."""


class OutputOverlapsInputError(ValueError):
    """An --output that equals, contains or lies inside an --input: writing it would destroy the input."""


def fingerprint(stage_name: str, stage_config: str, input_identity: list[str]) -> str:
    payload = json.dumps([__version__, stage_name, stage_config, input_identity], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def read_success(stage_dir: Path) -> dict:
    marker = Path(stage_dir) / SUCCESS
    if not marker.exists():
        if not Path(stage_dir).exists():
            raise MissingInputError(f"{stage_dir} does not exist")
        raise MissingInputError(f"{stage_dir} has no {SUCCESS}: that stage did not finish; run it first")
    return json.loads(marker.read_text(encoding="utf-8"))


def stage_input_identity(input_dir: Path) -> list[str]:
    """A stage's output is identified by its own fingerprint, so a rerun upstream invalidates
    everything downstream."""
    return [read_success(input_dir)["fingerprint"]]


def input_parts(input_dir: Path) -> list[Path]:
    """The kept documents of a finished stage directory."""
    kept = read_success(input_dir).get("kept", KEPT_HERE)
    if kept != KEPT_HERE:
        raise MissingInputError(
            f"{input_dir} ran fused with the stages after it: its kept documents are in {kept}; "
            "read that directory, or rerun with --set engine.write_intermediate=true to keep them here"
        )
    return sorted(Path(input_dir).glob("part-*.parquet"))


def check_output_apart(output: Path, inputs: list[str | Path]) -> None:
    """Refuse an output that equals, contains or lies inside an input, before anything is written."""
    target = Path(output).resolve()
    for name in inputs:
        source = Path(name).resolve()
        if target == source or target in source.parents or source in target.parents:
            relation = "is" if target == source else "contains" if target in source.parents else "lies inside"
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

    def finish(self, stage_name: str, wall_seconds: float, **marker) -> StageStats:
        stats = self.complete(stage_name, wall_seconds, **marker)
        self.publish()
        return stats
