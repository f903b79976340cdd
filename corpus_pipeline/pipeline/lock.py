"""One nightly run at a time: an exclusive, non-blocking flock(2) on `<data_root>/nightly/lock`.

The kernel drops the lock when the process dies, `kill -9` included, so a crash never leaves a
stale lock for the next night to trip over. The file names its holder, for the message the
overlapping run prints; taking the lock writes nothing else, and failing to take it writes nothing.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corpus_pipeline.pipeline.record import utc_now


class LockHeld(RuntimeError):
    """Another process holds the lock."""


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    # "a+": open without truncating, so a run that fails to take the lock changes nothing.
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "holder unknown"
            raise LockHeld(f"{path} is held by another nightly run ({holder})") from None
        try:
            handle.truncate(0)
            handle.write(f"pid {os.getpid()}, since {utc_now()}\n")
            handle.flush()
            yield
        finally:
            handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)
