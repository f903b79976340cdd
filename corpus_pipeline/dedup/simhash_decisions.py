"""SimHash near-duplicates as Spark DataFrame jobs: block tables -> verified pairs -> components.

With max_distance = k, the 64 bits are cut into k + 1 blocks (simhash.block_layout) and every
document is keyed once per block by (block index, block value). Two fingerprints within k bits agree
on at least one block, so they meet in at least one bucket; there the true Hamming distance is
computed (`bit_count(a XOR b)`) and only pairs within k become edges. Nothing is collected to the
driver: a bucket is streamed through a window sorted by (fingerprint, id), each row seeing its next
`window` rows, so no task holds more than one bucket's rows and each row at most `window` pairs.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from corpus_pipeline.dedup.assign import simhash_likeness
from corpus_pipeline.dedup.config import SimhashConfig
from corpus_pipeline.dedup.decisions import component_drops
from corpus_pipeline.dedup.simhash import block_layout

REASON = "simhash_duplicate"


def hamming(first: Column, second: Column) -> Column:
    return F.bit_count(first.bitwiseXOR(second))


def block_keys(fingerprints: DataFrame, max_distance: int) -> DataFrame:
    """fingerprints(id, simhash) -> (block, key, id, simhash): one row per block."""
    keys = [
        F.struct(
            F.lit(index).alias("block"),
            F.shiftrightunsigned("simhash", start).bitwiseAND(F.lit((1 << width) - 1)).alias("key"),
        )
        for index, (start, width) in enumerate(block_layout(max_distance + 1))
    ]
    exploded = fingerprints.select("id", "simhash", F.explode(F.array(*keys)).alias("table"))
    return exploded.select("table.block", "table.key", "id", "simhash")


def verified_pairs(fingerprints: DataFrame, config: SimhashConfig) -> DataFrame:
    """fingerprints(id, simhash) -> (src, dst, distance), src < dst, every pair within
    config.max_distance bits that shares a bucket within config.window rows (every such pair, for
    buckets of up to window + 1 members)."""
    # The key first: a block's few values would tie the sort's 8-byte prefix on nearly every comparison.
    bucket = Window.partitionBy("key", "block").orderBy("simhash", "id").rowsBetween(1, config.window)
    following = F.collect_list(F.struct("id", "simhash")).over(bucket).alias("following")
    windowed = block_keys(fingerprints, config.max_distance).select("id", "simhash", following)
    neighbours = windowed.select("id", "simhash", F.explode("following").alias("other"))
    pairs = neighbours.select(
        F.least("id", "other.id").alias("src"),
        F.greatest("id", "other.id").alias("dst"),
        hamming(F.col("simhash"), F.col("other.simhash")).alias("distance"),
    )
    return pairs.where(F.col("distance") <= config.max_distance).distinct()


def simhash_duplicates(fingerprints: DataFrame, config: SimhashConfig, order) -> DataFrame:
    """fingerprints(id, simhash, keep columns) -> dropped (id, kept_id, reason).

    As for MinHash, a chain A~B~C with A and C far apart forms one component, so a member is
    dropped only for a kept document within max_distance bits of it (assign.py)."""
    with_hash = fingerprints.where(F.col("simhash").isNotNull())
    edges = verified_pairs(with_hash.select("id", "simhash"), config).select("src", "dst")
    dropped = component_drops(edges, with_hash, order, simhash_likeness(config.max_distance))
    return dropped.select("id", "kept_id", F.lit(REASON).alias("reason"))
