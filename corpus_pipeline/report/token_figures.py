"""Figures of the token shards: tokens per shard (manifest), per language (the stage's stats), and
the unigram token distribution (counted over the shards' `.bin` files), keyed by token string so
that two snapshots with different tokenizers still compare."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from corpus_pipeline.report.bars import MAX_BARS, Bars, ranked
from corpus_pipeline.report.histogram import Histogram, histogram
from corpus_pipeline.report.run_dir import LOCAL, ReportInputError, StageRun
from corpus_pipeline.tokenize.manifest import ManifestError, read_manifest

# Tokens counted per numpy call: bincount converts to intp, 8 bytes a token, so 16M tokens take
# 128 MB whatever the shard size (shards are 256 MiB by default).
_CHUNK_TOKENS = 1 << 24


@dataclass
class TokenDistribution:
    counts: dict[str, int]  # token string (the vocabulary's spelling) -> occurrences
    shown: dict[str, str]  # token string -> how it reads decoded, for labels

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def manifest_of(tokens: StageRun) -> dict:
    try:
        return read_manifest(tokens.directory, LOCAL)
    except ManifestError as error:
        raise ReportInputError(str(error)) from None


def shard_plot(manifest: dict, bins: int) -> Bars | Histogram:
    """One bar per shard while they fit a chart; beyond that, how many shards hold how many tokens."""
    shards = manifest["shards"]
    if len(shards) <= MAX_BARS:
        return Bars("tokens per shard", [(s["name"], float(s["tokens"])) for s in shards], unit="tokens")
    counts = np.array([s["tokens"] for s in shards], dtype=np.float64)
    return histogram(f"shards by tokens ({len(shards):,} shards)", {"shards": counts}, bins)


def language_bars(tokens: StageRun) -> Bars:
    by_language = tokens.stats.extra.get("tokens_by_language", {})
    return Bars("tokens per language", ranked({k: float(v) for k, v in by_language.items()}), unit="tokens")


def _readable(text: str) -> str:
    return text.replace(" ", "\u2423").replace("\n", "\u23ce").replace("\t", "\u21e5")


def token_distribution(tokens: StageRun, manifest: dict) -> TokenDistribution:
    """Occurrences of every token in the shards, end-of-document tokens left out (one per document,
    they count documents, not text)."""
    from corpus_pipeline.tokenize.bpe import TokenizerError, load_tokenizer

    info = manifest["tokenizer"]
    try:
        tokenizer = load_tokenizer(str(tokens.directory / info["file"]), info["sha256"])
    except (FileNotFoundError, TokenizerError) as error:
        raise ReportInputError(str(error)) from None
    counts = np.zeros(info["vocab_size"], dtype=np.int64)
    for shard in manifest["shards"]:
        path = tokens.directory / f"{shard['name']}.bin"
        try:
            stream = np.memmap(path, dtype=np.dtype(manifest["dtype"]), mode="r")
        except (OSError, ValueError) as error:
            raise ReportInputError(f"cannot read {path}: {error}") from None
        if stream.size != shard["tokens"]:
            raise ReportInputError(f"{path}: {stream.size:,} tokens, the manifest says {shard['tokens']:,}")
        for start in range(0, stream.size, _CHUNK_TOKENS):
            chunk = np.asarray(stream[start : start + _CHUNK_TOKENS])
            if chunk.size and int(chunk.max()) >= counts.size:
                raise ReportInputError(f"{path}: token id {int(chunk.max())} >= vocab_size {counts.size}")
            counts += np.bincount(chunk, minlength=counts.size)
    counts[info["eod_id"]] = 0
    found: dict[str, int] = {}
    shown: dict[str, str] = {}
    for token_id in np.flatnonzero(counts).tolist():
        token = tokenizer.id_to_token(token_id) or f"<id {token_id}>"
        found[token] = found.get(token, 0) + int(counts[token_id])
        shown[token] = _readable(tokenizer.decode([token_id], skip_special_tokens=False))
    return TokenDistribution(found, shown)


def top_token_bars(distribution: TokenDistribution, top: int) -> Bars:
    items = ranked(distribution.counts)[:top]
    return Bars(f"the {top} most frequent tokens", [(distribution.shown[t], float(n)) for t, n in items], "tokens")
