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
    fingerprints = dict.fromkeys("edcba", 0) | {"far": -1}
    pairs = simhash_pairs(fingerprints, SimhashConfig(max_distance=3, window=2))
    assert pairs == {("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "d"), ("c", "e"), ("d", "e")}


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
