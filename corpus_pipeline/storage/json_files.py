"""Small JSON files of the driver (a run record, gates, a snapshot's record, a pointer), written
whole: a reader gets the old content or the new one, never half (Storage.put_bytes)."""

from __future__ import annotations

import json
import os

from corpus_pipeline.storage.storage import Storage


def write_json(path: str | os.PathLike, data: dict | list, storage: Storage) -> None:
    body = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    storage.put_bytes(str(path), body.encode("utf-8"))


def read_json(path: str | os.PathLike, storage: Storage) -> dict | list | None:
    """The file's JSON, or None when there is none."""
    try:
        return json.loads(storage.read_bytes(str(path)))
    except FileNotFoundError:
        return None
