"""Published snapshots: `<data_root>/corpus/`.

    CURRENT -> snapshots/<name>            a symlink, replaced by rename(2): readers see the old
                                           snapshot or the new one, never a mix or nothing
    snapshots/<name>/snapshot.json         what it holds: increments, documents, tokens
                    /processed_inputs.json the crawl files already in it (path|size|mtime_ns)
                    /tokenizer.json        the tokenizer of its latest increment
                    /increments/<run_id>/documents/   part-*.parquet, _stats.json, _SUCCESS
                    /increments/<run_id>/tokens/      *.bin, *.idx, manifest.json, tokenizer.json

A snapshot is the whole corpus as of one night: the increments of the snapshot before it plus the
night's own, as hard links, so keeping several snapshots costs little disk and a rollback is one
symlink. A snapshot appears complete (built under a hidden name, then renamed) before CURRENT
points at it; older ones beyond `keep` are removed after the switch.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from corpus_pipeline.pipeline.record import utc_now
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import write_json
from corpus_pipeline.tokenize.manifest import read_manifest

CURRENT = "CURRENT"
SNAPSHOTS = "snapshots"
SNAPSHOT_FILE = "snapshot.json"
PROCESSED_FILE = "processed_inputs.json"
INCREMENTS = "increments"
TOKENIZER = "tokenizer.json"
# What of a run a snapshot holds: the data and the files that describe it. `_rejected/`, `_tasks/`
# and the token counts stay in the run directory, with the run record that explains them.
DOCUMENT_FILES = ("part-*.parquet", "_stats.json", "_SUCCESS")
TOKEN_FILES = ("*.bin", "*.idx", "manifest.json", "tokenizer.json", "_stats.json", "_SUCCESS")


@dataclass(frozen=True)
class Snapshot:
    path: Path
    info: dict

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def tokenizer(self) -> Path:
        return self.path / TOKENIZER

    def increment_dirs(self) -> list[Path]:
        return [self.path / INCREMENTS / increment["run_id"] for increment in self.info["increments"]]

    def document_dirs(self) -> list[Path]:
        """The documents stage of each increment (what the dedup index holds)."""
        return [directory / "documents" for directory in self.increment_dirs()]

    def processed_inputs(self) -> set[str]:
        return set(json.loads((self.path / PROCESSED_FILE).read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Increment:
    """One night's gated corpus and its shards, in the run directory."""

    run_id: str
    documents: Path
    tokens: Path
    inputs: list[str]  # identities (path|size|mtime_ns) of the crawl files it was made from


def current_snapshot(corpus_dir: Path) -> Snapshot | None:
    link = corpus_dir / CURRENT
    if not link.exists():
        return None
    target = link.resolve()
    return Snapshot(target, json.loads((target / SNAPSHOT_FILE).read_text(encoding="utf-8")))


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another filesystem, or one without hard links
        shutil.copy2(source, target)


def _link_files(source_dir: Path, target_dir: Path, patterns: tuple[str, ...]) -> None:
    target_dir.mkdir(parents=True, exist_ok=True)
    for pattern in patterns:
        for source in sorted(source_dir.glob(pattern)):
            _link(source, target_dir / source.name)


def _link_tree(source_dir: Path, target_dir: Path) -> None:
    for source in sorted(p for p in source_dir.rglob("*") if p.is_file()):
        _link(source, target_dir / source.relative_to(source_dir))


def snapshot_info(name: str, previous: str | None, increments: list[dict]) -> dict:
    """What a snapshot's record says of it (a store snapshot adds its objects: store_snapshots.py)."""
    return {
        "name": name,
        "published_at": utc_now(),
        "previous": previous,
        "documents": sum(i["documents"] for i in increments),
        "tokens": sum(i["tokens"] for i in increments),
        "increments": increments,
    }


def increment_info(increment: Increment, storage=None) -> dict:
    """What a snapshot records of each increment (on a store too: store_snapshots.py adds its objects)."""
    manifest = read_manifest(increment.tokens, storage)
    return {
        "run_id": increment.run_id,
        "input_files": len(increment.inputs),
        "documents": manifest["documents"],
        "tokens": manifest["tokens"],
        "tokenizer_sha256": manifest["tokenizer"]["sha256"],
    }


def switch_current(corpus_dir: Path, name: str) -> None:
    tmp = corpus_dir / f".{CURRENT}.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    # Relative, so the corpus folder can be moved or mounted elsewhere.
    os.symlink(Path(SNAPSHOTS) / name, tmp)
    os.replace(tmp, corpus_dir / CURRENT)


def retire_old_snapshots(corpus_dir: Path, keep: int) -> list[str]:
    """Remove all but the newest `keep` snapshots (names sort by publication time), never CURRENT's."""
    current = (corpus_dir / CURRENT).resolve().name
    names = sorted(p.name for p in (corpus_dir / SNAPSHOTS).iterdir() if p.is_dir() and not p.name.startswith("."))
    retired = [name for name in names[: max(len(names) - keep, 0)] if name != current]
    for name in retired:
        shutil.rmtree(corpus_dir / SNAPSHOTS / name)
    return retired


def publish_snapshot(corpus_dir: Path, previous: Snapshot | None, increment: Increment) -> Snapshot:
    """Build the new snapshot beside the others and point CURRENT at it."""
    snapshots = corpus_dir / SNAPSHOTS
    snapshots.mkdir(parents=True, exist_ok=True)
    for stale in snapshots.glob(".*.inprogress"):  # a publish killed half way (the lock rules out a live one)
        shutil.rmtree(stale)
    name = f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}-{increment.run_id}"
    work = snapshots / f".{name}.inprogress"
    increments, processed = [], set()
    if previous is not None:
        for source in previous.increment_dirs():
            _link_tree(source, work / INCREMENTS / source.name)
        increments, processed = list(previous.info["increments"]), previous.processed_inputs()
    target = work / INCREMENTS / increment.run_id
    _link_files(increment.documents, target / "documents", DOCUMENT_FILES)
    _link_files(increment.tokens, target / "tokens", TOKEN_FILES)
    _link(increment.tokens / TOKENIZER, work / TOKENIZER)
    increments.append(increment_info(increment))
    write_json(work / PROCESSED_FILE, sorted(processed | set(increment.inputs)), Storage())
    info = snapshot_info(name, previous.name if previous else None, increments)
    write_json(work / SNAPSHOT_FILE, info, Storage())
    os.replace(work, snapshots / name)
    switch_current(corpus_dir, name)
    return Snapshot(snapshots / name, info)
