"""The cross-snapshot index under `<data_root>/index/`: what later snapshots dedup against.

One folder per published stage, `<index>/published/<stage fingerprint>/part-*.parquet`, holding the
kept documents' ids (prefixed `index:` so a re-crawled page with the same id still matches), exact
hashes, MinHash signatures and SimHash fingerprints. Signatures rather than band keys alone: 512
bytes per document at 128 permutations (the fingerprint adds 8), and they let a match against the
index be verified by estimated Jaccard like any other pair. A `settings.json` records what the
signatures depend on; a run with other settings is refused.
Updated only by `publish_to_index`, which the orchestration calls when a snapshot is published. Each
folder is a stage directory written through the engine's one lifecycle (run_global: a hidden work
directory renamed into place, or on a store a `_SUCCESS` manifest written last), so the index may
live on `s3://` too, and a folder is read only once complete.
"""

from __future__ import annotations

import json

import pyarrow as pa

from corpus_pipeline.config import DedupConfig
from corpus_pipeline.dedup.batch_ops import SIGNATURE_SCHEMA, signature_batch
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.layout import WORK
from corpus_pipeline.engine.lifecycle import Executor, GlobalStage, run_global
from corpus_pipeline.engine.stage_dir import SUCCESS, Location, child, input_parts, location, read_success
from corpus_pipeline.storage import Storage

INDEX_ID_PREFIX = "index:"
PUBLISHED = "published"
SETTINGS = "settings.json"
# How shingles are hashed (shingle_hashes.py): an index written with another hash holds signatures
# that cannot match this code's, so it is refused like one of other settings (an index without
# this key hashed shingle strings with xxh32).
SHINGLE_HASH = "polynomial-fmix64"
INDEX_SCHEMA = pa.schema([SIGNATURE_SCHEMA.field(name) for name in ("id", "exact_hash", "signature", "simhash")])
_SIGNED_COLUMNS = ["id", "url", "text", "language"]


def index_settings(config: DedupConfig) -> dict:
    settings = {key: getattr(config, key) for key in ("num_perm", "seed", "word_ngram", "char_ngram")}
    return {**settings, "shingle_hash": SHINGLE_HASH}


def _check_settings(index_dir: Location, config: DedupConfig, storage: Storage) -> None:
    wanted = index_settings(config)
    found = _read_settings(index_dir, storage)
    if found is None:
        storage.put_bytes(str(child(index_dir, SETTINGS)), (json.dumps(wanted, sort_keys=True) + "\n").encode())
    elif found != wanted:
        raise ValueError(f"index {index_dir} was built with {found}; this run uses {wanted}")


def _read_settings(index_dir: Location, storage: Storage) -> dict | None:
    try:
        return json.loads(storage.read_bytes(str(child(index_dir, SETTINGS))))
    except FileNotFoundError:
        return None


def published_folders(index_dir: Location, storage: Storage) -> list[Location]:
    """The complete folders: those with their manifest. A local folder published before the index
    went through the lifecycle has parts and no manifest; a folder still being written is hidden
    (`.x.inprogress-*`, locally) or holds its commit area `_work/` (on a store)."""
    published = child(index_dir, PUBLISHED)
    contents: dict[str, set[str]] = {}
    for uri in storage.list_under(str(published)):
        name, _, rest = uri[len(str(published)) + 1 :].partition("/")
        if not name.startswith("."):
            contents.setdefault(name, set()).add(rest.partition("/")[0])
    complete = [name for name, entries in contents.items() if _is_published(entries)]
    return sorted(child(published, name) for name in complete)


def _is_published(entries: set[str]) -> bool:
    return SUCCESS in entries or (WORK not in entries and any(entry.endswith(".parquet") for entry in entries))


class IndexPublishStage(GlobalStage):
    """A finished stage's kept documents -> their signatures, one part per id bucket."""

    name = "dedup-index"

    def __init__(self, config: DedupConfig):
        self.config = config

    def config_fingerprint(self) -> str:
        return json.dumps(index_settings(self.config), sort_keys=True)

    def run(self, input_dir: Location, work, executor: Executor) -> dict:
        from pyspark.sql import functions as F

        from corpus_pipeline.engine.spark import spark_schema
        from corpus_pipeline.engine.spark_read import read_parts
        from corpus_pipeline.engine.spark_write import write_parts

        parts = [str(part) for part in input_parts(input_dir, work.storage)]
        if parts:
            docs = read_parts(executor.session(), parts, DOCUMENT_SCHEMA, work.storage, _SIGNED_COLUMNS)
            config = self.config
            signed = docs.mapInArrow(
                lambda batches: (signature_batch(b, config) for b in batches), spark_schema(SIGNATURE_SCHEMA)
            )
            prefixed = signed.withColumn("id", F.concat(F.lit(INDEX_ID_PREFIX), "id"))
            write_parts(prefixed, work.task_target, self.name, INDEX_SCHEMA, len(parts), work.storage)
        return {}


def publish_to_index(
    stage_dir: Location, index_dir: Location, config: DedupConfig, spark, storage: Storage
) -> Location:
    """Add the kept documents of a finished stage to the index (again: a no-op)."""
    from corpus_pipeline.engine.spark import SparkExecutor

    index_dir = location(index_dir)
    _check_settings(index_dir, config, storage)
    target = child(child(index_dir, PUBLISHED), read_success(stage_dir, storage)["fingerprint"][:32])
    return run_global(IndexPublishStage(config), location(stage_dir), target, SparkExecutor(spark), storage).output


def index_identity(index_dir: Location | None, storage: Storage) -> list[str]:
    if index_dir is None:
        return []
    return [f"index:{str(folder).rpartition('/')[2]}" for folder in published_folders(index_dir, storage)]


def index_parts(index_dir: Location, config: DedupConfig, storage: Storage) -> list[str]:
    """The parts (INDEX_SCHEMA) of every published folder, once the index's settings are checked."""
    _check_settings(index_dir, config, storage)
    return [str(part) for folder in published_folders(index_dir, storage) for part in _folder_parts(folder, storage)]


def read_index(index_dir: Location, config: DedupConfig, spark, storage: Storage):
    """(id, exact_hash, signature, simhash) of every published document as a DataFrame, or None
    for an empty index."""
    from corpus_pipeline.engine.spark_read import read_parts

    parts = index_parts(index_dir, config, storage)
    return read_parts(spark, parts, INDEX_SCHEMA, storage) if parts else None


def _folder_parts(folder: Location, storage: Storage) -> list[Location]:
    # A local folder written before the index went through the lifecycle has parts and no _SUCCESS.
    if not storage.exists(str(child(folder, SUCCESS))):
        names = [uri[len(str(folder)) + 1 :] for uri in storage.list_under(str(folder))]
        return [child(folder, name) for name in names if "/" not in name and name.endswith(".parquet")]
    return input_parts(folder, storage)
