"""Published snapshots: `<data_root>/corpus/` (schemas/snapshots.md), local or on a store, one code path.

    snapshots/<name>.json     the snapshot: its increments, and for each one every file of its
                              documents and shards, where a reader opens it
    snapshots/<name>/         locally, hard links to those files (a store names the runs' objects
                              where they are: nothing copied)
    CURRENT                   the pointer, written last: a symlink to `snapshots/<name>` locally
                              (readers browse `CURRENT/increments/*/`), an object on a store

A snapshot is the whole corpus as of one night: the increments of the snapshot before it plus the
night's own. Its shards are every increment's shards (each night tokenized its own documents), or,
when the night's mix re-mixed the whole corpus to the targets (`shards_of: corpus`), the night's
alone: the earlier increments then bring their documents only. Publishing writes the snapshot's
files and record under a name no other publish uses (a timestamp, the run id and a random tag),
then the pointer: a crash between them leaves CURRENT on the previous snapshot, whole, and an
orphan record that the next publish retires. After the switch, every snapshot but the newest
`keep` of CURRENT's line goes, and never the one before CURRENT (a reader may have resolved CURRENT
just before the switch).
"""

from __future__ import annotations

import fnmatch
import logging
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from corpus_pipeline.engine.store.stage_dir import SUCCESS, Location, child, stage_files
from corpus_pipeline.pipeline.record import utc_now
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import read_json, write_json
from corpus_pipeline.storage.parquet import parquet_metadata
from corpus_pipeline.tokenize.manifest import read_manifest

CURRENT = "CURRENT"
SNAPSHOTS = "snapshots"
INCREMENTS = "increments"
TOKENIZER = "tokenizer.json"
# What of a run a snapshot holds: the data and the files that describe it. `_rejected/`, `_tasks/`
# and the token counts stay in the run directory, with the run record that explains them.
DOCUMENT_FILES = ("part-*.parquet", "_stats.json")
# A mix's documents.parquet traces every entry of its shards to its document and source.
TOKEN_FILES = ("*.bin", "*.idx", "manifest.json", "tokenizer.json", "documents.parquet", "_stats.json")
# Never fewer kept: CURRENT's and the one before it, which a reader may have just resolved.
MIN_KEPT = 2

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    corpus: Location
    info: dict

    @property
    def name(self) -> str:
        return self.info["name"]

    @property
    def tokenizer(self) -> str:
        """The tokenizer of its latest increment (the next night tokenizes with it)."""
        return self.info["tokenizer"]

    def processed_inputs(self) -> set[str]:
        return set(self.info["processed_inputs"])

    def document_dirs(self) -> list[str]:
        """The documents stage of each increment, where a stage reader opens it (the index holds them)."""
        return [increment["documents_dir"] for increment in self.info["increments"]]

    def shard_dirs(self) -> list[str]:
        """Where a shard reader opens the snapshot's shards: every increment's that holds some."""
        return [increment["tokens_dir"] for increment in self.info["increments"] if increment["tokens_dir"]]

    def document_parts(self) -> list[str]:
        """Every Parquet part of its documents, increment after increment."""
        return [
            where
            for increment in self.info["increments"]
            for name, where in increment["files"]["documents"].items()
            if fnmatch.fnmatch(name, DOCUMENT_FILES[0])
        ]


@dataclass(frozen=True)
class Increment:
    """One night's gated corpus and its shards, in the run directory."""

    run_id: str
    documents: Location
    tokens: Location
    inputs: list[str]  # identities (path|size|mtime_ns) of the crawl files it was made from
    # Its shards mix every increment's documents (the nightly's mix re-mixes the published corpus):
    # the snapshot's shards are these alone.
    remixes_the_corpus: bool = False


def _record(corpus: Location, name: str) -> Location:
    return child(corpus, f"{SNAPSHOTS}/{name}.json")


def _read(corpus: Location, name: str, storage: Storage) -> Snapshot | None:
    info = read_json(_record(corpus, name), storage)
    if info is None:
        info = _earlier_local_record(corpus, name, storage)
    return None if info is None else Snapshot(corpus, info)


def _earlier_local_record(corpus: Location, name: str, storage: Storage) -> dict | None:
    """A local snapshot of an earlier version: `snapshots/<name>/snapshot.json` and
    `processed_inputs.json` inside its folder of links, whose files are where they lie."""
    folder = child(corpus, f"{SNAPSHOTS}/{name}")
    info = read_json(child(folder, "snapshot.json"), storage)
    if info is None:
        return None
    increments = []
    for increment in info["increments"]:
        base = child(folder, f"{INCREMENTS}/{increment['run_id']}")
        dirs = {kind: str(child(base, kind)) for kind in ("documents", "tokens")}
        files = {kind: {uri[len(d) + 1 :]: uri for uri in storage.list_under(d)} for kind, d in dirs.items()}
        increments.append(
            {**increment, "documents_dir": dirs["documents"], "tokens_dir": dirs["tokens"], "files": files}
        )
    processed = read_json(child(folder, "processed_inputs.json"), storage) or []
    return {**info, "tokenizer": str(child(folder, TOKENIZER)), "processed_inputs": processed, "increments": increments}


def current_snapshot(corpus: Location, storage: Storage) -> Snapshot | None:
    """The snapshot CURRENT names, or None before the first publish."""
    target = storage.read_pointer(str(child(corpus, CURRENT)))
    if target is None:
        return None
    name = target.rpartition("/")[2].removesuffix(".json")
    snapshot = _read(corpus, name, storage)
    if snapshot is None:  # only a deletion by hand: retirement keeps CURRENT's snapshot and the one before
        raise FileNotFoundError(f"{child(corpus, CURRENT)} names the snapshot {name}, whose record is gone")
    return snapshot


