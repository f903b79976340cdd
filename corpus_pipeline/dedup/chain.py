"""How the methods' drops combine into one decision per document, and the clusters they leave, on
rows one process holds: as dicts on the driver path (driver_job.py), as int codes in the one task
that gathers every method's drops on Spark (chain_job.py); and the columns both paths add to every
document.

A dropped document is {id: (kept_id, reason, note)}: kept_id the document finally kept in its place
(null when none stands for it: paragraph removal emptied it), note the reject detail when it is not
the kept id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from corpus_pipeline.dedup.id_codes import NO_ID
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


def decision_columns(rows: pa.Table, verdicts: dict[str, dict], repeats: list[bool | None]) -> pa.Table:
    """`rows` with their decision (DecisionColumns) and cluster (CLUSTER_FIELDS) columns, on both
    paths: `verdicts` by id (VERDICT_SCHEMA rows; a document without one is kept, alone in its
    cluster), `repeats` per row: None for the row of an id that stays, else whether this later row
    of the id has its text. The same page twice is an exact duplicate of itself; another text under
    a kept id is an id collision whose detail names the id."""
    columns = DecisionColumns()
    empty = dict.fromkeys(VERDICT_SCHEMA.names)
    kept_ids, reasons, clusters, sizes = [], [], [], []
    for doc_id, same in zip(rows.column("id").to_pylist(), repeats, strict=True):
        if same is not None:
            kept_ids.append(doc_id if same else ID_COLLISION_DETAIL.format(id=doc_id))
            reasons.append("exact_duplicate" if same else ID_COLLISION)
            clusters.append(doc_id)
            sizes.append(None)
            continue
        verdict = verdicts.get(doc_id, empty)
        kept_ids.append(verdict["note"] if verdict["note"] is not None else verdict["kept_id"])
        reasons.append(verdict["reason"])
        clusters.append(doc_id if verdict["dup_cluster_id"] is None else verdict["dup_cluster_id"])
        sizes.append(1 if verdict["dup_cluster_size"] is None else verdict["dup_cluster_size"])
    named = {columns.kept_id: kept_ids, columns.reason: reasons, CLUSTER_FIELDS[0].name: clusters}
    for name, values in named.items():
        rows = rows.append_column(name, pa.array(values, pa.string()))
    return rows.append_column(CLUSTER_FIELDS[1].name, pa.array(sizes, CLUSTER_FIELDS[1].type))


# The same chain on int codes (id_codes.py), for the one task that gathers every method's drops
# on Spark: arrays of 4-8 bytes an id where the dicts above took ~1.1 kB a verdict row. The driver
# path keeps the dicts: it calls chained() between its methods and wants the verdicts as dicts.
# tests/dedup/test_gathered_columnar.py holds the two to the same rows.
NOT_DROPPED = -2  # chain_codes: an id no method dropped (NO_ID, -1: dropped, no kept document)


def chain_codes(doc: np.ndarray, kept: np.ndarray, method: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """chained() over every method's drops in method order, on codes in [0, count): drop row i
    drops doc[i] for kept[i] (NO_ID: none) in method[i]. -> per code, the code of the document
    finally kept in its place (NO_ID: none, NOT_DROPPED: not dropped) and the row that dropped it
    (-1: none). An id twice in one method's drops: its last row stands, as a dict's update does."""
    final = np.full(count, NOT_DROPPED, dtype=np.int32)
    deciding = np.full(count, -1, dtype=np.int64)
    for position in np.unique(method):
        rows = np.flatnonzero(method == position)
        latest = _last_per_id(doc, rows, count)
        moving = _last_per_id(doc, rows[kept[rows] != NO_ID], count)
        moved = np.full(count, NO_ID, dtype=np.int32)
        moved[doc[moving]] = kept[moving]
        earlier = np.flatnonzero(final >= 0)
        onward = moved[final[earlier]]
        final[earlier] = np.where(onward != NO_ID, onward, final[earlier])
        final[doc[latest]] = kept[latest]
        deciding[doc[latest]] = latest
    return final, deciding


def _last_per_id(doc: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    """`rows` (ascending), each id's last one only."""
    last = np.full(count, -1, dtype=np.int64)
    np.maximum.at(last, doc[rows], rows)
    return rows[last[doc[rows]] == rows]


def cluster_codes(final: np.ndarray, standing: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """cluster_verdicts() on chain_codes' `final`, `standing` marking the codes of this run's
    documents. -> (the codes with a verdict row, ascending: in id order; the smallest code of each
    one's cluster; the cluster's size)."""
    dropped = final != NOT_DROPPED
    representative = np.where(final >= 0, final, np.arange(len(final), dtype=np.int32))
    stands_for_some = np.zeros(len(final), dtype=bool)
    stands_for_some[representative[dropped]] = True
    members = np.flatnonzero(dropped | (stands_for_some & standing)).astype(np.int32)
    clusters = representative[members]
    smallest = np.full(len(final), len(final), dtype=np.int32)
    np.minimum.at(smallest, clusters, members)
    return members, smallest[clusters], np.bincount(clusters, minlength=len(final))[clusters]
