"""The user's cache of this project: $XDG_CACHE_HOME/corpus_pipeline (~/.cache/corpus_pipeline),
one folder per kind of file (token shards copied from a store, the driver JVM's class archive)."""

from __future__ import annotations

import os
from pathlib import Path


def user_cache_dir(kind: str) -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser() / "corpus_pipeline" / kind
