"""The local side of Storage's calls: plain file operations with the same promises as an object
store's (a write is whole or absent; a delete of what is gone is no error)."""

from __future__ import annotations

import os
import shutil
import stat
import uuid


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


def put_bytes(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = _temporary(path)
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def put_file(source: str, path: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = _temporary(path)
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


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
