"""Health events: one JSON line each in OUT/events.jsonl and one console line (rank 0 writes).

An event is {"step", "time", "kind", "severity", "action", "message", ...the values that decided it}.
Kinds and what to do about each are in the README's training section; `severity` is `error` for what
the trainer acted on (a spike, a non-finite value, a stall) and `warning` for what it only reports.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

EVENTS_FILE = "events.jsonl"


class EventLog:
    def __init__(self, out_dir: Path, enabled: bool):
        self.path = Path(out_dir) / EVENTS_FILE
        self.enabled = enabled

    def emit(self, step: int, kind: str, severity: str, message: str, action: str | None = None, **values) -> dict:
        event = {"step": step, "time": time.time(), "kind": kind, "severity": severity, "action": action}
        event.update(message=message, **values)
        if self.enabled:
            with open(self.path, "a", encoding="utf-8") as stream:  # opened per event: they are rare
                stream.write(json.dumps(event) + "\n")
            then = f" -> {action}" if action else ""
            print(f"health: step {step} {severity} {kind}: {message}{then}", file=sys.stderr, flush=True)
        return event


def read_events(out_dir: Path) -> list[dict]:
    path = Path(out_dir) / EVENTS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
