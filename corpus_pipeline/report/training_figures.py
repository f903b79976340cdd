"""The run report's training-health section: each model trained in the run directory (a folder of
it holding `metrics.jsonl`: `run`'s train step, `make train`, `train --out` inside the run), its
loss and grad-norm curves with the steps where a health event was decided, and every event."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.report.curves import Curves
from corpus_pipeline.train.events import read_events
from corpus_pipeline.train.logs import METRICS_FILE, read_metrics


@dataclass
class TrainingRun:
    name: str  # the folder, relative to the run directory
    last_step: int
    last_loss: float | None
    val_loss: float | None
    loss: Curves
    grad_norm: Curves
    events: list[dict]


def _series(metrics: list[dict], key: str) -> list[tuple[float, float]]:
    return [
        (float(row["step"]), float(row[key]))
        for row in metrics
        if isinstance(row.get(key), int | float) and math.isfinite(row[key])
    ]


def training_run(folder: Path, name: str) -> TrainingRun:
    metrics, events = read_metrics(folder), read_events(folder)
    marks = [(float(event["step"]), f"{event['severity']} {event['kind']}: {event['message']}") for event in events]
    loss, val = _series(metrics, "loss"), _series(metrics, "val_loss")
    series = {"train loss": loss, **({"validation loss": val} if val else {})}
    norms = {"grad norm": _series(metrics, "grad_norm")}
    return TrainingRun(
        name=name,
        last_step=max((int(row["step"]) for row in metrics), default=0),
        last_loss=loss[-1][1] if loss else None,
        val_loss=val[-1][1] if val else None,
        loss=Curves(f"{name}: loss by step (dashed: a health event)", series, marks),
        grad_norm=Curves(f"{name}: global grad norm by step", norms, marks),
        events=events,
    )


def training_runs(run_dir: Path) -> list[TrainingRun]:
    """Every folder directly in `run_dir` that holds a training run's metrics, by name."""
    folders = (
        sorted(p for p in Path(run_dir).iterdir() if (p / METRICS_FILE).is_file()) if Path(run_dir).is_dir() else []
    )
    return [training_run(folder, folder.name) for folder in folders]
