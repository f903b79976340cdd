"""The dedup methods' decisions for a small input, in one pass in one process: the choices that
decisions.py and simhash_decisions.py make as Spark jobs, made on rows the driver holds.

Each Spark method is a chain of shuffles (a window per bucket, distinct pairs, joins for the
similarities, several per round of connected components), and adaptive execution runs every
shuffle as a job of its own: a small input pays for the jobs, not for the work (chain_job.py has
the figures). Here the same steps are dictionaries and a union-find. Same choices:
the same candidate pairs (a bucket's star and chain), the same verification (estimated Jaccard,
Hamming distance), components labelled by their smallest id, the keep rule's total order
(keep_rule.keep_key) and the same members dropped for the same kept ones (assign.py); the tests run
both paths on the same documents and compare the output bytes.

A row is a dict: id, canonical_url, exact_hash, signature, simhash, the keep-rule columns, and
`_in_index` for the published documents of the cross-snapshot index.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from corpus_pipeline.dedup.assign import Likeness, assign_members, minhash_likeness, simhash_likeness
from corpus_pipeline.dedup.config import DedupConfig, SimhashConfig
from corpus_pipeline.dedup.keep_rule import keep_key, keep_order
from corpus_pipeline.dedup.lsh import band_keys, bands_and_rows, bucket_pairs
from corpus_pipeline.dedup.minhash import estimated_jaccard
from corpus_pipeline.dedup.semantic import cluster_count, cluster_duplicates, cluster_labels
from corpus_pipeline.dedup.simhash import block_layout, hamming_distance
from corpus_pipeline.embeddings.vectors import EMBEDDING_COLUMN, MODEL_COLUMN, from_stored

# (id, kept_id, reason) of every document a method drops.
Found = list[tuple[str, str, str]]

IN_INDEX = "_in_index"  # a published document of the cross-snapshot index: it always stays


# What the semantic method reads of a document besides the keep rule's columns.
SEMANTIC_COLUMNS = (EMBEDDING_COLUMN, MODEL_COLUMN)
SEMANTIC_REASON = "semantic_duplicate"


def decision_order(dedup: DedupConfig, columns: list[str], with_index: bool) -> tuple[list[tuple[str, str]], list]:
    """(the keep rule's order, published documents first; the columns a signature row carries
    for it besides id)."""
    order = keep_order(dedup, columns)
    if with_index:
        order = [(IN_INDEX, "desc"), *order]
    carried = [column for column, _ in order if column not in ("id", IN_INDEX)]
    if "semantic" in dedup.methods:
        carried += [column for column in SEMANTIC_COLUMNS if column in columns]
    return order, carried


def components(edges: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Undirected edges -> {node: the smallest id of its connected component} for every node on an
    edge other than a loop (what components.connected_components computes on Spark)."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]  # path halving
            node = parent[node]
        return node

    for first, second in edges:
        if first == second:
            continue
        one, other = sorted((root(first), root(second)))
        parent[other] = one  # the smaller root stays a root: every root is its tree's smallest id
    return {node: root(node) for node in parent}


def component_drops(
    edges: Iterable[tuple[str, str]], rows: dict[str, dict], order, likeness: Likeness
) -> list[tuple[str, str]]:
    """(id, kept_id) of the members each component drops (assign.assign_members)."""
    clusters: dict[str, list[dict]] = defaultdict(list)
    for node, component in components(edges).items():
        if node in rows:
            clusters[component].append(rows[node])
    key, found = keep_key(order), []
    for members in clusters.values():
        ordered = [member["id"] for member in sorted(members, key=key)]
        values = {member["id"]: likeness.value(member[likeness.column]) for member in members}
        found.extend(assign_members(ordered, values, likeness))
    return found


def _first_per_group(rows: Iterable[dict], group: str, order, reason: str) -> Found:
    groups: dict[object, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row[group]].append(row)
    key, found = keep_key(order), []
    for members in groups.values():
        kept = min(members, key=key)["id"]
        found.extend((member["id"], kept, reason) for member in members if member["id"] != kept)
    return found


def url_duplicates(rows: list[dict]) -> Found:
    """As decisions.url_duplicates: one canonical URL keeps its latest fetch, then the smallest id."""
    with_url = (row for row in rows if row["canonical_url"] is not None)
    return _first_per_group(with_url, "canonical_url", [("date", "desc"), ("id", "asc")], "url_duplicate")


def exact_duplicates(rows: list[dict], order) -> Found:
    """As decisions.exact_duplicates: one normalized text keeps the keep rule's first document."""
    return _first_per_group(rows, "exact_hash", order, "exact_duplicate")


# Signatures stacked at a time for their band keys: 32 MB at 128 permutations, 64 MB as the mix's uint64.
_KEYED_AT_ONCE = 65_536


