"""A watchdog for the data loader: a wait longer than `timeout_s` ends the process.

A stalled read (a hung network filesystem, a wedged object store) blocks the main thread where no
signal or exception reaches it; a daemon thread notices the deadline pass, lets the trainer write
what it can (an event naming the rank and step, a checkpoint when this rank holds the whole state),
and ends the process with EXIT_HUNG, so torchrun --max-restarts or the scheduler can start it again.
Collectives are covered by init_process_group's timeout (distributed.py), set from the same value.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable

EXIT_HUNG = 124  # as timeout(1)


class DataWatchdog:
    def __init__(self, timeout_s: float, on_stall: Callable[[int, float], None]):
        self.timeout_s, self.on_stall = timeout_s, on_stall
        self._deadline: float | None = None
        self._step = 0
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="data-watchdog", daemon=True)
        self._thread.start()

    @contextlib.contextmanager
    def waiting(self, step: int):
        """Around one wait for data: the deadline runs while inside."""
        self._step, self._deadline = step, time.monotonic() + self.timeout_s
        try:
            yield
        finally:
            self._deadline = None

    def _watch(self) -> None:
        poll = min(1.0, self.timeout_s / 4)
        while not self._closed.wait(poll):
            deadline = self._deadline
            if deadline is not None and time.monotonic() > deadline:
                try:
                    self.on_stall(self._step, self.timeout_s)
                finally:
                    sys.stderr.flush()
                    os._exit(EXIT_HUNG)  # the main thread is blocked where nothing else can reach it

    def close(self) -> None:
        self._closed.set()
        self._thread.join()
