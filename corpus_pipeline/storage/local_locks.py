"""Local one-writer locks: flock(2) on a file of ours, which the kernel drops when its process dies
(`kill -9` included), so a crash never leaves a lock that blocks.

A lock file is ours only when it holds our holder line (`pid N, since T`): it is created whole (the
line written under a unique name, then hard-linked into place), so no moment shows it empty, and a
file of that name holding anything else, or a FIFO, a device, a link, is refused untouched (exit 2),
never opened for writing, truncated or unlinked.

An output's lock lives in the user's lock folder (`~/.cache/corpus_pipeline/locks`), named by the
hash of the output's real path and naming that path inside: nothing is ever created beside a
user's output, and a taker sees every output being written, so it refuses one nested in its own or
holding its own (`P` and `P/sub`: the publish of `P` would rename the folder that holds `P/sub`).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import stat
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.user_cache import user_cache_dir

_HOLDER_LINE = re.compile(r"pid \d+, since \S+")
# A taker that finds a held lock file whose path line is not written yet waits this long at most
# (the line is written right after the flock is taken: microseconds).
_PATH_LINE_WAIT_S = 1.0


class LockHeld(RuntimeError):
    """Another process holds the lock."""


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def holder_line() -> str:
    return f"pid {os.getpid()}, since {now_utc()}"


def _create_whole(path: Path, content: str) -> None:
    """Make `path` appear with `content` already in it, or not at all (someone else made it first)."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.new")
    temporary.write_text(content, encoding="utf-8")
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass
    finally:
        temporary.unlink()


def _open_ours(path: Path, content: str) -> int:
    """A descriptor of our lock file at `path`, made if absent; anything else there is refused."""
    while True:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            _create_whole(path, content)
            continue
        if not stat.S_ISREG(mode):
            raise OutputRefusedError(f"{path!r} is a link, FIFO or device, not a lock file of ours: not opened")
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            continue  # its holder released it between the two calls
        first = os.pread(descriptor, 256, 0).decode("utf-8", "replace").splitlines()[:1]
        if not first or not _HOLDER_LINE.fullmatch(first[0].strip()):
            os.close(descriptor)
            held = f"it holds {first[0][:60]!r}" if first else "it is empty"
            raise OutputRefusedError(
                f"{path!r} is not a lock file of corpus_pipeline ({held}): refusing to touch it; move it away"
            )
        return descriptor


def _describe_holder(descriptor: int) -> str:
    return os.pread(descriptor, 256, 0).decode("utf-8", "replace").splitlines()[0].strip()


@contextmanager
def _flocked(path: Path, holder_kind: str, content: str) -> Iterator[int]:
    """Hold the flock of our lock file at `path`, unlinking it when done. A taker checks that the
    file it locked is still the one at `path`: one that locked a file unlinked meanwhile tries again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        descriptor = _open_ours(path, content)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(descriptor)
            os.close(descriptor)
            raise LockHeld(f"{path} is held by {holder_kind} ({holder})") from None
        try:
            same = os.stat(path).st_ino == os.fstat(descriptor).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(descriptor)
    try:
        # The same length or longer than any earlier line, written over it in place: a reader
        # never sees the file empty (no truncation while it exists).
        line = content.encode("utf-8")
        os.ftruncate(descriptor, max(len(line), os.fstat(descriptor).st_size))
        os.pwrite(descriptor, line.ljust(os.fstat(descriptor).st_size, b" "), 0)
        yield descriptor
    finally:
        path.unlink(missing_ok=True)
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        os.close(descriptor)


@contextmanager
def exclusive_lock(path: Path, holder_kind: str = "another run") -> Iterator[None]:
    """The lock at `path` (a nightly run's, inside its data_root)."""
    with _flocked(path, holder_kind, holder_line() + "\n"):
        yield


def output_lock_folder() -> Path:
    return user_cache_dir("locks")


def _nested(one: str, other: str) -> bool:
    return one == other or one.startswith(other.rstrip("/") + "/") or other.startswith(one.rstrip("/") + "/")


def _held_output(lock: Path) -> tuple[str, str] | None:
    """The output a lock file names and its holder, while a live process holds it; None when nobody
    holds it (a holder killed before it unlinked it: the kernel dropped its flock)."""
    try:
        if not stat.S_ISREG(os.lstat(lock).st_mode):
            return None  # not a lock of ours: never opened
        descriptor = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None  # free: a dead holder's file
        except BlockingIOError:
            pass
        deadline = time.monotonic() + _PATH_LINE_WAIT_S
        while True:
            lines = os.pread(descriptor, 8192, 0).decode("utf-8", "replace").splitlines()
            if len(lines) > 1 and lines[1].strip():
                return lines[1].strip(), lines[0].strip()
            if time.monotonic() > deadline:
                return None
            time.sleep(0.01)
    finally:
        os.close(descriptor)


def _lock_file(real: str) -> Path:
    return output_lock_folder() / f"{hashlib.sha256(real.encode()).hexdigest()[:32]}.lock"


def refuse_if_written(output: str, mine: Path | None = None) -> None:
    """LockHeld when another process writes `output`, an output inside it or one holding it."""
    real = os.path.realpath(output)
    for other in sorted(output_lock_folder().glob("*.lock")):
        if other == mine:
            continue
        held = _held_output(other)
        if held is not None and held[0] == real:
            raise LockHeld(f"{output} is held by another command writing it ({held[1]})")
        if held is not None and _nested(real, held[0]):
            raise LockHeld(
                f"{output} overlaps {held[0]}, which another command is writing ({held[1]}): "
                "one of two nested outputs at a time"
            )


@contextmanager
def local_output_lock(output: str, holder_kind: str) -> Iterator[None]:
    """Hold the lock of a local output folder; refuse (LockHeld) when it, an output inside it, or
    an output holding it is being written by another process."""
    real = os.path.realpath(output)
    lock = _lock_file(real)
    with _flocked(lock, holder_kind, f"{holder_line()}\n{real}\n"):
        # Taken before looking: of two nested takers, the later looker sees the earlier one.
        refuse_if_written(output, mine=lock)
        yield
