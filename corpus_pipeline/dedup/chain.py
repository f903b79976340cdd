"""How the methods' drops combine into one decision per document, and the clusters they leave, on
rows one process holds (small_decisions.py's path; chain_job.py does the same as Spark jobs), and
the columns both paths add to every document.

A dropped document is {id: (kept_id, reason, note)}: kept_id the document finally kept in its place
(null when none stands for it: paragraph removal emptied it), note the reject detail when it is not
the kept id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa

from corpus_pipeline.dedup.paragraph_batches import CHARACTERS_REMOVED, PARAGRAPHS_REMOVED

# A row repeating a kept id with another text (two datasets numbering their records alike): its
# reason and reject detail, on both paths (spark_job.py, driver_job.py).
ID_COLLISION = "id_collision"
ID_COLLISION_DETAIL = "id {id} is kept with another text"

# The cluster columns every written document carries (the stage's output schema adds them).
CLUSTER_FIELDS = (pa.field("dup_cluster_id", pa.string()), pa.field("dup_cluster_size", pa.int64()))


@dataclass(frozen=True)
class DecisionColumns:
    """The columns the decisions add to every document (the writer drops them)."""

    reason: str = "_dedup_reason"  # null: kept
    kept_id: str = "_dedup_kept_id"  # the reject detail: the document kept in its place
    paragraphs: str = PARAGRAPHS_REMOVED
    characters: str = CHARACTERS_REMOVED


Dropped = dict[str, tuple[str | None, str, str | None]]

# A decided document: its drop (reason null: kept) and its cluster.
VERDICT_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("kept_id", pa.string()),
        ("reason", pa.string()),
        ("note", pa.string()),
        ("dup_cluster_id", pa.string()),
        ("dup_cluster_size", pa.int64()),
    ]
)


def chained(dropped: Dropped, found: Iterable[tuple[str, str | None, str, str | None]]) -> Dropped:
    """The drops so far, then a later method's (id, kept_id, reason, note): a document kept by an
    earlier method and dropped now takes its duplicates with it (to its own kept document, when
    it has one)."""
    found = list(found)
    moved = {doc_id: kept for doc_id, kept, _, _ in found if kept is not None}
    combined = {
        doc_id: (moved.get(kept, kept) if kept is not None else None, reason, note)
        for doc_id, (kept, reason, note) in dropped.items()
    }
    combined.update((doc_id, (kept, reason, note)) for doc_id, kept, reason, note in found)
    return combined


def cluster_verdicts(dropped: Dropped, doc_ids: set[str]) -> list[dict]:
    """One row (VERDICT_SCHEMA) per document in a cluster of more than itself or dropped: a cluster
    is a kept document (when it is one of `doc_ids`, not a published one) and the documents dropped
    in its place, named by its smallest id. A document absent here is kept, alone in its cluster."""
    representative = {doc_id: kept if kept is not None else doc_id for doc_id, (kept, _, _) in dropped.items()}
    for kept in set(representative.values()) & doc_ids:
        representative.setdefault(kept, kept)
    members: dict[str, list[str]] = defaultdict(list)
    for doc_id, kept in representative.items():
        members[kept].append(doc_id)
    rows = []
    for doc_id in sorted(representative):
        cluster = members[representative[doc_id]]
        kept, reason, note = dropped.get(doc_id, (None, None, None))
        values = (doc_id, kept, reason, note, min(cluster), len(cluster))
        rows.append(dict(zip(VERDICT_SCHEMA.names, values, strict=True)))
    return rows
