"""The dedup methods' decisions for a small input, in one pass in one process: the choices that
decisions.py and simhash_decisions.py make as Spark jobs, made on rows the driver holds.

Each Spark method is a chain of shuffles (a window per bucket, distinct pairs, joins for the
similarities, several per round of connected components), and adaptive execution runs every
shuffle as a job of its own: a small input pays for the jobs, not for the work (chain_job.py has
the figures). Here the same steps are Arrow and numpy work, dictionaries and a union-find. Same
choices: the same candidate pairs (a bucket's star and chain), the same verification (estimated
Jaccard, Hamming distance), components labelled by their smallest id, the keep rule's total order
(keep_rule.keep_key) and the same members dropped for the same kept ones (assign.py); the tests run
both paths on the same documents and compare the output bytes.

The rows are one Arrow table: id, canonical_url, exact_hash, signature, simhash, the keep-rule
columns, and `_in_index` for the published documents of the cross-snapshot index. A method reads
the rows still standing (`standing`, a mask: earlier methods' drops left out without copying the
table) and makes Python dicts of only the rows it can drop or keep in their place: those sharing a
URL or a hash, the members of a verified pair. On the scale bench's documents the table is 647
bytes a row, 516 of them the signature; at 858,219 documents the process held 1,052 MB after the
scan, where with a dict for every row it held 1,521 MB, and its peak was 1,229 MB against 1,798.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.dedup.assign import Likeness, assign_members, minhash_likeness, simhash_likeness
from corpus_pipeline.dedup.config import DedupConfig, SimhashConfig
from corpus_pipeline.dedup.driver_rows import as_mask, take
from corpus_pipeline.dedup.keep_rule import keep_key, keep_order
from corpus_pipeline.dedup.lsh import band_keys, bands_and_rows, bucket_pairs, signature_matrix
from corpus_pipeline.dedup.semantic import cluster_count, cluster_duplicates, cluster_labels
from corpus_pipeline.dedup.simhash import block_layout
from corpus_pipeline.embeddings.vectors import EMBEDDING_COLUMN, MODEL_COLUMN, from_stored

# (id, kept_id, reason) of every document a method drops.
Found = list[tuple[str, str, str]]
Standing = np.ndarray | None  # a mask of the table's rows still standing; None: every row

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
    edges: Iterable[tuple], rows: dict[object, dict], order, likeness: Likeness
) -> list[tuple[str, str]]:
    """(id, kept_id) of the members each component drops (assign.assign_members): `edges` between
    nodes (ids, or places that sort as the ids do), `rows` the members' rows by node."""
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


def _standing(rows: pa.Table, standing: Standing) -> np.ndarray:
    return np.ones(rows.num_rows, dtype=bool) if standing is None else standing


def _sharing(rows: pa.Table, column: str, standing: Standing, nulls_group: bool) -> list[dict]:
    """The standing rows whose `column` value another standing row has, as dicts: the only rows a
    group by `column` can drop or keep in their place. Nulls are a value of their own when
    `nulls_group`, else no row's."""
    values = rows.column(column)
    mask = _standing(rows, standing)
    if not nulls_group:
        mask = mask & as_mask(pc.is_valid(values))
    counted = pa.table({"value": values.filter(mask)}).group_by("value").aggregate([([], "count_all")])
    shared = counted.filter(pc.greater(counted.column("count_all"), 1)).column("value").combine_chunks()
    return rows.filter(mask & as_mask(pc.is_in(values, value_set=shared, skip_nulls=False))).to_pylist()


def _first_per_group(rows: Iterable[dict], group: str, order, reason: str) -> Found:
    groups: dict[object, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row[group]].append(row)
    key, found = keep_key(order), []
    for members in groups.values():
        kept = min(members, key=key)["id"]
        found.extend((member["id"], kept, reason) for member in members if member["id"] != kept)
    return found


def url_duplicates(rows: pa.Table, standing: Standing = None) -> Found:
    """As decisions.url_duplicates: one canonical URL keeps its latest fetch, then the smallest id."""
    shared = _sharing(rows, "canonical_url", standing, nulls_group=False)
    return _first_per_group(shared, "canonical_url", [("date", "desc"), ("id", "asc")], "url_duplicate")


def exact_duplicates(rows: pa.Table, order, standing: Standing = None) -> Found:
    """As decisions.exact_duplicates: one normalized text keeps the keep rule's first document."""
    return _first_per_group(
        _sharing(rows, "exact_hash", standing, nulls_group=True), "exact_hash", order, "exact_duplicate"
    )


