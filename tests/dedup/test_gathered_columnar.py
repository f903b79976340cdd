"""The Spark path's two gathering tasks on int codes (components._component_batches,
chain_job._verdict_batches) against the driver path's dicts (small_decisions.components,
chain.chained + chain.cluster_verdicts): the same rows in the same order, on seeded random graphs
and drops with chains, stars, loops, published kept ids, null kept ids, notes and non-ASCII ids."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from corpus_pipeline.dedup import id_codes
from corpus_pipeline.dedup.chain import chained, cluster_verdicts
from corpus_pipeline.dedup.chain_job import (
    _ID_BUCKET,
    _KEPT_BUCKET,
    _KEPT_PUBLISHED,
    _METHOD,
    BUCKETED_VERDICT_SCHEMA,
    _verdict_batches,
)
from corpus_pipeline.dedup.components import COMPONENT_SCHEMA, _component_batches
from corpus_pipeline.dedup.id_buckets import id_bucket
from corpus_pipeline.dedup.id_codes import SortedIds
from corpus_pipeline.dedup.small_decisions import components
from corpus_pipeline.dedup.union_find import edge_components
from corpus_pipeline.engine.whole_corpus import PART_COLUMN

# Letters whose UTF-8 byte order must agree with Python's str order: ASCII upper before lower, a
# two-byte é, a three-byte 日 and \uffff, a four-byte emoji above \uffff.
LETTERS = ["a", "b", "Z", "0", "-", "é", "日", "\uffff", "\U0001f600"]
SEEDS = range(12)
BUCKETS = 7  # the decide step's parts the gathered verdicts are written in


@pytest.fixture(autouse=True, params=["one chunk", "many chunks and windows"])
def _grouping(request, monkeypatch):
    """The ids in one chunk read in one window (this file's inputs are small), or in chunks of 16
    ids read 5 at a time, so that runs of equal ids cross chunks and windows."""
    if request.param != "one chunk":
        monkeypatch.setattr(id_codes, "_CHUNK_IDS", 16)
        monkeypatch.setattr(id_codes, "_WINDOW", 5)


def _ids(rng: random.Random, count: int, prefix: str = "") -> list[str]:
    ids: set[str] = set()
    while len(ids) < count:
        ids.add(prefix + "".join(rng.choices(LETTERS, k=rng.randint(1, 4))))
    return sorted(ids)


def _split(rows: list, rng: random.Random) -> list[list]:
    """Rows in batches of random sizes, as one Spark partition streams them."""
    cuts = sorted(rng.sample(range(1, len(rows)), min(3, len(rows) - 1))) if len(rows) > 1 else []
    return [rows[start:end] for start, end in zip([0, *cuts], [*cuts, len(rows)], strict=True)]


def _graph(rng: random.Random) -> list[tuple[str, str]]:
    nodes = _ids(rng, 80)
    rng.shuffle(nodes)
    edges = []
    chain = nodes[:20]
    edges += list(zip(chain, chain[1:], strict=False))  # a path of 20
    edges += [(nodes[20], leaf) for leaf in nodes[21:30]]  # a star
    edges += [tuple(rng.sample(nodes[30:], 2)) for _ in range(25)]  # random small components
    edges += [(node, node) for node in nodes[rng.randrange(80) :][:3]]  # loops, some nodes on nothing else
    edges += [(second, first) for first, second in rng.sample(edges, 5)]  # both directions
    rng.shuffle(edges)
    return edges


@pytest.mark.parametrize("seed", SEEDS)
def test_gathered_components_equal_the_driver_union_find_in_id_order(seed):
    rng = random.Random(seed)
    edges = _graph(rng)
    batches = [
        pa.RecordBatch.from_pydict({"src": [s for s, _ in part], "dst": [d for _, d in part]})
        for part in _split(edges, rng)
    ]
    out = list(_component_batches(iter(batches)))
    assert all(batch.schema == COMPONENT_SCHEMA for batch in out)
    rows = [(row["id"], row["component"]) for batch in out for row in batch.to_pylist()]
    assert rows == sorted(components(edges).items())


def _drops(rng: random.Random) -> tuple[list[tuple], set[str]]:
    """(id, kept_id, reason, note, method, kept_published) rows of four methods run one after the
    other on what the earlier ones kept, and the published ids. Chains: a document kept by one
    method and dropped by a later one. Stars: a kept document with several duplicates."""
    survivors = _ids(rng, 60)
    published = _ids(rng, 4, prefix="index:")
    rows = []
    for method, reason in enumerate(["url_duplicate", "exact_duplicate", "minhash_duplicate", "paragraph"]):
        rng.shuffle(survivors)
        found = []
        for kept in survivors[: rng.randint(1, 5)]:
            for doc_id in rng.sample(survivors[5:], rng.randint(1, 3)):
                if reason == "paragraph":  # emptied: no document stands for it
                    found.append((doc_id, None, "empty_after_paragraph_dedup", f"0 of {rng.randint(1, 9)}"))
                else:
                    found.append((doc_id, kept, reason, None))
        found += [(doc_id, rng.choice(published), reason, None) for doc_id in rng.sample(survivors[5:], 2)]
        rows += [(*drop, method, drop[1] in published) for drop in found]
        survivors = [doc_id for doc_id in survivors if doc_id not in {drop[0] for drop in found}]
    return rows, set(published)


def _chaos(rng: random.Random) -> list[tuple]:
    """Rows the methods never make, which both paths must still decide alike: an id twice in one
    method (its last row stands), dropped by several methods, kept by itself."""
    ids = _ids(rng, 25)
    pick = rng.choice
    return [(pick(ids), pick([*ids, None]), pick("xy"), pick([None, "n"]), rng.randrange(3), False) for _ in range(60)]


def _driver_verdicts(rows: list[tuple]) -> list[dict]:
    dropped = {}
    for method in sorted({row[4] for row in rows}):
        dropped = chained(dropped, [row[:4] for row in rows if row[4] == method])
    standing = {row[1] for row in rows if row[1] is not None and not row[5]}
    return cluster_verdicts(dropped, standing)


def _bucket(doc_id: str | None) -> int:
    """Spark's pmod(hash(id), BUCKETS), a null's too (hash(null) is the seed, 42)."""
    return id_bucket(doc_id, BUCKETS) if doc_id is not None else 42 % BUCKETS


def _gathered_verdicts(rows: list[tuple], rng: random.Random) -> list[dict]:
    """The gathering task's rows in id order, once they are checked to come by (bucket, id), each
    with its id's bucket."""
    names = ["id", "kept_id", "reason", "note", _METHOD, _KEPT_PUBLISHED, _ID_BUCKET, _KEPT_BUCKET]
    types = [pa.string()] * 4 + [pa.int32(), pa.bool_(), pa.int32(), pa.int32()]
    batches = [
        pa.RecordBatch.from_arrays(
            [
                pa.array([(*row, _bucket(row[0]), _bucket(row[1]))[i] for row in part], kind)
                for i, kind in enumerate(types)
            ],
            names=names,
        )
        for part in _split(rows, rng)
    ]
    out = list(_verdict_batches(iter(batches)))
    assert all(batch.schema == BUCKETED_VERDICT_SCHEMA for batch in out)
    gathered = [row for batch in out for row in batch.to_pylist()]
    assert [row.pop(PART_COLUMN) for row in gathered] == [_bucket(row["id"]) for row in gathered]
    assert [(_bucket(row["id"]), row["id"]) for row in gathered] == sorted(
        (_bucket(r["id"]), r["id"]) for r in gathered
    )
    return sorted(gathered, key=lambda row: row["id"])


@pytest.mark.parametrize("seed", SEEDS)
def test_gathered_verdicts_equal_the_driver_chain_in_id_order(seed):
    rng = random.Random(seed)
    rows, published = _drops(rng)
    rng.shuffle(rows)  # the union of the methods' drops reaches the task in any order
    expected = _driver_verdicts(rows)
    assert {row["kept_id"] for row in expected} & published  # the draw has published kept ids
    assert any(row["reason"] == "empty_after_paragraph_dedup" for row in expected)
    assert _gathered_verdicts(rows, rng) == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_gathered_verdicts_equal_the_driver_chain_on_rows_no_method_makes(seed):
    rng = random.Random(seed)
    rows = _chaos(rng)
    assert _gathered_verdicts(rows, rng) == _driver_verdicts(rows)


def test_nothing_gathered_gives_no_rows():
    assert list(_component_batches(iter([]))) == []
    assert list(_verdict_batches(iter([]))) == []


def test_sorted_ids_order_as_python_sorts_strings():
    ids = SortedIds(columns=2)
    ids.add(pa.array(["日", "b", None, "\U0001f600"]), pa.array(["Z", "é", "b", "\uffff"]))
    ids.add(pa.array(["a"]), pa.array([None], pa.string()))
    names, (first, second) = ids.sorted()
    assert names.taken(np.arange(len(names))).to_pylist() == sorted({"日", "b", "\U0001f600", "Z", "é", "\uffff", "a"})
    decoded = names.taken(np.concatenate([first, second])).to_pylist()
    assert decoded == ["日", "b", None, "\U0001f600", "a", "Z", "é", "b", "\uffff", None]


def test_a_long_shuffled_path_and_a_loop_label_every_node_with_the_smallest_code():
    path = np.random.default_rng(5).permutation(10_000).astype(np.int32)  # a path visiting the codes at random
    first, second = np.append(path[:-1], 10_001), np.append(path[1:], 10_001)  # 10_001: on a loop only
    nodes, labels = edge_components(first, second, 10_002)
    assert nodes.tolist() == list(range(10_000)) and not labels.any()
