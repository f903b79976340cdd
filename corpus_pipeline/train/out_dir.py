"""Whose is an --out: a finished run of this config (reused by `run`), another run's (refused without
--resume: a user's model is never replaced), or nobody's yet."""

from __future__ import annotations

import json
from pathlib import Path

from corpus_pipeline.train.checkpoint import has_checkpoint, load_checkpoint_meta
from corpus_pipeline.train.config import TrainConfig
from corpus_pipeline.train.logs import METRICS_FILE
from corpus_pipeline.train.preflight import manifest_sha256

RUN_FILE = "run.json"


class OutputInUseError(Exception):
    """An --out that holds another run's checkpoint or metrics, without --resume."""


def finished_run(out_dir: Path, shards_dir: Path, config: TrainConfig) -> dict | None:
    """The summary of a run in `out_dir` that already finished `config` on these shards, else None."""
    summary_path = Path(out_dir) / RUN_FILE
    if not (summary_path.exists() and has_checkpoint(out_dir)):
        return None
    summary = json.loads(summary_path.read_text())
    state = load_checkpoint_meta(Path(out_dir))
    same = state["config"] == config.model_dump(mode="json") and state["manifest_sha256"] == manifest_sha256(shards_dir)
    return summary if same and not summary["interrupted"] and summary["step"] >= config.max_steps else None


def refuse_another_runs_output(out_dir: Path) -> None:
    """Without --resume, an out_dir holding a checkpoint or metrics is another run's: never replaced."""
    found = []
    if has_checkpoint(out_dir):
        try:
            found.append(f"a checkpoint of step {load_checkpoint_meta(out_dir)['step']}")
        except Exception:  # noqa: BLE001 - unreadable or foreign: still not ours to replace
            found.append("a checkpoint")
    if (Path(out_dir) / METRICS_FILE).exists():
        found.append(METRICS_FILE)
    if found:
        raise OutputInUseError(
            f"{out_dir} holds {' and '.join(found)} of an earlier run: --resume continues it, another --out "
            "starts a new one (nothing was changed)"
        )
