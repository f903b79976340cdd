"""Diversity of the final corpus (report.diversity, opt-in): per language/domain group, a seeded
sample of documents embedded (embeddings/encoder.py) and clustered by topic (spherical k-means),
each cluster's share of the sample, and a coverage figure: the normalized entropy of the shares
(1: the sample spreads evenly over the k clusters; 0: one cluster holds it all).

Drift: the previous snapshot's sample of each group is embedded too and assigned to this
snapshot's clusters (the centroids nearest its vectors), so both nights are counted in the same
clusters; the largest change of one cluster's share is compared with report.drift.cluster_share.

The sample is the `sample_per_group` documents of lowest seeded hash of their id: a document in the
corpus on both nights is in both samples, so a changed share is a changed corpus, not a new draw.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np
import xxhash

from corpus_pipeline.config import DiversityConfig
from corpus_pipeline.embeddings.kmeans import cluster_shares, kmeans, nearest, normalized_entropy
from corpus_pipeline.report.drift import DriftCheck, ShareChange
from corpus_pipeline.report.run_dir import StageRun, kept_parts, parquet_file
from corpus_pipeline.storage.parquet import columns_present

SAMPLE_COLUMNS = ["id", "text", "language", "domain"]
CHECK_NAME = "topic cluster share"
UNKNOWN = "unknown"
_LABEL_CHARS = 70


@dataclass
class TopicCluster:
    label: str  # the start of the sampled document nearest the centroid (PII redacted)
    share: float


@dataclass
class GroupDiversity:
    group: str  # language/domain
    documents: int  # in the final corpus
    sampled: int
    clusters: list[TopicCluster]  # in cluster order (drift names them by number)
    coverage: float
    centroids: np.ndarray = field(repr=False)


@dataclass
class DiversityFigures:
    groups: list[GroupDiversity]
    too_small: dict[str, int]  # groups of fewer than min_documents documents: not clustered
    model: str
    seconds: float  # embedding and clustering, this snapshot


def group_of(row: dict) -> str:
    return f"{row.get('language') or UNKNOWN}/{row.get('domain') or UNKNOWN}"


def sample_groups(stage: StageRun, config: DiversityConfig) -> tuple[dict[str, list[str]], dict[str, int]]:
    """(group -> the sampled texts' first text_chars characters, group -> its documents), reading
    the corpus in batches and keeping `sample_per_group` texts per group at a time."""
    heaps: dict[str, list[tuple[int, str, str]]] = {}
    counts: dict[str, int] = {}
    for part in kept_parts(stage):
        file = parquet_file(part)
        columns = columns_present(file, list(SAMPLE_COLUMNS))
        for batch in file.iter_batches(batch_size=2048, columns=columns):
            for row in batch.to_pylist():
                group = group_of(row)
                counts[group] = counts.get(group, 0) + 1
                rank = -xxhash.xxh64_intdigest((row.get("id") or "").encode("utf-8", "surrogatepass"), config.seed)
                heap = heaps.setdefault(group, [])
                entry = (rank, row.get("id") or "", (row.get("text") or "")[: config.text_chars])
                if len(heap) < config.sample_per_group:
                    heapq.heappush(heap, entry)
                elif entry > heap[0]:  # a lower hash than the highest kept (ranks are negated)
                    heapq.heapreplace(heap, entry)
    samples = {group: [text for _, _, text in sorted(heap, reverse=True)] for group, heap in heaps.items()}
    return samples, counts


def group_diversity(
    group: str, documents: int, texts: list[str], vectors: np.ndarray, k: int, seed: int, label
) -> GroupDiversity:
    clusters = kmeans(vectors, k, seed)
    shares = clusters.shares()
    similarity = vectors @ clusters.centroids.T
    topics = []
    for number, share in enumerate(shares):
        members = np.flatnonzero(clusters.assignment == number)
        nearest_text = texts[members[np.argmax(similarity[members, number])]] if len(members) else ""
        topics.append(TopicCluster(label(" ".join(nearest_text.split())), float(share)))
    return GroupDiversity(group, documents, len(texts), topics, normalized_entropy(shares), clusters.centroids)


def diversity_figures(stage: StageRun, config: DiversityConfig, encoder, redactor) -> DiversityFigures:
    started = time.monotonic()
    samples, counts = sample_groups(stage, config)
    groups, too_small = [], {}
    for group in sorted(samples):
        if counts[group] < config.min_documents:
            too_small[group] = counts[group]
            continue
        vectors = encoder.encode(samples[group])
        groups.append(
            group_diversity(
                group, counts[group], samples[group], vectors, config.clusters, config.seed,
                lambda text: redactor.clean(text, _LABEL_CHARS),
            )
        )  # fmt: skip
    return DiversityFigures(groups, too_small, encoder.name, time.monotonic() - started)


def share_drift(current: GroupDiversity, previous_vectors: np.ndarray) -> list[ShareChange]:
    """Each cluster's share in the previous sample (assigned to these clusters) and in this one."""
    before = cluster_shares(nearest(previous_vectors, current.centroids), len(current.clusters))
    return [
        ShareChange(f"{current.group} #{n} {topic.label}", float(before[n]), topic.share)
        for n, topic in enumerate(current.clusters)
    ]


def cluster_drift(
    figures: DiversityFigures, previous: StageRun, config: DiversityConfig, encoder, bound: float, shown: int
) -> DriftCheck:
    samples, counts = sample_groups(previous, config)
    changes, unmatched = [], []
    for group in figures.groups:
        if counts.get(group.group, 0) < config.min_documents:
            unmatched.append(group.group)
            continue
        changes += share_drift(group, encoder.encode(samples[group.group]))
    changes = sorted((c for c in changes if c.change), key=lambda c: (-abs(c.change), c.key))
    absent = f"; not in the previous snapshot: {', '.join(unmatched)}" if unmatched else ""
    if not figures.groups or len(unmatched) == len(figures.groups):
        return DriftCheck(CHECK_NAME, None, bound, "not measured: no group clustered in both snapshots" + absent)
    if not changes:
        return DriftCheck(CHECK_NAME, 0.0, bound, "the same shares" + absent)
    top = changes[0]
    detail = f"{top.key}: {top.previous:.1%} -> {top.current:.1%}{absent}"
    return DriftCheck(CHECK_NAME, abs(top.change), bound, detail, changes[:shown])
