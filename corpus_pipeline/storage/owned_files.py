"""One file written by a command that is no stage (a report page, a classifier, a quality head),
through the same guard as a stage output: it replaces only a file this project wrote, one writer
at a time.

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
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from corpus_pipeline.storage import local_files
from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.storage.locations import Location, child, settled_output
from corpus_pipeline.storage.locks import file_lock
from corpus_pipeline.storage.storage import Storage, is_object_uri

NOTE_SUFFIX = ".corpus-pipeline.json"
_CHUNK = 1 << 20


def note_of(path: Location) -> Location:
    folder, _, name = str(path).rpartition("/")
    return child(Path(folder) if isinstance(path, Path) else folder, f".{name}{NOTE_SUFFIX}")


def _digest(path: Location, storage: Storage) -> str:
    digest = hashlib.sha256()
    with storage.open(str(path)) as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _vouched(path: Location, storage: Storage) -> list[str]:
    """The sha256 of the file at `path` when our note vouches for it; [] when nothing is there."""
    kind = storage.kind(str(path))
    if kind == "missing":
        return []
    if kind != "file":
        raise OutputRefusedError(f"{str(path)!r} is a folder, a device or a FIFO, not a file we wrote: not replaced")
    try:
        note = json.loads(storage.read_bytes(str(note_of(path))))
        vouched = set(note["sha256"]) if isinstance(note, dict) and isinstance(note.get("sha256"), list) else set()
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        vouched = set()
    current = _digest(path, storage)
    if current not in vouched:
        raise OutputRefusedError(
            f"{str(path)!r} exists and corpus_pipeline did not write it (or it was changed since): "
            "refusing to replace it; give another path or move it away"
        )
    return [current]


@contextmanager
def owned_file(path: Location, storage: Storage, what: str = "--output") -> Iterator[Path]:
    """Write one file through the guard: the block writes the yielded local path (beside the
    target, or a scratch file for an object); when it ends, the note and then the file are put in
    place. Refused before the block runs when `path` holds what we did not write."""
    path = settled_output(path, what)
    with file_lock(storage, str(path)), ExitStack() as cleanup:
        replacing = _vouched(path, storage)
        if is_object_uri(path):
            scratch = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="corpus-pipeline-")))
            local = scratch / str(path).rpartition("/")[2]
        else:
            whole = local_files.WholeFile(path)
            cleanup.callback(whole.discard)
            local = whole.temporary
        yield local
        note = {"written_by": "corpus_pipeline", "sha256": [_digest(local, storage), *replacing]}
        storage.put_bytes(str(note_of(path)), json.dumps(note).encode())
        if is_object_uri(path):
            storage.put_file(str(local), str(path))  # one PUT: a reader sees the old object or the new one
        else:
            whole.commit()


def write_owned(path: Location, data: bytes, storage: Storage, what: str = "--output") -> Location:
    """`data` at `path` through the guard; returns where it went (a link's target)."""
    with owned_file(path, storage, what) as local:
        local.write_bytes(data)
    return settled_output(path, what)


def refuse_unless_ours(path: Location, storage: Storage) -> None:
    """Check, before long work, that writing `path` later will not be refused."""
    _vouched(settled_output(path), storage)
