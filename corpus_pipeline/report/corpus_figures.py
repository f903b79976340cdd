"""Figures over the documents themselves: language and domain mix of the final corpus, dedup
cluster sizes, PII matches by type. Each reads one or two small columns, never the text."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.pii.types import PII_TYPES
from corpus_pipeline.report.bars import Bars
from corpus_pipeline.report.run_dir import DOCUMENT_STAGES, StageRun, kept_parts, read_columns

UNKNOWN = "(none)"
# The host of an absolute URL: after the scheme and any user info, up to a port, path, query or fragment.
_HOST = r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(?P<host>[^:/?#]*)"


def final_corpus(stages: dict[str, StageRun]) -> StageRun | None:
    """The last document stage that finished: what the run would publish (or has so far)."""
    done = [stages[name] for name in DOCUMENT_STAGES if stages[name].done]
    return done[-1] if done else None


def value_counts(column: pa.ChunkedArray) -> dict[str, int]:
    counts = pc.value_counts(pc.fill_null(column, UNKNOWN))
    return {item["values"].as_py(): item["counts"].as_py() for item in counts}


def language_counts(stage: StageRun) -> dict[str, int]:
    table = read_columns(kept_parts(stage), ["language"])
    if "language" not in table.column_names:
        return {}
    return value_counts(table.column("language"))


def domain_counts(stage: StageRun) -> dict[str, int]:
    """Documents per `domain` (the column extract, ingest and domains.rules fill: web, encyclopedia...)."""
    table = read_columns(kept_parts(stage), ["domain"])
    if "domain" not in table.column_names:
        return {}
    return value_counts(table.column("domain"))


def host_counts(stage: StageRun) -> dict[str, int]:
    """Documents per URL host, lower-cased, without a leading `www.`."""
    table = read_columns(kept_parts(stage), ["url"])
    if "url" not in table.column_names or table.num_rows == 0:
        return {}
    hosts = pc.struct_field(pc.extract_regex(table.column("url"), _HOST), "host")
    hosts = pc.replace_substring_regex(pc.utf8_lower(hosts), r"^www\.", "")
    hosts = pc.if_else(pc.equal(hosts, ""), None, hosts)
    return value_counts(hosts)


def duplicate_rate(dedup: StageRun) -> float | None:
    if not dedup.done or not dedup.stats.docs_in:
        return None
    return sum(dedup.stats.dropped.values()) / dedup.stats.docs_in


def cluster_size_bars(dedup: StageRun) -> Bars:
    """Kept documents by the size of the cluster each stands for, in doubling buckets (1, 2, 3-4, 5-8, ...)."""
    table = read_columns(kept_parts(dedup), ["dup_cluster_size"])
    sizes = pc.value_counts(pc.drop_null(table.column("dup_cluster_size"))) if table.num_rows else []
    buckets: dict[tuple[int, int], int] = {}
    for item in sizes:
        size, clusters = item["values"].as_py(), item["counts"].as_py()
        low = 1
        while low * 2 <= size - 1:  # bucket [low + 1, 2 * low] holds size; 1 and 2 stand alone
            low *= 2
        bucket = (size, size) if size <= 2 else (low + 1, low * 2)
        buckets[bucket] = buckets.get(bucket, 0) + clusters
    items = [(str(a) if a == b else f"{a}-{b}", float(n)) for (a, b), n in sorted(buckets.items())]
    return Bars("clusters by size (documents they stand for)", items, unit="clusters")


def pii_bars(pii: StageRun, enabled: list[str]) -> tuple[Bars, Bars]:
    """Matches and documents with a match, per enabled type (zero shown: looked for, not found)."""
    kinds = [kind for kind in PII_TYPES if kind in enabled]
    matches = pii.stats.extra.get("pii_matches", {})
    documents = pii.stats.extra.get("pii_documents", {})
    return (
        Bars("PII matches by type", [(kind, float(matches.get(kind, 0))) for kind in kinds], unit="matches"),
        Bars("documents with a match, by type", [(kind, float(documents.get(kind, 0))) for kind in kinds]),
    )


def dedup_section(figures, dedup: StageRun, config) -> None:
    """The report's dedup section (registry `report`): cluster sizes and the duplicate rate."""
    figures.clusters = cluster_size_bars(dedup)
    figures.duplicate_rate = figures.profile.duplicate_rate


def pii_section(figures, pii: StageRun, config) -> None:
    """The report's PII section (registry `report`): matches and documents by type."""
    figures.pii = pii_bars(pii, list(config.pii.types))
