"""The cross-snapshot index under `<data_root>/index/`: what later snapshots dedup against.

One folder per published stage, `<index>/published/<stage fingerprint>/part-*.parquet`, holding the
kept documents' ids (prefixed `index:` so a re-crawled page with the same id still matches), exact
hashes, MinHash signatures and SimHash fingerprints. Signatures rather than band keys alone: 512
bytes per document at 128 permutations (the fingerprint adds 8), and they let a match against the
index be verified by estimated Jaccard like any other pair. A `settings.json` records what the
signatures depend on; a run with other settings is refused.
Updated only by `publish_to_index`, which the orchestration calls when a snapshot is published.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from corpus_pipeline.config import DedupConfig
from corpus_pipeline.dedup.batch_ops import SIGNATURE_SCHEMA, signature_batch
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.spark import spark_schema
from corpus_pipeline.engine.spark_read import read_parts
from corpus_pipeline.engine.spark_write import write_parts
from corpus_pipeline.engine.stage_dir import input_parts, read_success
from corpus_pipeline.storage import Storage

INDEX_ID_PREFIX = "index:"
PUBLISHED = "published"
SETTINGS = "settings.json"
# How shingles are hashed (shingle_hashes.py): an index written with another hash holds signatures
# that cannot match this code's, so it is refused like one of other settings. The xxh32 of shingle
# strings came before (indexes without this key).
SHINGLE_HASH = "polynomial-fmix64"
INDEX_SCHEMA = pa.schema([SIGNATURE_SCHEMA.field(name) for name in ("id", "exact_hash", "signature", "simhash")])
_SIGNED_COLUMNS = ["id", "url", "text", "language"]


def index_settings(config: DedupConfig) -> dict:
    settings = {key: getattr(config, key) for key in ("num_perm", "seed", "word_ngram", "char_ngram")}
    return {**settings, "shingle_hash": SHINGLE_HASH}


def _check_settings(index_dir: Path, config: DedupConfig) -> None:
    path = index_dir / SETTINGS
    wanted = index_settings(config)
    if path.exists():
        found = json.loads(path.read_text(encoding="utf-8"))
        if found != wanted:
            raise ValueError(f"index {index_dir} was built with {found}; this run uses {wanted}")
    else:
        index_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(wanted, sort_keys=True) + "\n", encoding="utf-8")


def published_folders(index_dir: Path) -> list[Path]:
    return sorted(p for p in (index_dir / PUBLISHED).glob("*") if p.is_dir() and not p.name.startswith("."))


def publish_to_index(
    stage_dir: Path, index_dir: Path, config: DedupConfig, spark, storage: Storage | None = None
) -> Path:
    """Add the kept documents of a finished stage to the index (again: a no-op). The folder is
    written by the tasks (engine/spark_write.py: one file per id bucket, as many buckets as the
    stage has parts) under a hidden name, then renamed into place complete."""
    _check_settings(index_dir, config)
    target = index_dir / PUBLISHED / read_success(stage_dir)["fingerprint"][:32]
    if target.exists():
        return target
    parts = [str(part) for part in input_parts(stage_dir)]
    tmp = target.with_name(f".{target.name}.inprogress")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if parts:
        docs = read_parts(spark, parts, DOCUMENT_SCHEMA, storage or Storage(), _SIGNED_COLUMNS)
        signed = docs.mapInArrow(
            lambda batches: (signature_batch(b, config) for b in batches), spark_schema(SIGNATURE_SCHEMA)
        )
        prefixed = signed.withColumn("id", F.concat(F.lit(INDEX_ID_PREFIX), "id"))
        write_parts(prefixed, tmp, INDEX_SCHEMA, len(parts))
    os.replace(tmp, target)
    return target


def index_identity(index_dir: Path | None) -> list[str]:
    return [] if index_dir is None else [f"index:{p.name}" for p in published_folders(index_dir)]


def read_index(index_dir: Path, config: DedupConfig, spark, storage: Storage | None = None) -> DataFrame | None:
    """(id, exact_hash, signature, simhash) of every published document, or None for an empty index."""
    _check_settings(index_dir, config)
    parts = [str(part) for folder in published_folders(index_dir) for part in sorted(folder.glob("*.parquet"))]
    return read_parts(spark, parts, INDEX_SCHEMA, storage or Storage()) if parts else None