# Signatures taken at a time for their band keys or a pair's verification: 8 MB at 128
# permutations, 16 MB as the band mix's uint64 (65,536 at a time raised the peak at 86k documents
# by ~100 MB).
_SIGNATURES_AT_ONCE = 16_384


def _signature_rows(signatures: pa.ChunkedArray, rows: np.ndarray) -> np.ndarray:
    """The (len(rows), num_perm) signatures of table rows `rows`."""
    return signature_matrix(take(signatures, rows))


def candidate_pairs(signatures: pa.ChunkedArray, rows: np.ndarray, bands: int, band_rows: int) -> np.ndarray:
    """As decisions.candidate_pairs, by the same lsh.bucket_pairs, one band at a time (by
    arithmetic ~50 bytes a document held at once, 20 of them its band row and the rest their sort's,
    so 18 times less than all bands at once). `rows`: the signed documents' table rows in id order;
    a band row carries a document's place there, which sorts as its id does. -> the distinct pairs
    of places, (count, 2), in ascending order."""
    keys = np.zeros((len(rows), bands), np.int64)
    for start in range(0, len(rows), _SIGNATURES_AT_ONCE):
        chunk = rows[start : start + _SIGNATURES_AT_ONCE]
        keys[start : start + len(chunk)] = band_keys(_signature_rows(signatures, chunk), bands, band_rows)
    places = np.arange(len(rows), dtype=np.int64)
    found = []
    for band, column in enumerate(keys.T):
        pairs = bucket_pairs(pa.table({"band": np.full(len(rows), band, np.int32), "key": column, "id": places}))
        found.append(pairs.column("src").to_numpy() * len(rows) + pairs.column("dst").to_numpy())
    return _distinct_pairs(found, len(rows))


def _distinct_pairs(codes: list[np.ndarray], count: int) -> np.ndarray:
    """Pairs of places coded as first * count + second -> the distinct (first, second), ascending."""
    distinct = np.unique(np.concatenate([np.zeros(0, np.int64), *codes]))
    return np.stack((distinct // max(count, 1), distinct % max(count, 1)), axis=1)


def _similar(signatures: pa.ChunkedArray, rows: np.ndarray, pairs: np.ndarray, threshold: float) -> np.ndarray:
    """Which `pairs` of places (in `rows`) have an estimated Jaccard of at least `threshold`."""
    similar = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), _SIGNATURES_AT_ONCE):
        chunk = pairs[start : start + _SIGNATURES_AT_ONCE]
        first, second = (_signature_rows(signatures, rows[chunk[:, side]]) for side in (0, 1))
        # estimated_jaccard's arithmetic, a pair a row: equal values counted, over num_perm.
        similar[start : start + len(chunk)] = np.count_nonzero(first == second, axis=1) / first.shape[1] >= threshold
    return similar


def _in_id_order(rows: pa.Table, column: str, standing: Standing) -> np.ndarray:
    """The standing table rows with a `column` value, in id order: a row's place here is its node in
    the pairs that minhash and simhash find, and places sort as the ids do."""
    present = np.flatnonzero(_standing(rows, standing) & as_mask(pc.is_valid(rows.column(column))))
    return present[pc.sort_indices(take(rows.column("id"), present)).to_numpy()]


def _place_drops(rows: pa.Table, in_order: np.ndarray, edges: np.ndarray, order, likeness: Likeness):
    """component_drops over `edges` between places of `in_order`, with dicts of their rows only."""
    nodes = np.unique(edges)
    members = dict(zip(nodes.tolist(), take(rows, in_order[nodes]).to_pylist(), strict=True))
    return component_drops(map(tuple, edges.tolist()), members, order, likeness)


def minhash_duplicates(rows: pa.Table, config: DedupConfig, order, standing: Standing = None) -> Found:
    """As decisions.minhash_duplicates: verified candidate pairs -> components -> the members
    each drops (assign.py)."""
    bands, band_rows = bands_and_rows(
        config.threshold, config.num_perm, config.false_positive_weight, config.false_negative_weight
    )
    signatures = rows.column("signature")
    signed = _in_id_order(rows, "signature", standing)
    pairs = candidate_pairs(signatures, signed, bands, band_rows)
    edges = pairs[_similar(signatures, signed, pairs, config.threshold)]
    ranked = _place_drops(rows, signed, edges, order, minhash_likeness(config.threshold))
    return [(doc_id, kept, "minhash_duplicate") for doc_id, kept in ranked]


