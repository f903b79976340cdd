"""One writer at a time: of a stage output, of a nightly's data_root.

Locally an exclusive, non-blocking flock(2) on a file of ours (local_locks.py): the kernel drops it
when the process dies, `kill -9` included, so a crash never leaves a stale lock. On an object
store, which has no locks, a lease object (owner, expiry) renewed while the work runs; another
writer takes it over only once it has expired, or at once when it names a process of this host
that is gone (a killed run resumed on its own machine). Both name their holder, for the message
the second command prints (exit 75).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from corpus_pipeline.storage.local_locks import LockHeld, exclusive_lock, local_output_lock, now_utc, refuse_if_written
from corpus_pipeline.storage.storage import Storage, is_object_uri

__all__ = ["LEASE_NAME", "LockHeld", "exclusive_lock", "file_lock", "hold", "output_lock", "refuse_if_held"]

# A lease outlives its last renewal by this long: a driver that died on another host blocks its
# output for at most 10 minutes; renewed every third of it, so a 3-minute stall loses nothing.
LEASE_SECONDS = 600.0
# After writing a lease, read it back this much later: two writers that raced both see who won
# (an S3 PUT is last-writer-wins; pyarrow has no conditional write).
_SETTLE_SECONDS = 0.2


LEASE_NAME = "_lock.json"


@contextmanager
def output_lock(storage: Storage, output: str) -> Iterator[None]:
    """Hold the one-writer lock of a stage output while the block runs: locally a flock in the
    user's lock folder that also covers nested outputs (local_locks.py); on a store a lease object
    `_lock.json` inside the prefix, which the store knows as its own."""
    with _writer_lock(storage, str(output), f"{str(output).rstrip('/')}/{LEASE_NAME}"):
        yield


def refuse_if_held(storage: Storage, output: str) -> None:
    """LockHeld when another command writes `output` (or, locally, an output nested with it): asked
    before the output guard, so a stage in the middle of being written is "held" (exit 75), not
    "foreign" (exit 2). Only looks: the lock is taken by output_lock."""
    if is_object_uri(output):
        uri = f"{str(output).rstrip('/')}/{LEASE_NAME}"
        held = _read_lease(storage, uri)
        if held is not None and not _holder_is_gone(held):
            raise LockHeld(f"{uri} is held by another command writing {output} ({_describe(held)})")
        return
    refuse_if_written(str(output))


@contextmanager
def file_lock(storage: Storage, path: str) -> Iterator[None]:
    """The one-writer lock of a single file: as output_lock, but on a store the lease sits beside
    the object (`.<name>.lock.json`), never under its key, where it would make the file a prefix."""
    folder, _, name = str(path).rpartition("/")
    with _writer_lock(storage, str(path), f"{folder}/.{name}.lock.json"):
        yield


@contextmanager
def _writer_lock(storage: Storage, target: str, lease_uri: str) -> Iterator[None]:
    """A lease object at `lease_uri` for a target on a store; locally the flock of local_locks.py."""
    holder_kind = f"another command writing {target}"
    if is_object_uri(target):
        with _lease(storage, lease_uri, holder_kind):
            yield
        return
    with local_output_lock(target, holder_kind):
        yield


@contextmanager
def hold(storage: Storage, where: str, holder_kind: str) -> Iterator[None]:
    """The lock at `where`: a flock on that file, or a lease object of that key."""
    if is_object_uri(where):
        with _lease(storage, str(where), holder_kind):
            yield
        return
    with exclusive_lock(Path(where), holder_kind):
        yield


def _read_lease(storage: Storage, uri: str) -> dict | None:
    try:
        return json.loads(storage.read_bytes(uri))
    except FileNotFoundError:
        return None
    except ValueError:
        return None  # a lease cut short is no lease


def _holder_is_gone(lease: dict) -> bool:
    if lease.get("expires", 0) < time.time():
        return True
    if lease.get("host") != socket.gethostname():
        return False
    try:
        os.kill(int(lease["pid"]), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, KeyError, ValueError):
        return False
    return False


def _describe(lease: dict) -> str:
    until = datetime.fromtimestamp(lease.get("expires", 0), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"pid {lease.get('pid')} on {lease.get('host')}, since {lease.get('since')}, lease until {until}"


@contextmanager
def _lease(storage: Storage, uri: str, holder_kind: str) -> Iterator[None]:
    owner = uuid.uuid4().hex
    held = _read_lease(storage, uri)
    if held is not None and held.get("owner") != owner and not _holder_is_gone(held):
        raise LockHeld(f"{uri} is held by {holder_kind} ({_describe(held)})")
    lease = {"owner": owner, "host": socket.gethostname(), "pid": os.getpid(), "since": now_utc()}

    def renew() -> None:
        storage.put_bytes(uri, json.dumps({**lease, "expires": time.time() + LEASE_SECONDS}).encode())

    renew()
    time.sleep(_SETTLE_SECONDS)
    won = _read_lease(storage, uri)
    if won is None or won.get("owner") != owner:
        raise LockHeld(f"{uri} is held by {holder_kind} ({_describe(won or {})})")
    stop = threading.Event()

    def keep_renewing() -> None:
        while not stop.wait(LEASE_SECONDS / 3):
            renew()

    renewer = threading.Thread(target=keep_renewing, name="lease-renewal", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        if (_read_lease(storage, uri) or {}).get("owner") == owner:
            storage.delete([uri])
