"""Recall and precision on the planted copies, scored the same way for our stage and for datatrove:
`eval dedup`'s score_method on a map id -> the document kept for it.

A planted copy is found when it and its source end up represented by the same kept document; a drop
is correct when the dropped and kept documents are one family (a source and its copies) or their
true word 5-gram Jaccard is >= 0.8 (real duplicates no label knows about, e.g. the 4 exact copies
among the real pages).
"""

from __future__ import annotations

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.evaluate import score_method

# The recall target counts planted copies whose true Jaccard to their source is >= 0.8.
HIGH_JACCARD_BINS = ("0.8-0.9", "0.9-1.0")


def datatrove_representatives(ids: list[str], removed: list[str], clusters: dict[str, int]) -> dict[str, str]:
    """datatrove keeps one member of each cluster (its union-find root) and removes the others."""
    removed_ids = set(removed)
    kept_of: dict[int, str] = {}
    for doc_id, cluster in clusters.items():
        if doc_id not in removed_ids:
            if cluster in kept_of:
                raise ValueError(f"datatrove kept two documents of cluster {cluster}: {kept_of[cluster]}, {doc_id}")
            kept_of[cluster] = doc_id
    unexplained = removed_ids - clusters.keys()
    if unexplained:
        raise ValueError(f"datatrove removed {len(unexplained)} documents outside any cluster, e.g. {min(unexplained)}")
    representative = {doc_id: doc_id for doc_id in ids}
    for doc_id, cluster in clusters.items():
        if cluster not in kept_of:
            raise ValueError(f"datatrove removed every document of cluster {cluster}")
        representative[doc_id] = kept_of[cluster]
    return representative


def accuracy(name: str, docs: list[dict], family: dict[str, str], rep: dict[str, str], config: PipelineConfig) -> dict:
    """score_method's figures plus the recall on copies with true Jaccard >= 0.8."""
    score = score_method(name, docs, family, rep, config).to_dict()
    bins = score["recall_by_true_jaccard"]
    found = sum(bins[b]["found"] for b in HIGH_JACCARD_BINS if b in bins)
    planted = sum(bins[b]["planted"] for b in HIGH_JACCARD_BINS if b in bins)
    score["recall_jaccard_ge_0.8"] = round(found / planted, 4) if planted else None
    score["planted_jaccard_ge_0.8"] = planted
    return score