def _placed(stage: Location, patterns: tuple[str, ...], target: Location, storage: Storage) -> dict[str, str]:
    """Logical name -> where it is read, of a finished stage's top-level files that match `patterns`
    and its `_SUCCESS` (what a reader checks them against), placed in the folder `target`."""
    files = {
        name: where
        for name, where in stage_files(stage, storage).items()
        if "/" not in name and any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
    }
    files[SUCCESS] = child(stage, SUCCESS)
    return {name: storage.place(str(where), str(child(target, name))) for name, where in sorted(files.items())}


def _increment_info(
    run_id: str, documents: Location, tokens: Location | None, folder: Location, storage: Storage, remixed: bool
) -> dict:
    """An increment's record, its files placed under `folder/increments/<run_id>/`; without
    `tokens`, its documents only (its shards are not the snapshot's: a later mix re-mixed them).
    In a snapshot whose shards mix the whole corpus (`remixed`), `documents` counts the increment's
    documents and `shard_documents` the entries of the shards it holds (repeats included)."""
    base = child(folder, f"{INCREMENTS}/{run_id}")
    files = {"documents": _placed(documents, DOCUMENT_FILES, child(base, "documents"), storage)}
    # Where a stage reader opens each, beside its placed marker.
    info = {"run_id": run_id, "documents_dir": files["documents"][SUCCESS].rpartition("/")[0], "files": files}
    if remixed:
        parts = [where for name, where in files["documents"].items() if fnmatch.fnmatch(name, DOCUMENT_FILES[0])]
        info["documents"] = sum(parquet_metadata(storage, where).num_rows for where in parts)
    if tokens is None:
        return {**info, "tokens": 0, "tokens_dir": None}
    files["tokens"] = _placed(tokens, TOKEN_FILES, child(base, "tokens"), storage)
    manifest = read_manifest(files["tokens"][SUCCESS].rpartition("/")[0], storage)
    counted = {"shard_documents": manifest["documents"]} if remixed else {"documents": manifest["documents"]}
    return {
        **info,
        **counted,
        "tokens": manifest["tokens"],
        "tokenizer_sha256": manifest["tokenizer"]["sha256"],
        "tokens_dir": files["tokens"][SUCCESS].rpartition("/")[0],
    }


# publish_snapshot's names: <UTC stamp>-<run_id>-<8 hex digits> (earlier versions: no digits).
_SNAPSHOT_NAME = re.compile(r"\d{8}T\d{6}Z-[A-Za-z0-9][A-Za-z0-9_.-]*")


def publish_snapshot(corpus: Location, previous: Snapshot | None, increment: Increment, storage: Storage) -> Snapshot:
    """The new snapshot's files and record under a name of its own, then CURRENT: the commit point."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"{stamp}-{increment.run_id}-{uuid.uuid4().hex[:8]}"
    folder = child(corpus, f"{SNAPSHOTS}/{name}")
    remixed = increment.remixes_the_corpus
    increments = []
    for earlier in previous.info["increments"] if previous else []:
        tokens = None if remixed else earlier["tokens_dir"]
        placed = _increment_info(earlier["run_id"], earlier["documents_dir"], tokens, folder, storage, remixed)
        kept = {key: value for key, value in earlier.items() if key != "shard_documents"}
        increments.append({**kept, **placed})
    night = _increment_info(increment.run_id, increment.documents, increment.tokens, folder, storage, remixed)
    increments.append({**night, "input_files": len(increment.inputs)})
    processed = previous.processed_inputs() if previous else set()
    info = {
        "name": name,
        "published_at": utc_now(),
        "previous": previous.name if previous else None,
        "shards_of": "corpus" if remixed else "increments",
        "documents": sum(i["documents"] for i in increments),
        "tokens": sum(i["tokens"] for i in increments),
        "tokenizer": storage.place(night["files"]["tokens"][TOKENIZER], str(child(folder, TOKENIZER))),
        "processed_inputs": sorted(processed | set(increment.inputs)),
        "increments": increments,
    }
    write_json(_record(corpus, name), info, storage)
    storage.write_pointer(str(child(corpus, CURRENT)), f"{SNAPSHOTS}/{name}")
    return Snapshot(corpus, info)


def retire_old_snapshots(corpus: Location, keep: int, storage: Storage) -> list[str]:
    """Delete every snapshot but CURRENT's and those before it in its line, `keep` in all and never
    fewer than MIN_KEPT; the names deleted, orphans of a crashed publish among them."""
    kept, snapshot = [], current_snapshot(corpus, storage)
    while snapshot is not None and len(kept) < max(keep, MIN_KEPT):
        kept.append(snapshot.name)
        before = snapshot.info["previous"]
        snapshot = _read(corpus, before, storage) if before else None
    folder = str(child(corpus, SNAPSHOTS))
    names = {uri[len(folder) + 1 :].split("/")[0].removesuffix(".json") for uri in storage.list_under(folder)}
    # Only names publish_snapshot makes: a user's file or folder in snapshots/ is never deleted.
    foreign = sorted(name for name in names if not _SNAPSHOT_NAME.fullmatch(name))
    if foreign:
        log.warning("%s: left alone, not snapshots of ours: %s", folder, ", ".join(map(repr, foreign)))
    retired = sorted(names - set(kept) - set(foreign))
    for name in retired:
        storage.delete([str(_record(corpus, name))])
        storage.delete_prefix(str(child(corpus, f"{SNAPSHOTS}/{name}")))
    return retired
