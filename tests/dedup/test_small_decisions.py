"""The small-input path's helpers: the choices the Spark jobs make, on rows one process holds."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from pyspark.sql import functions as F

from corpus_pipeline.dedup.chain import VERDICT_SCHEMA, chained, cluster_verdicts
from corpus_pipeline.dedup.chain_job import cluster_verdict_frame
from corpus_pipeline.dedup.config import SimhashConfig
from corpus_pipeline.dedup.id_buckets import id_bucket
from corpus_pipeline.dedup.keep_rule import keep_key
from corpus_pipeline.dedup.simhash import block_layout, hamming_distance
from corpus_pipeline.dedup.small_decisions import candidate_pairs, components, simhash_pairs
from corpus_pipeline.engine.whole_corpus import PART_COLUMN

SCORES = [None, math.nan, 1.0, -0.0, 0.0, -1.0, None, math.nan]
ORDERS = ([("score", "desc"), ("date", "asc"), ("id", "asc")], [("date", "desc"), ("score", "asc"), ("id", "asc")])


def _scored() -> list[dict]:
    return [{"id": f"d{i}", "score": score, "date": "2021" if i % 3 else None} for i, score in enumerate(SCORES)]


def test_keep_key_puts_nulls_last_nan_above_every_number_and_both_zeros_level():
    order = [("score", "desc"), ("id", "asc")]
    ranked = [row["id"] for row in sorted(_scored(), key=keep_key(order))]
    assert ranked == ["d1", "d7", "d2", "d3", "d4", "d5", "d0", "d6"]
    ascending = [row["id"] for row in sorted(_scored(), key=keep_key([("score", "asc"), ("id", "desc")]))]
    assert ascending == ["d5", "d4", "d3", "d2", "d7", "d1", "d6", "d0"]


@pytest.mark.spark
@pytest.mark.parametrize("order", ORDERS)
def test_keep_key_orders_rows_as_spark_does(spark, order):
    frame = spark.createDataFrame(_scored(), "id string, score double, date string")
    columns = [F.col(c).desc_nulls_last() if d == "desc" else F.col(c).asc_nulls_last() for c, d in order]
    assert [row["id"] for row in frame.orderBy(*columns).collect()] == [
        row["id"] for row in sorted(_scored(), key=keep_key(order))
    ]


def test_components_label_every_node_with_its_smallest_id():
    edges = [("e", "d"), ("d", "c"), ("c", "b"), ("x", "y"), ("b", "f"), ("z", "y"), ("q", "q")]
    expected = {"b": "b", "c": "b", "d": "b", "e": "b", "f": "b", "x": "x", "y": "x", "z": "x"}
    assert components(edges) == expected


def test_a_bucket_gives_the_star_on_its_smallest_id_and_the_chain_of_neighbours():
    same = np.arange(128, dtype=np.uint32)
    ids = ["d", "b", "c", "a", "z"]
    signatures = pa.chunked_array([[same.tobytes()] * 3, [same.tobytes(), (same + 1).tobytes()]], pa.binary())
    in_id_order = np.argsort(ids)
    named = {
        tuple(ids[in_id_order[place]] for place in pair) for pair in candidate_pairs(signatures, in_id_order, 18, 7)
    }
    assert named == {("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("c", "d")}


def test_simhash_pairs_compare_each_member_with_its_next_window_members():
    ids = ["a", "b", "c", "d", "e", "far"]  # in id order: a document's place is its node
    pairs = simhash_pairs(np.array([0, 0, 0, 0, 0, -1], np.int64), SimhashConfig(max_distance=3, window=2))
    named = {(ids[first], ids[second]) for first, second in pairs}
    assert named == {("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "d"), ("c", "e"), ("d", "e")}


def test_a_document_dropped_later_takes_its_duplicates_to_its_own_kept_document():
    dropped = chained({}, [("a", "b", "exact_duplicate", None)])
    dropped = chained(dropped, [("b", "c", "minhash_duplicate", None)])
    assert dropped == {"a": ("c", "exact_duplicate", None), "b": ("c", "minhash_duplicate", None)}
    emptied = chained(dropped, [("c", None, "empty_after_paragraph_dedup", "0 characters left")])
    assert emptied["a"] == ("c", "exact_duplicate", None)
    assert emptied["c"] == (None, "empty_after_paragraph_dedup", "0 characters left")


# b, c dropped for a; x, y for a published document; f for e, which paragraph removal emptied.
DROPPED = {
    "b": ("a", "exact_duplicate", None),
    "c": ("a", "minhash_duplicate", None),
    "x": ("index:p", "exact_duplicate", None),
    "y": ("index:p", "minhash_duplicate", None),
    "e": (None, "empty_after_paragraph_dedup", "2 of 2 paragraphs"),
    "f": ("e", "exact_duplicate", None),
}
DOC_IDS = {"a", "b", "c", "e", "f", "x", "y", "z"}
CLUSTERS = {"a": ("a", 3), "b": ("a", 3), "c": ("a", 3), "x": ("x", 2), "y": ("x", 2), "e": ("e", 2), "f": ("e", 2)}


def test_clusters_are_named_by_their_smallest_document_and_count_documents_only():
    verdicts = cluster_verdicts(DROPPED, DOC_IDS)
    assert [row["id"] for row in verdicts] == sorted(CLUSTERS)  # z: kept alone, no row
    assert {row["id"]: (row["dup_cluster_id"], row["dup_cluster_size"]) for row in verdicts} == CLUSTERS
    assert {row["id"]: (row["kept_id"], row["reason"], row["note"]) for row in verdicts} == DROPPED | {
        "a": (None, None, None)
    }


@pytest.mark.spark
def test_spark_clusters_equal_the_driver_clusters(spark):
    """The methods' drops in method order (exact, minhash, paragraph), the index's document named."""
    schema = "id string, kept_id string, reason string, note string"
    by_reason = ("exact_duplicate", "minhash_duplicate", "empty_after_paragraph_dedup")
    founds = [
        spark.createDataFrame([(doc_id, *drop) for doc_id, drop in DROPPED.items() if drop[1] == reason], schema)
        for reason in by_reason
    ]
    published = spark.createDataFrame([("index:p",)], "id string")
    found = cluster_verdict_frame(founds, published, buckets=3)
    assert found.columns == [*VERDICT_SCHEMA.names, PART_COLUMN]
    rows = [row.asDict() for row in found.collect()]
    assert [row.pop(PART_COLUMN) for row in rows] == [id_bucket(row["id"], 3) for row in rows]
    assert sorted(rows, key=lambda row: row["id"]) == cluster_verdicts(DROPPED, DOC_IDS)


def _plain_simhash_pairs(fingerprints: list[int], config: SimhashConfig) -> set[tuple[int, int]]:
    """The rule member by member: each block bucket sorted by (fingerprint, place), each member
    against its next `window` members."""
    buckets: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for place, value in enumerate(fingerprints):
        for block, (start, width) in enumerate(block_layout(config.max_distance + 1)):
            key = ((value & (2**64 - 1)) >> start) & ((1 << width) - 1)
            buckets.setdefault((block, key), []).append((value, place))
    pairs = set()
    for members in buckets.values():
        members.sort()
        for position, (value, place) in enumerate(members):
            for other_value, other in members[position + 1 : position + 1 + config.window]:
                if hamming_distance(value, other_value) <= config.max_distance:
                    pairs.add((min(place, other), max(place, other)))
    return pairs


def test_simhash_pairs_in_numpy_are_the_rule_member_by_member():
    rng = np.random.default_rng(11)
    bases = rng.integers(-(2**63), 2**63 - 1, size=40, dtype=np.int64)
    # Near copies (1-5 bits flipped) of a few bases, crowded buckets, negative fingerprints.
    flips = [np.bitwise_xor.reduce(np.int64(1) << rng.integers(0, 64, size=rng.integers(1, 6))) for _ in range(400)]
    values = np.array([bases[i % 40] ^ flip for i, flip in enumerate(flips)] + list(bases[:5]) * 3, np.int64)
    for config in (SimhashConfig(), SimhashConfig(max_distance=5, window=3)):
        found = {tuple(pair) for pair in simhash_pairs(values, config).tolist()}
        assert found == _plain_simhash_pairs(values.tolist(), config)
        assert len(found) > 100
