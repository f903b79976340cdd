"""Figures of a corpus of several sources: documents and tokens per source, domain and language of
the final corpus, and, when the run has a mix, each group's target against its achieved share.

Tokens are text tokens (no end-of-document token) as the shards hold them: from mix's
documents.parquet when mix wrote the shards (repeats counted each time they appear), else from
tokenize's per-document counts joined to the final corpus by id. Nothing reads the text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.config.sources import SOURCES_DIR
from corpus_pipeline.report.corpus_figures import UNKNOWN
from corpus_pipeline.report.funnel import FunnelRow, funnel_rows
from corpus_pipeline.report.run_dir import StageRun, kept_parts, read_columns, read_run
from corpus_pipeline.tokenize.shard_task import TOKEN_COUNTS_DIR

GROUP_COLUMNS = ("source", "domain", "language")
MIX_DOCUMENTS = "documents.parquet"  # mix/corpus.py's DOCUMENTS_FILE: one row per document in the shards


@dataclass
class GroupRow:
    group: str
    documents: int  # in the final corpus
    tokens: int | None  # in the shards; None: no shards yet


@dataclass
class GroupTable:
    column: str  # source, domain or language
    rows: list[GroupRow]  # most documents first
    tokens_from: str | None  # what the token column counts; None: no shards


@dataclass
class MixShare:
    group: str
    target: float
    achieved: float
    repeat_factor: float


def source_runs(run_dir: Path) -> dict[str, dict[str, StageRun]]:
    """Each source's stages (runs/<id>/sources/<name>/, pipeline.sources); {} for a one-source run."""
    folder = run_dir / SOURCES_DIR
    if not folder.is_dir():
        return {}
    return {path.name: read_run(path) for path in sorted(folder.iterdir()) if path.is_dir()}


def source_funnels(runs: dict[str, dict[str, StageRun]], per_token: float | None = None) -> dict[str, list[FunnelRow]]:
    """The stages each source ran, with their documents in, kept and dropped by reason (tokens
    estimated at the run's `per_token` bytes a token)."""
    return {name: [row for row in funnel_rows(stages, per_token) if row.done] for name, stages in runs.items()}


def _sums(table: pa.Table, column: str, values: str | None) -> dict[str, int]:
    """Rows (values None) or the sum of `values` per value of `column`, nulls as UNKNOWN."""
    if table.num_rows == 0 or column not in table.column_names:
        return {}
    keys = pc.fill_null(table.column(column), UNKNOWN)
    grouped = pa.table({"key": keys, "value": table.column(values) if values else pa.repeat(1, table.num_rows)})
    summed = grouped.group_by("key").aggregate([("value", "sum")])
    return dict(zip(summed.column("key").to_pylist(), summed.column("value_sum").to_pylist(), strict=True))


def _shard_documents(final: pa.Table, tokens: StageRun | None) -> tuple[pa.Table | None, str | None]:
    """(group columns and token_count of every document in the shards, what that counts)."""
    if tokens is None or not tokens.done:
        return None, None
    if (tokens.directory / MIX_DOCUMENTS).exists():
        columns = [*GROUP_COLUMNS, "token_count"]
        return read_columns([tokens.directory / MIX_DOCUMENTS], columns), "mix shards, repeats included"
    counts = read_columns(sorted((tokens.directory / TOKEN_COUNTS_DIR).glob("*.parquet")), ["id", "token_count"])
    if counts.num_rows == 0:
        return None, None
    return final.join(counts, "id", join_type="inner"), "tokenize shards"


def group_tables(final: StageRun, tokens: StageRun | None) -> list[GroupTable]:
    """Per source, domain and language: documents of the final corpus, tokens of the shards."""
    corpus = read_columns(kept_parts(final), ["id", *GROUP_COLUMNS])
    in_shards, tokens_from = _shard_documents(corpus, tokens)
    tables = []
    for column in GROUP_COLUMNS:
        documents = _sums(corpus, column, None)
        token_sums = _sums(in_shards, column, "token_count") if in_shards is not None else None
        groups = sorted(set(documents) | set(token_sums or {}), key=lambda g: (-documents.get(g, 0), g))
        rows = [GroupRow(g, documents.get(g, 0), None if token_sums is None else token_sums.get(g, 0)) for g in groups]
        tables.append(GroupTable(column, rows, tokens_from))
    return tables


def mix_shares(manifest: dict) -> list[MixShare]:
    """Each group of a mix manifest (mix/stage.py's `mix` section): target, achieved, repeats."""
    groups = manifest.get("mix", {}).get("groups", {})
    return [
        MixShare(group, facts["target"], facts["achieved"], facts["repeat_factor"])
        for group, facts in sorted(groups.items())
    ]
