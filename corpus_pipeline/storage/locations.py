"""Where a stage directory is: a local `Path`, or an `s3://bucket/prefix` URI kept a str (as a
Path, `s3://b/k` would fold to `s3:/b/k`). The type says which, so joining needs no scheme test."""

from __future__ import annotations

import re
from pathlib import Path

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


def child(base: Location, name: str) -> Location:
    return base / name if isinstance(base, Path) else f"{str(base).rstrip('/')}/{name}"
