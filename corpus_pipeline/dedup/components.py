"""Connected components of the verified-duplicate graph on Spark, in a fixed number of jobs.

The edges (ids only) are gathered into one task, which labels the nodes as the driver path's
union-find does (small_decisions.components), on int codes of the ids (id_codes.py,
union_find.py), and streams back (id, component) by id: one shuffle whatever the input.
The iterative large-star/small-star it replaced ran a localCheckpoint and a convergence check a
round, each several Spark jobs under adaptive execution, for O(log n) rounds of the largest
component: 64 documents chained by near-duplicates took the stage from 41 jobs to 81
(tests/dedup/test_dedup_spark_jobs.py). Edges join only duplicates (one method's verified
pairs), not every document: the task holds the documents on an edge, 140 bytes each at 3M
documents of 60-character ids (64 of them the id's own bytes), where the driver path's dict of
Python strings took 250 (datatrove's cluster step likewise runs its union-find in one process).
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import DataFrame

from corpus_pipeline.dedup.id_codes import SortedIds
from corpus_pipeline.dedup.union_find import edge_components
from corpus_pipeline.engine.whole_corpus import spark_schema

COMPONENT_SCHEMA = pa.schema([("id", pa.string()), ("component", pa.string())])
# Rows of each batch the gathering task streams back.
_BATCH_ROWS = 65_536


def _component_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Every (src, dst) batch of the one partition -> (id, component) for every node on an edge,
    by id."""
    ids = SortedIds(columns=2)
    for batch in batches:
        ids.add(batch.column("src"), batch.column("dst"))
    names, (first, second) = ids.sorted()
    nodes, labels = edge_components(first, second, len(names))
    for start in range(0, len(nodes), _BATCH_ROWS):
        part = slice(start, start + _BATCH_ROWS)
        yield pa.RecordBatch.from_arrays([names.taken(nodes[part]), names.taken(labels[part])], schema=COMPONENT_SCHEMA)


def connected_components(edges: DataFrame) -> DataFrame:
    """`edges(src, dst)` (string ids, undirected) -> `(id, component)` for every node on an edge
    other than a loop, component = the smallest id of its component (a stable,
    partitioning-independent cluster id)."""
    gathered = edges.select("src", "dst").repartition(1)
    return gathered.mapInArrow(_component_batches, spark_schema(COMPONENT_SCHEMA))
