"""The funnel: documents, bytes and tokens into and out of every stage, and why documents left.

Documents and bytes are the stages' own `_stats.json` figures. Tokens are exact only where the
shards' stage counted them: tokenize (its documents), or mix (the text tokens of one pass over its
documents in, those of its shards, repeats included, out). For the earlier stages they are
estimated from the text bytes at the final corpus's bytes per token (tokenizing every rejected
document again to count would cost as much as the tokenize stage itself). Extract's input is raw
payload bytes (HTML), not text, and the crawl's are WARC records: no token estimate for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from corpus_pipeline.report.run_dir import StageRun


@dataclass
class FunnelRow:
    stage: str
    done: bool
    docs_in: int = 0
    kept: int = 0
    bytes_in: int = 0
    bytes_kept: int = 0
    seconds: float = 0.0
    tokens_in: float | None = None
    tokens_out: float | None = None
    tokens_exact: bool = False
    reasons: list[tuple[str, int]] = field(default_factory=list)  # most frequent first

    @property
    def dropped(self) -> int:
        return sum(n for _, n in self.reasons)


def text_bytes_per_token(stages: dict[str, StageRun]) -> float | None:
    """Text bytes per token of the corpus the shards were made of (end-of-document tokens not
    counted): tokenize's kept documents, or where mix made the shards, every document it read."""
    tokenize, mix = stages.get("tokenize"), stages.get("mix")
    if tokenize is not None and tokenize.done and tokenize.stats.extra.get("tokens", {}).get("text"):
        return tokenize.stats.bytes_kept / tokenize.stats.extra["tokens"]["text"]
    if mix is not None and mix.done and mix.stats.extra.get("input_tokens", {}).get("text"):
        return mix.stats.bytes_in / mix.stats.extra["input_tokens"]["text"]
    return None


def funnel_rows(stages: dict[str, StageRun], per_token: float | None = None) -> list[FunnelRow]:
    """A row per stage; token estimates at `per_token` bytes a token (default: these stages' tokenize)."""
    per_token = per_token or text_bytes_per_token(stages)
    rows = []
    for name, stage in stages.items():
        if not stage.done:
            rows.append(FunnelRow(name, done=False))
            continue
        stats = stage.stats
        row = FunnelRow(
            name,
            done=True,
            docs_in=stats.docs_in,
            kept=stats.kept,
            bytes_in=stats.bytes_in,
            bytes_kept=stats.bytes_kept,
            seconds=stats.seconds,
            reasons=sorted(stats.dropped.items(), key=lambda item: (-item[1], item[0])),
        )
        if name == "tokenize":
            tokens = stats.extra.get("tokens", {})
            row.tokens_out = float(tokens.get("text", 0))
            row.tokens_in = row.tokens_out  # tokenize drops only empty texts, which have no tokens
            row.tokens_exact = True
        elif name == "mix":
            tokens = stats.extra.get("tokens", {})
            row.tokens_in = float(stats.extra.get("input_tokens", {}).get("text", 0)) or None
            row.tokens_out = float(tokens.get("shard", 0) - tokens.get("end_of_document", 0))
            row.tokens_exact = True
        elif per_token and name != "crawl":  # the crawl's bytes are WARC records
            row.tokens_in = None if name == "extract" else stats.bytes_in / per_token
            row.tokens_out = stats.bytes_kept / per_token
        rows.append(row)
    return rows
