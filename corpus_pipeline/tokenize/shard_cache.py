"""A local copy of token shards on an object store: `train --shards s3://...` memory-maps files, so a
node copies the stage to its own disk once, checks every byte against the manifest, then trains.

The copy of a stage is `<cache>/<fingerprint[:16]>/` (the stage's own fingerprint: the same input
and config give the same bytes, so any rerun of that stage shares the copy). Every file is downloaded
under a temporary name and renamed only once its size and sha256 match the token manifest. Its
`_cache.json` records, per file, the object it came from (URI, size, Last-Modified), its size and
sha256, and whether the process that last checked the copy, under a lock, found every file good. So
a killed download is never taken for complete, a second run downloads nothing, a cached file whose
bytes changed is downloaded again, and an object that changed in the bucket after its stage
committed is refused by name (every run, since its file keeps the identity it was downloaded from).

On a node under torchrun only local rank 0 downloads: it takes the lock before a barrier, so the
other ranks, which take the lock after it, wait (with no timeout: a 100 GB copy outlasts the
process group's) until it is done, then trust its `_cache.json`.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.engine.whole_corpus import read_success, stage_files
from corpus_pipeline.storage import Storage, local_files
from corpus_pipeline.tokenize.bpe import file_sha256
from corpus_pipeline.tokenize.manifest import MANIFEST_FILE, TOKENIZER_FILE, read_manifest
from corpus_pipeline.user_cache import user_cache_dir

CACHE_VARIABLE = "CORPUS_PIPELINE_CACHE"
MARKER = "_cache.json"
# One object stream gives ~100-200 MB/s from S3; 8 at once fill a 10 Gbit/s link.
DOWNLOADS = 8


class ShardCacheError(ValueError):
    """A local copy that cannot be made or trusted: the message names the object or the file."""


@dataclass(frozen=True)
class CachedShards:
    directory: Path
    source: str
    downloaded: int  # files fetched in this call
    reused: int  # files already in the copy and checked
    bytes_downloaded: int
    seconds: float

    def format(self) -> str:
        return (
            f"{self.source} -> local copy {self.directory} ({self.downloaded} file(s), "
            f"{self.bytes_downloaded:,} bytes downloaded, {self.reused} reused, {self.seconds:.1f} s)"
        )


def default_cache_dir() -> Path:
    """$CORPUS_PIPELINE_CACHE, else $XDG_CACHE_HOME/corpus_pipeline/shards (~/.cache/...)."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE]).expanduser()
    return user_cache_dir("shards")


def cached_shards(
    uri: str,
    cache_dir: Path,
    storage: Storage,
    checksums: bool = True,
    local_rank: int = 0,
    barrier: Callable[[], None] = lambda: None,
) -> CachedShards:
    """The local copy of the token-shard stage `uri`, made or checked by local rank 0.
    `checksums`: rehash cached files too (else their sizes only); downloads are always hashed."""
    started = time.monotonic()
    # Every rank reads the stage manifest, so a missing stage fails every rank alike before the barrier.
    uri = uri.rstrip("/")
    key = read_success(uri, storage)["fingerprint"][:16]
    cache_dir.mkdir(parents=True, exist_ok=True)
    directory = cache_dir / key
    with open(cache_dir / f"{key}.lock", "a") as lock:
        if local_rank == 0:
            fcntl.flock(lock, fcntl.LOCK_EX)  # also against another job on this node copying the same stage
            barrier()
            try:
                counts = _fill(uri, directory, storage, checksums)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        else:
            barrier()
            fcntl.flock(lock, fcntl.LOCK_EX)
            fcntl.flock(lock, fcntl.LOCK_UN)
            if not is_complete(directory):
                raise ShardCacheError(f"{uri}: local rank 0 did not complete the copy in {directory} (see its message)")
            counts = (0, len(json.loads((directory / MARKER).read_text(encoding="utf-8"))["files"]), 0)
    return CachedShards(directory, uri, *counts, seconds=time.monotonic() - started)


