"""The cross-snapshot index under `<data_root>/index/`: what later snapshots dedup against.

One folder per published stage, `<index>/published/<stage fingerprint>/part-*.parquet`, holding the
kept documents' ids (prefixed `index:` so a re-crawled page with the same id still matches), exact
hashes, MinHash signatures and SimHash fingerprints. Signatures rather than band keys alone: 512
bytes per document at 128 permutations (the fingerprint adds 8), and they let a match against the
index be verified by estimated Jaccard like any other pair. A `settings.json` records what the
signatures depend on; a run with other settings is refused.
Updated only by `publish_to_index`, which the orchestration calls when a snapshot is published (on
Spark, or in this process under `--runner local`: the same parts, no JVM). Each
folder is a stage directory written through the engine's one lifecycle (run_global: a hidden work
directory renamed into place, or on a store a `_SUCCESS` manifest written last), so the index may
live on `s3://` too, and a folder is read only once complete.
"""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.dedup.batch_ops import SIGNATURE_SCHEMA, signature_batch
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.id_buckets import bucket_identity, id_buckets
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.whole_corpus import (
    SUCCESS,
    WORK,
    Executor,
    GlobalStage,
    commit_task,
    input_parts,
    part_name,
    read_success,
    run_global,
    task_done,
)
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location, child, location
from corpus_pipeline.storage.parquet import open_parquet

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
        parts = [str(part) for part in input_parts(input_dir, work.storage)]
        if parts and executor.distributed:
            self._sign_on_spark(parts, work, executor.session())
        elif parts:
            self._sign_in_process(parts, work)
        return {}

    def _sign_on_spark(self, parts: list[str], work, spark) -> None:
        from pyspark.sql import functions as F

        from corpus_pipeline.engine.whole_corpus import read_parts, spark_schema, write_parts

        config = self.config
        signed = read_parts(  # signed in the tasks that read them: the texts never reach the JVM
            spark,
            parts,
            DOCUMENT_SCHEMA,
            work.storage,
            _SIGNED_COLUMNS,
            lambda batch: signature_batch(batch, config),
            spark_schema(SIGNATURE_SCHEMA),
        )
        prefixed = signed.withColumn("id", F.concat(F.lit(INDEX_ID_PREFIX), "id"))
        write_parts(prefixed, work.task_target, self.name, INDEX_SCHEMA, len(parts), work.storage)

    def _sign_in_process(self, parts: list[str], work) -> None:
        """The Spark job's parts without a JVM (`--runner local`): the same buckets (Spark's hash of
        the prefixed id, one per input part), each sorted by every column, committed as its task."""
        from corpus_pipeline.engine.whole_corpus import keep_all

        signed = []
        for part in parts:
            with open_parquet(work.storage, part) as parquet:
                for batch in parquet.iter_batches(columns=_SIGNED_COLUMNS):
                    signed.append(
                        pa.Table.from_batches([signature_batch(batch, self.config)]).select(INDEX_SCHEMA.names)
                    )
        table = pa.concat_tables(signed).cast(INDEX_SCHEMA)
        ids = [INDEX_ID_PREFIX + doc_id for doc_id in table.column("id").to_pylist()]
        table = table.set_column(0, INDEX_SCHEMA.field("id"), pa.array(ids, pa.string()))
        buckets = pa.array(id_buckets(table.column("id"), len(parts)).astype(np.int32))
        fill = partial(keep_all, stage=self.name, schema=INDEX_SCHEMA)
        for bucket in sorted(set(buckets.to_pylist())):
            identity = bucket_identity(bucket, len(parts))
            if not task_done(work.task_target, part_name(bucket), identity, work.storage):
                rows = table.filter(pc.equal(buckets, bucket)).sort_by(
                    [(name, "ascending") for name in INDEX_SCHEMA.names]
                )
                commit_task(work.task_target, part_name(bucket), identity, work.storage, partial(fill, [rows]))


def index_folder(stage_dir: Location, index_dir: Location, storage: Storage) -> Location:
    """Where the index holds a finished stage's documents: a folder named by its fingerprint."""
    return child(child(location(index_dir), PUBLISHED), read_success(stage_dir, storage)["fingerprint"][:32])


def missing_from_index(index_dir: Location, stage_dirs: list[Location], storage: Storage) -> list[Location]:
    """The stages whose documents the index does not hold complete (a folder being written does
    not count), in one listing of the index."""
    present = set(published_folders(location(index_dir), storage))
    return [stage for stage in stage_dirs if index_folder(stage, index_dir, storage) not in present]


def publish_to_index(
    stage_dir: Location, index_dir: Location, config: DedupConfig, executor: Executor, storage: Storage
) -> Location:
    """Add the kept documents of a finished stage to the index (again: a no-op). A local executor
    signs them in this process; a Spark one on the cluster."""
    index_dir = location(index_dir)
    _check_settings(index_dir, config, storage)
    target = index_folder(stage_dir, index_dir, storage)
    return run_global(IndexPublishStage(config), location(stage_dir), target, executor, storage).output


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
    from corpus_pipeline.engine.whole_corpus import read_parts

    parts = index_parts(index_dir, config, storage)
    return read_parts(spark, parts, INDEX_SCHEMA, storage) if parts else None


def _folder_parts(folder: Location, storage: Storage) -> list[Location]:
    # A local folder written before the index went through the lifecycle has parts and no _SUCCESS.
    if not storage.exists(str(child(folder, SUCCESS))):
        names = [uri[len(str(folder)) + 1 :] for uri in storage.list_under(str(folder))]
        return [child(folder, name) for name in names if "/" not in name and name.endswith(".parquet")]
    return input_parts(folder, storage)
