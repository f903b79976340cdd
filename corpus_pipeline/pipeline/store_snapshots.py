"""Published snapshots on an object store: `<data_root>/corpus/` is an `s3://` prefix.

    CURRENT                   {"snapshot": "snapshots/<name>.json"}: the pointer, PUT last
    snapshots/<name>.json     what the snapshot holds: its increments, and for each one every object
                              of its documents and shards, where the night's run wrote them

Nothing is copied: a snapshot names the objects of its run directories (`runs/<run_id>/...`),
which a later run never rewrites (a night's run id is the hash of its new inputs, and a
published input is not new again). Publishing is two PUTs, each atomic: the snapshot object under
a key of its own (a timestamp, the run id and a random tag), then CURRENT. A crash between them
leaves CURRENT naming the previous snapshot, whose object and listed objects are untouched, and an
orphan snapshot object that no CURRENT names; the next night reruns (its stages are reused) and
publishes a new one. Readers resolve CURRENT, then read only what that snapshot lists, never a
listing. After the switch, every snapshot object but the newest `keep` of CURRENT's line (the one
before it always among them: a reader may have resolved CURRENT just before the switch) is deleted,
orphans included.
"""

from __future__ import annotations

import fnmatch
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from corpus_pipeline.engine.stage_dir import SUCCESS, child, stage_files
from corpus_pipeline.pipeline.snapshots import (
    CURRENT,
    DOCUMENT_FILES,
    SNAPSHOTS,
    TOKEN_FILES,
    TOKENIZER,
    increment_info,
    snapshot_info,
)
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import read_json, write_json


@dataclass(frozen=True)
class StoreSnapshot:
    uri: str  # its object, corpus/snapshots/<name>.json
    info: dict

    @property
    def name(self) -> str:
        return self.info["name"]

    @property
    def tokenizer(self) -> str:
        """The tokenizer object of its latest increment (the next night tokenizes with it)."""
        return self.info["tokenizer"]

    def processed_inputs(self) -> set[str]:
        return set(self.info["processed_inputs"])

    def document_dirs(self) -> list[str]:
        """The documents stage of each increment, where its run wrote it (what the dedup index holds)."""
        return [increment["documents_dir"] for increment in self.info["increments"]]

    def document_parts(self) -> list[str]:
        """Every Parquet part of its documents, increment after increment."""
        return [
            uri
            for increment in self.info["increments"]
            for name, uri in increment["files"]["documents"].items()
            if fnmatch.fnmatch(name, DOCUMENT_FILES[0])
        ]


def _snapshot_uri(corpus: str, name: str) -> str:
    return child(corpus, f"{SNAPSHOTS}/{name}.json")


def current_snapshot(corpus: str, storage: Storage | None = None) -> StoreSnapshot | None:
    """The snapshot CURRENT names, or None before the first publish."""
    storage = storage or Storage()
    pointer = read_json(child(corpus, CURRENT), storage)
    if pointer is None:
        return None
    uri = child(corpus, pointer["snapshot"])
    info = read_json(uri, storage)
    if info is None:  # only a deletion by hand: retirement keeps CURRENT's snapshot and the one before
        raise FileNotFoundError(f"{child(corpus, CURRENT)} names {uri}, which is gone")
    return StoreSnapshot(uri, info)


def _named_files(stage: str, patterns: tuple[str, ...], storage: Storage) -> dict[str, str]:
    """Logical name -> object, of a finished stage's top-level files that match `patterns` (those a
    local snapshot links: the data and what describes it; rejected rows and task counters stay with
    the run), and its manifest (what a reader checks them against)."""
    files = {
        name: str(where)
        for name, where in stage_files(stage, storage).items()
        if "/" not in name and any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
    }
    return {**files, SUCCESS: child(stage, SUCCESS)}


def _increment_info(increment, storage: Storage) -> dict:
    return {
        **increment_info(increment, storage),
        "documents_dir": str(increment.documents),
        "tokens_dir": str(increment.tokens),
        "files": {
            "documents": _named_files(str(increment.documents), DOCUMENT_FILES, storage),
            "tokens": _named_files(str(increment.tokens), TOKEN_FILES, storage),
        },
    }


def write_snapshot(corpus: str, previous: StoreSnapshot | None, increment, storage: Storage) -> StoreSnapshot:
    """The new snapshot's object, PUT under a key no other publish uses; CURRENT is not touched."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"{stamp}-{increment.run_id}-{uuid.uuid4().hex[:8]}"
    increments = list(previous.info["increments"]) if previous else []
    increments.append(_increment_info(increment, storage))
    processed = previous.processed_inputs() if previous else set()
    info = {
        **snapshot_info(name, previous.name if previous else None, increments),
        "tokenizer": increments[-1]["files"]["tokens"][TOKENIZER],
        "processed_inputs": sorted(processed | set(increment.inputs)),
    }
    uri = _snapshot_uri(corpus, name)
    write_json(uri, info, storage)
    return StoreSnapshot(uri, info)


def write_current(corpus: str, snapshot: StoreSnapshot, storage: Storage) -> None:
    """The commit point of a publish: one PUT of the pointer."""
    write_json(child(corpus, CURRENT), {"snapshot": f"{SNAPSHOTS}/{snapshot.name}.json"}, storage)


def publish_snapshot(corpus: str, previous: StoreSnapshot | None, increment, storage: Storage) -> StoreSnapshot:
    snapshot = write_snapshot(corpus, previous, increment, storage)
    write_current(corpus, snapshot, storage)
    return snapshot


def retire_old_snapshots(corpus: str, keep: int, storage: Storage) -> list[str]:
    """Delete every snapshot object but CURRENT's and those before it in its line, `keep` in all
    and never fewer than 2; the names deleted, orphans of a crashed publish among them."""
    current = current_snapshot(corpus, storage)
    kept, snapshot = [], current
    while snapshot is not None and len(kept) < max(keep, 2):
        kept.append(snapshot.name)
        before = snapshot.info["previous"]
        info = read_json(_snapshot_uri(corpus, before), storage) if before else None
        snapshot = StoreSnapshot(_snapshot_uri(corpus, before), info) if info else None
    stale = [uri for uri in storage.list_under(child(corpus, SNAPSHOTS)) if uri.endswith(".json")]
    stale = [uri for uri in stale if uri.rpartition("/")[2].removesuffix(".json") not in kept]
    storage.delete(stale)
    return sorted(uri.rpartition("/")[2].removesuffix(".json") for uri in stale)
