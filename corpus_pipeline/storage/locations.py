"""Where a stage directory is: a local `Path`, or an `s3://bucket/prefix` URI kept a str (as a
Path, `s3://b/k` would fold to `s3:/b/k`). The type says which, so joining needs no scheme test."""

from __future__ import annotations

import os
import re
from pathlib import Path

from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.storage.storage import is_object_uri

Location = Path | str

_OTHER_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def location(path: Location | str) -> Location:
    """A path given by a user or a config. Another scheme (`s3a://`, `gs://`) is refused: as a
    Path it would be a local folder `s3a:`."""
    if is_object_uri(path):
        return str(path).rstrip("/")
    if isinstance(path, str) and _OTHER_SCHEME.match(path):
        scheme = path.split("://")[0]
        raise ValueError(f"{path}: {scheme}:// is not supported; give s3://bucket/key (any S3 API store) or a path")
    return Path(path)


def settled_output(output: Location, what: str = "--output") -> Location:
    """The real path a local output names, settled before any work: a symlink is resolved once
    (what is guarded, written and replaced is its target; the link itself stays as it is); a
    dangling link, the current folder or one holding it, and a path that cannot be created are
    refused (exit 2). An object URI is what it says: returned as it is."""
    if is_object_uri(output):
        return str(output).rstrip("/")
    if os.path.islink(output) and not os.path.exists(output):
        raise OutputRefusedError(f"{what} {str(output)!r} is a link to {os.readlink(output)!r}, which does not exist")
    real = Path(os.path.realpath(output))
    here = Path(os.path.realpath(os.getcwd()))
    if real == here or here.is_relative_to(real):
        raise OutputRefusedError(f"{what} {str(output)!r} is the current folder or holds it: give a folder inside it")
    ancestor = real.parent
    while not os.path.lexists(ancestor):
        ancestor = ancestor.parent
    if not ancestor.is_dir() or not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputRefusedError(
            f"{what} {str(output)!r} cannot be created: {str(ancestor)!r} is not a folder this user can write"
        )
    return real


def child(base: Location, name: str) -> Location:
    return base / name if isinstance(base, Path) else f"{str(base).rstrip('/')}/{name}"


def absolute(path: str | os.PathLike, resolve_links: bool = False) -> str:
    """A path as one string that names it from anywhere: an absolute local path (its links
    resolved if asked: what it really is), or the URI."""
    if is_object_uri(path):
        return str(path).rstrip("/")
    return os.path.realpath(path) if resolve_links else os.path.abspath(path)


def local_path(path: str | os.PathLike) -> Path | None:
    """The path to read in place with the local file system, or None for an object (which a reader
    that needs files, the trainer or a tokenizer, copies first)."""
    return None if is_object_uri(path) else Path(path)


def renames(path: str | os.PathLike) -> bool:
    """Whether `path`'s file system renames: a local disk does (the stage store's placement works
    in a hidden folder renamed into place; checkpoints are renamed into place); an object store
    cannot (objects written in an order, a manifest last: engine/store/object_stage.py)."""
    return not is_object_uri(path)


def known_missing(path: str | os.PathLike) -> bool:
    """Whether `path` is known not to exist: a local path that is not there. An object prefix never
    is (a store has no folders: an empty prefix and a missing one look alike)."""
    return not is_object_uri(path) and not os.path.lexists(path)


def shown(path: str | os.PathLike) -> str:
    """How a message names a location: a local path resolved, a URI as it is."""
    return str(path) if is_object_uri(path) else str(Path(path).resolve())


def link(path: str | os.PathLike) -> str:
    """A location as a URI a terminal or a browser opens: `file://...`, or the `s3://` URI."""
    return str(path) if is_object_uri(path) else Path(path).resolve().as_uri()