def candidate_pairs(signatures: dict[str, np.ndarray], bands: int, rows: int) -> set[tuple[str, str]]:
    """As decisions.candidate_pairs, by the same lsh.bucket_pairs, one band at a time (by
    arithmetic ~50 bytes a document held at once, 20 of them its band row and the rest their sort's,
    so 18 times less than all bands at once): a band row carries its id's place in id order, which
    sorts as the id does."""
    import pyarrow as pa

    ids = sorted(signatures)
    keys = np.zeros((len(ids), bands), np.int64)
    for start in range(0, len(ids), _KEYED_AT_ONCE):
        chunk = ids[start : start + _KEYED_AT_ONCE]
        keys[start : start + len(chunk)] = band_keys(np.stack([signatures[doc_id] for doc_id in chunk]), bands, rows)
    places = np.arange(len(ids), dtype=np.int64)
    pairs = set()
    for band, column in enumerate(keys.T):
        found = bucket_pairs(pa.table({"band": np.full(len(ids), band, np.int32), "key": column, "id": places}))
        sources, targets = found.column("src").to_numpy(), found.column("dst").to_numpy()
        pairs.update((ids[src], ids[dst]) for src, dst in zip(sources, targets, strict=True))
    return pairs


def minhash_duplicates(rows: list[dict], config: DedupConfig, order) -> Found:
    """As decisions.minhash_duplicates: verified candidate pairs -> components -> the members
    each drops (assign.py)."""
    bands, band_rows = bands_and_rows(
        config.threshold, config.num_perm, config.false_positive_weight, config.false_negative_weight
    )
    signed = (row for row in rows if row["signature"] is not None)
    signatures = {row["id"]: np.frombuffer(row["signature"], dtype="<u4") for row in signed}

    def similar(pair: tuple[str, str]) -> bool:
        return estimated_jaccard(signatures[pair[0]], signatures[pair[1]]) >= config.threshold

    edges = filter(similar, candidate_pairs(signatures, bands, band_rows))
    ranked = component_drops(edges, {row["id"]: row for row in rows}, order, minhash_likeness(config.threshold))
    return [(doc_id, kept, "minhash_duplicate") for doc_id, kept in ranked]


def simhash_pairs(fingerprints: dict[str, int], config: SimhashConfig) -> set[tuple[str, str]]:
    """As simhash_decisions.verified_pairs: in each block bucket sorted by (fingerprint, id), each
    member with its next `window` members, kept within max_distance bits; (smaller id, larger)."""
    buckets: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
    layout = block_layout(config.max_distance + 1)
    for doc_id, value in fingerprints.items():
        unsigned = value & ((1 << 64) - 1)
        for block, (start, width) in enumerate(layout):
            buckets[block, (unsigned >> start) & ((1 << width) - 1)].append((value, doc_id))
    pairs = set()
    for members in buckets.values():
        members.sort()
        for position, (value, doc_id) in enumerate(members):
            for other_value, other in members[position + 1 : position + 1 + config.window]:
                if hamming_distance(value, other_value) <= config.max_distance:
                    pairs.add((min(doc_id, other), max(doc_id, other)))
    return pairs


def simhash_duplicates(rows: list[dict], config: SimhashConfig, order) -> Found:
    """As simhash_decisions.simhash_duplicates."""
    fingerprints = {row["id"]: row["simhash"] for row in rows if row["simhash"] is not None}
    pairs = simhash_pairs(fingerprints, config)
    ranked = component_drops(pairs, {row["id"]: row for row in rows}, order, simhash_likeness(config.max_distance))
    return [(doc_id, kept, "simhash_duplicate") for doc_id, kept in ranked]


def semantic_duplicates(rows: list[dict], config: DedupConfig, order) -> Found:
    """SemDeDup on the rows' embeddings (semantic.py): k-means clusters, then within each, in the
    keep rule's order, a document goes for the nearest earlier kept one at cosine >= threshold.
    Rows without a vector (no text, the index's documents) take no part."""
    settings = config.semantic
    embedded = sorted((row for row in rows if row.get(EMBEDDING_COLUMN) is not None), key=keep_key(order))
    models = sorted({row[MODEL_COLUMN] for row in embedded}, key=str)
    if len(models) > 1:
        named = ", ".join(map(str, models))
        raise ValueError(f"semantic dedup: embeddings of several models ({named}) cannot be compared")
    if len(embedded) > settings.max_documents:
        raise ValueError(
            f"semantic dedup gathers the vectors on the driver: over dedup.semantic.max_documents "
            f"({settings.max_documents:,}) documents"
        )
    if len(embedded) < 2:
        return []
    vectors = from_stored([row[EMBEDDING_COLUMN] for row in embedded])
    clusters = cluster_count(len(embedded), settings.cluster_size)
    labels = cluster_labels(vectors, clusters, config.seed, settings.fit_sample)
    return [
        (embedded[row]["id"], embedded[kept]["id"], SEMANTIC_REASON)
        for row, kept in cluster_duplicates(vectors, labels, settings.threshold)
    ]


def method_duplicates(method: str, rows: list[dict], config: DedupConfig, order) -> Found:
    """What one document method (url, exact, minhash, simhash, semantic) drops among `rows`."""
    if method == "url":
        return url_duplicates(rows)
    if method == "exact":
        return exact_duplicates(rows, order)
    if method == "simhash":
        return simhash_duplicates(rows, config.simhash, order)
    if method == "minhash":
        return minhash_duplicates(rows, config, order)
    if method == "semantic":
        return semantic_duplicates(rows, config, order)
    raise ValueError(f"not a document method: {method}")
