"""`corpus-pipeline shards inspect DIR`: what a token-shard directory holds, for a person.

Counts, per-shard sizes, a histogram of document lengths in tokens (powers of two, from the .idx
alone), and the first documents decoded with the directory's own tokenizer.json.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from corpus_pipeline.tokenize.bpe import load_tokenizer
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE
from corpus_pipeline.tokenize.reader import TokenShards

_BAR_WIDTH = 40


def length_histogram(shards: TokenShards) -> dict[int, int]:
    """Documents per length class: key k counts lengths in [2^k, 2^(k+1)) text tokens (EOD excluded)."""
    counts: dict[int, int] = {}
    for shard_lengths in shards.shard_lengths():
        lengths = shard_lengths.astype(np.int64) - 1
        classes = np.floor(np.log2(np.maximum(lengths, 1))).astype(np.int64)
        for power, count in zip(*np.unique(classes, return_counts=True), strict=True):
            counts[int(power)] = counts.get(int(power), 0) + int(count)
    return dict(sorted(counts.items()))


def format_histogram(counts: dict[int, int]) -> list[str]:
    if not counts:
        return ["  (no documents)"]
    peak = max(counts.values())
    lines = []
    for power, count in counts.items():
        low, high = 2**power, 2 ** (power + 1) - 1
        bar = "#" * max(1, round(_BAR_WIDTH * count / peak))
        lines.append(f"  {low:>9,} - {high:<9,} {count:>10,}  {bar}")
    return lines


def inspect_shards(directory: str | Path, documents: int = 3, max_chars: int = 400) -> str:
    directory = Path(directory)
    shards = TokenShards(directory)
    manifest = shards.manifest
    info = manifest["tokenizer"]
    lines = [
        f"{directory}",
        f"  tokenizer: {info['file']} sha256 {info['sha256'][:16]}..., vocab {info['vocab_size']:,}, "
        f"end of document {info['eod_token']!r} = {info['eod_id']}",
        f"  dtype {manifest['dtype']} (code {manifest['dtype_code']}), {len(manifest['shards'])} shards, "
        f"{len(shards):,} documents, {shards.num_tokens:,} tokens ({shards.num_tokens - len(shards):,} of text)",
        "",
        f"  {'shard':<20}{'documents':>12}{'tokens':>14}{'MB':>10}",
    ]
    for entry in manifest["shards"]:
        lines.append(
            f"  {entry['name']:<20}{entry['documents']:>12,}{entry['tokens']:>14,}{entry['bin_bytes'] / 1e6:>10.2f}"
        )
    lines += ["", "  document length (text tokens)    documents"]
    lines += format_histogram(length_histogram(shards))
    if documents and len(shards):
        tokenizer = load_tokenizer(str(directory / TOKENIZER_FILE), info["sha256"])
        lines.append("")
        for number in range(min(documents, len(shards))):
            ids = shards.document(number)
            text = tokenizer.decode(ids.tolist())
            shown = text if len(text) <= max_chars else text[:max_chars] + " [...]"
            lines.append(f"  document {number} ({len(ids):,} tokens): {shown!r}")
    return "\n".join(lines)
