"""manifest.json: what a token-shard directory holds, written after every shard is complete.

Fields (JSON Schema: schemas/manifest.schema.json; prose: schemas/token_shards.md): the format,
the tokenizer's file, sha256, vocabulary size and end-of-document token, the token dtype, totals,
and per shard its documents, tokens, file sizes and sha256. Nothing in it depends on time or on the
machine, so the same input and config give a byte-identical manifest.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from corpus_pipeline import __version__
from corpus_pipeline.storage import local_files
from corpus_pipeline.tokenize.indexed_dataset import CODE_OF_DTYPE, VERSION, ShardFile

MANIFEST_FILE = "manifest.json"
TOKENIZER_FILE = "tokenizer.json"
FORMAT = "megatron-mmidx"
_SHARD_KEYS = ("name", "documents", "tokens", "bin_bytes", "idx_bytes", "bin_sha256", "idx_sha256")
_TOP_KEYS = ("format", "format_version", "prefix", "dtype", "dtype_code", "tokenizer", "documents", "tokens", "shards")


class ManifestError(ValueError):
    """A manifest that is missing or does not have the documented fields."""


def build_manifest(
    prefix: str,
    dtype: np.dtype,
    tokenizer_sha256: str,
    vocab_size: int,
    eod_token: str,
    eod_id: int,
    shards: list[ShardFile],
) -> dict:
    documents = sum(shard.documents for shard in shards)
    tokens = sum(shard.tokens for shard in shards)
    return {
        "format": FORMAT,
        "format_version": VERSION,
        "writer": f"corpus_pipeline {__version__}",
        "prefix": prefix,
        "dtype": np.dtype(dtype).name,
        "dtype_code": CODE_OF_DTYPE[np.dtype(dtype).name],
        "tokenizer": {
            "file": TOKENIZER_FILE,
            "sha256": tokenizer_sha256,
            "vocab_size": vocab_size,
            "eod_token": eod_token,
            "eod_id": eod_id,
        },
        "documents": documents,
        "tokens": tokens,
        "text_tokens": tokens - documents,
        "shards": [shard.to_dict() for shard in shards],
    }


def write_manifest(directory: Path, manifest: dict) -> Path:
    path = directory / MANIFEST_FILE
    local_files.put_bytes(path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def read_manifest(directory: Path | str, storage) -> dict:
    """The manifest of a token-shard directory, local or on a store (through its stage manifest)."""
    from corpus_pipeline.engine.whole_corpus import MissingInputError, read_stage_bytes
    from corpus_pipeline.storage.locations import child

    path = child(directory, MANIFEST_FILE)
    try:
        manifest = json.loads(read_stage_bytes(directory, MANIFEST_FILE, storage))
    except MissingInputError:
        raise ManifestError(f"{directory}: no {MANIFEST_FILE} (the tokenize stage did not finish here)") from None
    except json.JSONDecodeError as error:
        raise ManifestError(f"{path}: not JSON ({error})") from None
    missing = [key for key in _TOP_KEYS if key not in manifest]
    if missing:
        raise ManifestError(f"{path}: missing {missing}")
    if manifest["format"] != FORMAT:
        raise ManifestError(f"{path}: format {manifest['format']!r}, expected {FORMAT!r}")
    for number, shard in enumerate(manifest["shards"]):
        absent = [key for key in _SHARD_KEYS if key not in shard]
        if absent:
            raise ManifestError(f"{path}: shard {number} lacks {absent}")
    return manifest