def simhash_pairs(fingerprints: np.ndarray, config: SimhashConfig) -> np.ndarray:
    """As simhash_decisions.verified_pairs: in each block bucket sorted by (fingerprint, id), each
    member with its next `window` members, kept within max_distance bits. `fingerprints`: int64,
    one a document in id order (its place, which sorts as its id does). -> the distinct pairs of
    places (smaller, larger), (count, 2), ascending. In numpy, a block at a time, where a dict of
    Python lists held a tuple a document and block for every block at once."""
    places = np.arange(len(fingerprints), dtype=np.int64)
    unsigned = fingerprints.view(np.uint64)
    found = []
    for start, width in block_layout(config.max_distance + 1):
        keys = (unsigned >> np.uint64(start)) & np.uint64((1 << width) - 1)
        order = np.lexsort((places, fingerprints, keys))
        keys, values, members = keys[order], fingerprints[order], places[order]
        for step in range(1, config.window + 1):
            # Sorted by key, a member `step` rows on in the same bucket is one of its next `step`.
            # Unsigned: numpy counts the bits of a signed value's absolute value (-1: 1, not 64).
            near = keys[step:] == keys[:-step]
            near &= np.bitwise_count((values[step:] ^ values[:-step]).view(np.uint64)) <= config.max_distance
            first, second = members[:-step][near], members[step:][near]
            found.append(np.minimum(first, second) * len(places) + np.maximum(first, second))
    return _distinct_pairs(found, len(places))


def simhash_duplicates(rows: pa.Table, config: SimhashConfig, order, standing: Standing = None) -> Found:
    """As simhash_decisions.simhash_duplicates."""
    fingerprinted = _in_id_order(rows, "simhash", standing)
    pairs = simhash_pairs(take(rows.column("simhash"), fingerprinted).to_numpy(), config)
    ranked = _place_drops(rows, fingerprinted, pairs, order, simhash_likeness(config.max_distance))
    return [(doc_id, kept, "simhash_duplicate") for doc_id, kept in ranked]


def semantic_duplicates(rows: pa.Table, config: DedupConfig, order, standing: Standing = None) -> Found:
    """SemDeDup on the rows' embeddings (semantic.py): k-means clusters, then within each, in the
    keep rule's order, a document goes for the nearest earlier kept one at cosine >= threshold.
    Rows without a vector (no text, the index's documents) take no part."""
    settings = config.semantic
    if EMBEDDING_COLUMN not in rows.column_names:
        return []
    embedded = rows.filter(_standing(rows, standing) & as_mask(pc.is_valid(rows.column(EMBEDDING_COLUMN))))
    models = sorted(set(embedded.column(MODEL_COLUMN).to_pylist()), key=str)
    if len(models) > 1:
        named = ", ".join(map(str, models))
        raise ValueError(f"semantic dedup: embeddings of several models ({named}) cannot be compared")
    if embedded.num_rows > settings.max_documents:
        raise ValueError(
            f"semantic dedup gathers the vectors on the driver: over dedup.semantic.max_documents "
            f"({settings.max_documents:,}) documents"
        )
    if embedded.num_rows < 2:
        return []
    ranked = sorted(embedded.to_pylist(), key=keep_key(order))
    vectors = from_stored([row[EMBEDDING_COLUMN] for row in ranked])
    clusters = cluster_count(len(ranked), settings.cluster_size)
    labels = cluster_labels(vectors, clusters, config.seed, settings.fit_sample)
    return [
        (ranked[row]["id"], ranked[kept]["id"], SEMANTIC_REASON)
        for row, kept in cluster_duplicates(vectors, labels, settings.threshold)
    ]


def method_duplicates(method: str, rows: pa.Table, config: DedupConfig, order, standing: Standing = None) -> Found:
    """What one document method (url, exact, minhash, simhash, semantic) drops among the `standing`
    rows of `rows` (None: all of them)."""
    if method == "url":
        return url_duplicates(rows, standing)
    if method == "exact":
        return exact_duplicates(rows, order, standing)
    if method == "simhash":
        return simhash_duplicates(rows, config.simhash, order, standing)
    if method == "minhash":
        return minhash_duplicates(rows, config, order, standing)
    if method == "semantic":
        return semantic_duplicates(rows, config, order, standing)
    raise ValueError(f"not a document method: {method}")
