"""A training run's logs as files, read without torch (the run report reads them): `metrics.jsonl`,
one line per logged step (monitor.py writes it), and `events.jsonl`, one line per health event
(events.py writes it)."""

from __future__ import annotations

import json
from pathlib import Path

METRICS_FILE = "metrics.jsonl"


def read_metrics(out_dir: Path) -> list[dict]:
    path = Path(out_dir) / METRICS_FILE
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def truncate_metrics(out_dir: Path, step: int) -> None:
    """Drop the entries after `step`: those of a run killed after its last checkpoint."""
    path = Path(out_dir) / METRICS_FILE
    if path.exists():
        kept = [line for line in path.read_text(encoding="utf-8").splitlines() if json.loads(line)["step"] <= step]
        path.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
