"""The local side of Storage's calls: plain file operations with the same promises as an object
store's (a write is whole or absent; a delete of what is gone is no error)."""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(f"{path}: no such file") from None


def _temporary(path: str) -> str:
    # Hidden, and unique per writer: two writers never share a half-written file.
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.{uuid.uuid4().hex[:12]}.tmp")


class WholeFile:
    """The one way a local file is written whole: written at `temporary` (hidden, beside `path`,
    unique to this writer), then renamed onto `path` by `commit()`, or removed by `discard()`. A
    reader sees the old file or the new one, never half of one."""

    def __init__(self, path: str | os.PathLike, temporary: str | os.PathLike | None = None):
        """`temporary`: a fixed name, for a writer that holds a lock (its rerun then overwrites what
        a killed one left there, instead of leaving it beside a new unique name)."""
        self.path = os.fspath(path)
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        self.temporary = Path(temporary if temporary is not None else _temporary(self.path))

    def commit(self) -> None:
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        if os.path.lexists(self.temporary):
            os.unlink(self.temporary)


@contextmanager
def replaced_whole(path: str | os.PathLike, temporary: str | os.PathLike | None = None) -> Iterator[Path]:
    """A WholeFile for one block: committed when it ends, discarded when it raises."""
    whole = WholeFile(path, temporary)
    try:
        yield whole.temporary
        whole.commit()
    finally:
        whole.discard()


def put_bytes(path: str | os.PathLike, data: bytes) -> None:
    with replaced_whole(path) as temporary, open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())  # the rename survives a power cut only with the bytes on disk


def put_file(source: str, path: str) -> None:
    with replaced_whole(path) as temporary:
        shutil.copyfile(source, temporary)


def delete(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def delete_folder(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def files_under(folder: str) -> list[str]:
    found = []
    for root, _, names in os.walk(folder):
        found += [os.path.join(root, name) for name in names]
    return sorted(found)


def kind(path: str) -> str:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    if stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else "other"


def entries_under(folder: str) -> list[str]:
    """Every file under `folder`, and every empty folder (with a trailing "/"): what a user may
    have put there, for the output guard."""
    found = []
    for root, folders, names in os.walk(folder):
        found += [os.path.join(root, name) for name in names]
        if not names and not folders and root != folder:
            found.append(root + "/")
    return sorted(found)


def link(source: str, target: str) -> None:
    """A hard link (a copy on a file system without them, or across file systems): the target
    keeps the bytes when the source's folder is deleted."""
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    if os.path.exists(target):
        os.unlink(target)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def write_symlink(path: str, target: str) -> None:
    """Point `path` at `target` (relative to its folder) by one rename(2): a reader that resolves it
    finds the old target or the new one, never nothing."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = _temporary(path)
    os.symlink(target, temporary)
    os.replace(temporary, path)


def read_symlink(path: str) -> str | None:
    return os.readlink(path) if os.path.islink(path) else None
