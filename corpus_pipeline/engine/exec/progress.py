"""Progress of a stage's tasks under the local runner (Spark shows its own bar and UI).

On a terminal: one line rewritten after every task, "quality: 12/40 tasks, 1,850 docs/s, 2 min
left". Not a terminal (cron's log, `tee`): a plain line every `interval` seconds, also while one
long task runs (a heartbeat thread), and one at the end, so a six-hour stage says where it is
without filling the log (30 s: 720 lines).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO


def task_documents(result) -> int | None:
    """Documents a task read, from what it returned: a chain task's {stage: StageStats} (its first
    stage's input), a StageStats, or None when the task does not count documents (mix, crawl)."""
    if isinstance(result, dict) and result:
        result = next(iter(result.values()))
    documents = getattr(result, "docs_in", None)
    return documents if isinstance(documents, int) else None


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """`with Progress(...) as progress:`, then `advance(result)` after each task; `line()` is what
    is shown."""

    def __init__(
        self,
        label: str,
        total: int,
        interval: float = 30.0,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.label, self.total, self.interval = label, total, interval
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.started = self.last_line = clock()
        self.done = 0
        self.documents: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if not self.live:
            self._beat = threading.Thread(target=self._heartbeat, name=f"progress {self.label}", daemon=True)
            self._beat.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                if self.done < self.total and self.clock() - self.last_line >= self.interval * 0.99:
                    self._print_line()

    def _print_line(self) -> None:
        print(self.line(), file=self.stream, flush=True)
        self.last_line = self.clock()

    def line(self) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        parts = [f"{self.label}: {self.done:,}/{self.total:,} tasks"]
        if self.documents is not None:
            parts.append(f"{self.documents / elapsed:,.0f} docs/s")
        if self.done == self.total:
            parts.append(f"done in {_duration(elapsed)}")
        elif self.done:
            parts.append(f"{_duration(elapsed / self.done * (self.total - self.done))} left")
        return ", ".join(parts)

    def advance(self, result=None) -> None:
        with self._lock:
            self.done += 1
            documents = task_documents(result)
            if documents is not None:
                self.documents = (self.documents or 0) + documents
            finished = self.done == self.total
            if self.live:
                print(f"\r{self.line()}\033[K", end="\n" if finished else "", file=self.stream, flush=True)
            elif finished or self.clock() - self.last_line >= self.interval:
                self._print_line()