def _fill(uri: str, directory: Path, storage: Storage, checksums: bool) -> tuple[int, int, int]:
    """Make `directory` a checked copy of `uri`; (files downloaded, files reused, bytes downloaded)."""
    directory.mkdir(exist_ok=True)
    marker = directory / MARKER
    previous = json.loads(marker.read_text(encoding="utf-8"))["files"] if marker.exists() else {}
    # Incomplete until this run has checked every file: the other ranks trust only a copy checked now.
    # The records stay: a file that fails below keeps the identity it was downloaded from.
    _write_marker(marker, uri, previous, complete=False)
    objects = stage_files(uri, storage)
    storage.list_under(uri)  # one LIST per 1,000 objects answers every identity below
    copy = _Copy(uri, directory, objects, storage, previous, checksums)
    complete = False
    try:
        copy.ensure(MANIFEST_FILE, None, None)
        manifest = read_manifest(directory, Storage())  # the local copy: no store config applies
        wanted = [(TOKENIZER_FILE, None, manifest["tokenizer"]["sha256"])]
        for shard in manifest["shards"]:
            wanted.append((f"{shard['name']}.bin", shard["bin_bytes"], shard["bin_sha256"]))
            wanted.append((f"{shard['name']}.idx", shard["idx_bytes"], shard["idx_sha256"]))
        with ThreadPoolExecutor(DOWNLOADS) as pool:
            list(pool.map(lambda entry: copy.ensure(*entry), wanted))
        complete = True
    finally:
        # Complete: exactly the files of this manifest; else what is known, for the next run to use.
        _write_marker(marker, uri, copy.records if complete else {**previous, **copy.records}, complete)
    return copy.downloaded, len(copy.records) - copy.downloaded, copy.bytes_downloaded


def is_complete(directory: Path) -> bool:
    """Whether the last process to check the copy in `directory` found every file good."""
    marker = directory / MARKER
    return marker.exists() and json.loads(marker.read_text(encoding="utf-8"))["complete"]


def _write_marker(marker: Path, uri: str, records: dict, complete: bool) -> None:
    state = {"source": uri, "complete": complete, "files": dict(sorted(records.items()))}
    local_files.put_bytes(marker, (json.dumps(state, indent=2) + "\n").encode("utf-8"))


class _Copy:
    def __init__(self, source: str, directory: Path, objects: dict, storage: Storage, previous: dict, checksums: bool):
        self.source, self.directory, self.objects, self.storage = source, directory, objects, storage
        self.previous, self.checksums = previous, checksums
        self.downloaded = self.bytes_downloaded = 0
        self.counting = threading.Lock()  # += from the download threads
        self.records: dict[str, dict] = {}  # name -> record, of the files checked in this run

    def ensure(self, name: str, size: int | None, sha256: str | None) -> None:
        """Put `name` in the copy and record it: the cached file when it still checks out, else downloaded.
        `size`, `sha256`: what the token manifest says (None: it says nothing, as for itself)."""
        if name not in self.objects:
            raise ShardCacheError(f"{self.source}: the stage's manifest lists no {name}")
        uri = str(self.objects[name])
        identity = self.storage.identity(uri)
        local = self.directory / name
        old = self.previous.get(name)
        if local.exists() and self._still_good(local, old, identity, size, sha256):
            self.records[name] = {"object": identity, "bytes": local.stat().st_size, "sha256": sha256 or old["sha256"]}
            return
        # A fixed name: the copy's lock makes this the one writer, and a killed one's part is overwritten.
        with local_files.replaced_whole(local, local.with_name(f".{name}.download")) as temporary:
            self.storage.get_file(uri, str(temporary))
            actual_size, actual_sha = temporary.stat().st_size, file_sha256(temporary)
            if (size is not None and actual_size != size) or (sha256 is not None and actual_sha != sha256):
                said = f"sha256 {sha256[:12]}" if size is None else f"{size:,} bytes with sha256 {sha256[:12]}"
                raise ShardCacheError(
                    f"{uri}: {actual_size:,} bytes with sha256 {actual_sha[:12]}, but manifest.json says {said}: "
                    "the object changed after its stage committed; rerun that stage"
                )
        self.records[name] = {"object": identity, "bytes": actual_size, "sha256": actual_sha}
        with self.counting:
            self.downloaded += 1
            self.bytes_downloaded += actual_size

    def _still_good(self, local: Path, old: dict | None, identity: str, size: int | None, sha256: str | None) -> bool:
        """A file renamed into the copy was whole and checked then; is it still, and still the object's?
        Without a record (a run killed before writing its marker) its bytes must match the manifest."""
        if old is None:
            return (
                sha256 is not None and (size is None or local.stat().st_size == size) and file_sha256(local) == sha256
            )
        if old["object"] != identity or local.stat().st_size != old["bytes"]:
            return False
        if sha256 is not None and old["sha256"] != sha256:
            return False
        return not self.checksums or file_sha256(local) == old["sha256"]
