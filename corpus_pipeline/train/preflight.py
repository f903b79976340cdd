"""Checks that refuse bad input before any GPU time is spent, each naming the problem.

Shards: the manifest, every shard file's presence and size, the tokenizer beside them (its sha256
and vocabulary size against the manifest's), and with `verify_shards: checksums` every byte against
the manifest's sha256 (`corpus-pipeline shards verify`). Then: training and validation shards
written with one tokenizer, a model vocabulary that covers the shards' ids, and enough tokens for
one global batch.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tokenizers import Tokenizer

from corpus_pipeline.tokenize.bpe import file_sha256
from corpus_pipeline.tokenize.indexed_dataset import ShardFormatError
from corpus_pipeline.tokenize.manifest import MANIFEST_FILE, TOKENIZER_FILE, ManifestError
from corpus_pipeline.tokenize.reader import TokenShards
from corpus_pipeline.tokenize.verify import verify_shards


class PreflightError(ValueError):
    """Input that training would fail on (or silently learn garbage from)."""


def open_checked_shards(directory: str | Path, verify: str, role: str = "training") -> TokenShards:
    directory = Path(directory)
    if verify == "checksums":
        report = verify_shards(directory, checksums=True)
        if not report.ok:
            raise PreflightError(f"{role} shards fail verification:\n{report.format()}")
    try:
        shards = TokenShards(directory)
    except (ManifestError, ShardFormatError, FileNotFoundError) as error:
        raise PreflightError(f"{role} shards {directory}: {error}") from None
    _check_tokenizer(directory, shards.manifest["tokenizer"], role)
    return shards


def _check_tokenizer(directory: Path, entry: dict, role: str) -> None:
    path = directory / TOKENIZER_FILE
    if not path.exists():
        raise PreflightError(f"{role} shards {directory}: {TOKENIZER_FILE} is missing (the manifest names it)")
    if file_sha256(path) != entry["sha256"]:
        raise PreflightError(f"{role} shards {directory}: {TOKENIZER_FILE} is not the tokenizer the manifest names")
    actual = Tokenizer.from_file(str(path)).get_vocab_size()
    if actual != entry["vocab_size"]:
        raise PreflightError(
            f"{role} shards {directory}: the manifest says a vocabulary of {entry['vocab_size']:,}, "
            f"{TOKENIZER_FILE} has {actual:,}"
        )


def check_same_tokenizer(train: TokenShards, other: TokenShards, role: str) -> None:
    ours, theirs = train.manifest["tokenizer"], other.manifest["tokenizer"]
    if ours["sha256"] != theirs["sha256"]:
        raise PreflightError(
            f"{role} shards {other.directory} were tokenized with another tokenizer than {train.directory} "
            f"(sha256 {theirs['sha256'][:12]} vs {ours['sha256'][:12]}): their losses would not be comparable"
        )


def check_enough_tokens(windows_available: int, windows_per_step: int, window: int, role: str = "training") -> None:
    if windows_available < windows_per_step:
        raise PreflightError(
            f"{role} data holds {windows_available:,} windows of {window:,} tokens, fewer than one global batch "
            f"({windows_per_step:,} windows): lower micro_batch_size, grad_accum_steps or seq_len, or add data"
        )


def manifest_sha256(directory: str | Path) -> str:
    return hashlib.sha256((Path(directory) / MANIFEST_FILE).read_bytes()).hexdigest()
