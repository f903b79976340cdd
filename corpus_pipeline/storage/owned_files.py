"""One file written by a command that is no stage (a report page, a model, a tokenizer), through the
same guard as a stage output: it replaces only a file this project wrote, one writer at a time.

Proof of ours: a note beside the file, `.<name>.corpus-pipeline.json`, holding the sha256 of what we
wrote. The note is written first, naming the new content and the content it replaces, then the
file in one atomic step (a local rename, an object PUT): a writer killed between the two leaves a
pair its rerun still accepts. An existing path without a note that matches its bytes (a user's
file, a file a user edited since, a folder, a device, a FIFO) is refused untouched (exit 2); a
second writer of the same file exits 75. An output link is resolved once: its target is written.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.storage.locations import Location, child, settled_output
from corpus_pipeline.storage.locks import output_lock

NOTE_SUFFIX = ".corpus-pipeline.json"


def note_of(path: Location) -> Location:
    folder, _, name = str(path).rpartition("/")
    return child(Path(folder) if isinstance(path, Path) else folder, f".{name}{NOTE_SUFFIX}")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _written_by_us(path: Location, storage: Storage) -> bytes | None:
    """The bytes at `path` when our note vouches for them; None when nothing is there."""
    kind = storage.kind(str(path))
    if kind == "missing":
        return None
    if kind != "file":
        raise OutputRefusedError(f"{str(path)!r} is a folder, a device or a FIFO, not a file we wrote: not replaced")
    try:
        note = json.loads(storage.read_bytes(str(note_of(path))))
        vouched = set(note["sha256"]) if isinstance(note, dict) and isinstance(note.get("sha256"), list) else set()
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        vouched = set()
    data = storage.read_bytes(str(path))
    if _digest(data) not in vouched:
        raise OutputRefusedError(
            f"{str(path)!r} exists and corpus_pipeline did not write it (or it was changed since): "
            "refusing to replace it; give another path or move it away"
        )
    return data


def write_owned(path: Location, data: bytes, storage: Storage, what: str = "--output") -> Location:
    """Write `data` at `path` (a local path or an object), refusing what is not ours; returns where
    it went (a link's target)."""
    path = settled_output(path, what)
    with output_lock(storage, str(path)):
        previous = _written_by_us(path, storage)
        replacing = [] if previous is None else [_digest(previous)]
        note = {"written_by": "corpus_pipeline", "sha256": [_digest(data), *replacing]}
        storage.put_bytes(str(note_of(path)), json.dumps(note).encode())
        storage.put_bytes(str(path), data)
    return path


def refuse_unless_ours(path: Location, storage: Storage) -> None:
    """Check, before long work, that writing `path` later will not be refused."""
    _written_by_us(settled_output(path), storage)
