"""Connected components of the verified-duplicate graph as Spark DataFrame jobs.

Large-star / small-star (Kiveris et al., "Connected Components in MapReduce and Beyond", 2014):
each round points every node at the smallest label it can see, and the graph converges to a forest
of stars centred on each component's smallest id in O(log n) rounds. Edges stay distributed,
shuffled by node; no task ever holds more than one node's neighbourhood.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

# Rounds after which a graph that has not converged is an error, not a loop: large-star/small-star
# needs O(log n) rounds, about 20 for 10^9 nodes.
MAX_ROUNDS = 60


def _both_directions(edges: DataFrame) -> DataFrame:
    return edges.unionByName(edges.select(F.col("dst").alias("src"), F.col("src").alias("dst")))


def _large_star(edges: DataFrame) -> DataFrame:
    """Every node links its larger neighbours to the smallest of itself and its neighbours."""
    both = _both_directions(edges)
    smallest = both.groupBy("src").agg(F.min("dst").alias("smallest"))
    smallest = smallest.select("src", F.least("src", "smallest").alias("smallest"))
    return (
        both.where(F.col("dst") > F.col("src"))
        .join(smallest, "src")
        .select(F.col("dst").alias("src"), F.col("smallest").alias("dst"))
        .distinct()
    )


def _small_star(edges: DataFrame) -> DataFrame:
    """Every node links itself and its smaller neighbours to the smallest of them."""
    pointed = edges.select(F.greatest("src", "dst").alias("src"), F.least("src", "dst").alias("dst")).where(
        F.col("src") != F.col("dst")
    )
    smallest = pointed.groupBy("src").agg(F.min("dst").alias("smallest"))
    members = pointed.unionByName(smallest.select("src", F.col("src").alias("dst")))
    return (
        members.join(smallest, "src")
        .where(F.col("dst") != F.col("smallest"))
        .select(F.col("dst").alias("src"), F.col("smallest").alias("dst"))
        .distinct()
    )


def _is_star_forest(edges: DataFrame) -> bool:
    """Converged when every node has one parent and no parent has a parent (one Spark job)."""
    parents = edges.select(F.col("dst").alias("src"), F.lit(True).alias("is_parent")).distinct()
    children = edges.groupBy("src").count().join(parents, "src", "left")
    return children.where((F.col("count") > 1) | F.col("is_parent").isNotNull()).limit(1).count() == 0


def connected_components(edges: DataFrame) -> DataFrame:
    """`edges(src, dst)` (string ids, undirected) -> `(id, component)` for every node on an edge,
    component = the smallest id of its component (a stable, partitioning-independent cluster id)."""
    current = edges.select("src", "dst").where(F.col("src") != F.col("dst")).distinct().localCheckpoint()
    for _ in range(MAX_ROUNDS):
        current = _small_star(_large_star(current)).localCheckpoint()
        if _is_star_forest(current):
            break
    else:
        raise RuntimeError(f"connected components did not converge in {MAX_ROUNDS} rounds")
    roots = current.select(F.col("dst").alias("id"), F.col("dst").alias("component")).distinct()
    return current.select(F.col("src").alias("id"), F.col("dst").alias("component")).unionByName(roots)
