"""Which shard bucket a document goes to: decided by its id alone, so shards do not depend on how
Spark partitioned the input.

A document's bucket is pmod(xxhash64(id, seed 42), buckets): Spark's built-in `xxhash64` column
function, which is XXH64 of the UTF-8 bytes with seed 42 read as a signed long (tests check that the
Python function here gives the same numbers, so the local executor writes the same shards). Within
a bucket documents are in id order. The bucket count comes from the input's text bytes, which the
upstream stage already counted (`bytes_kept` in its _stats.json), and an estimate of bytes per token.
"""

from __future__ import annotations

import math

import xxhash

SPARK_XXHASH_SEED = 42
_SIGN = 1 << 63


def signed_xxhash64(value: str) -> int:
    """Spark's xxhash64(string column)."""
    digest = xxhash.xxh64_intdigest(value.encode("utf-8", "surrogatepass"), seed=SPARK_XXHASH_SEED)
    return digest - (1 << 64) if digest >= _SIGN else digest


def bucket_of(document_id: str, buckets: int) -> int:
    return signed_xxhash64(document_id) % buckets  # Python's % of a positive modulus is Spark's pmod


def bucket_count(text_bytes: int, text_bytes_per_token: float, itemsize: int, shard_bytes: int) -> int:
    """Enough buckets that an average one fills about one shard: shards are rolled at shard_bytes
    inside a bucket anyway, so a wrong estimate costs a few smaller shards, never a larger one."""
    estimated_bin_bytes = text_bytes / text_bytes_per_token * itemsize
    return max(1, math.ceil(estimated_bin_bytes / shard_bytes))


def shard_name(prefix: str, number: int) -> str:
    return f"{prefix}_{number:05d}"


def bucket_file_prefix(bucket: int) -> str:
    return f"bucket-{bucket:05d}-"


def bucket_file_name(bucket: int, roll: int) -> str:
    """A shard's name while the job runs: final numbers are known only once every bucket is done."""
    return f"{bucket_file_prefix(bucket)}{roll:04d}"


def threads_per_task(cores: int, tasks: int) -> int:
    """Encoder threads for each concurrent task: the cores shared among the tasks that run at once
    (one bucket alone gets every core; 7 buckets on 2 cores get 1 thread each)."""
    return max(1, cores // max(1, min(tasks, cores)))


def _rotl32(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (32 - shift))) & 0xFFFFFFFF


def spark_int_hash(value: int, seed: int = SPARK_XXHASH_SEED) -> int:
    """Spark's `hash(int)`: Murmur3_x86_32.hashInt with seed 42, as a signed int (what
    `repartition(n, column)` takes modulo n to pick a partition)."""
    k1 = _rotl32((value & 0xFFFFFFFF) * 0xCC9E2D51 & 0xFFFFFFFF, 15) * 0x1B873593 & 0xFFFFFFFF
    h1 = (_rotl32(seed ^ k1, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF
    h1 ^= 4
    h1 = (h1 ^ (h1 >> 16)) * 0x85EBCA6B & 0xFFFFFFFF
    h1 = (h1 ^ (h1 >> 13)) * 0xC2B2AE35 & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def partition_keys(buckets: int) -> list[int]:
    """For each bucket b, an int key that `repartition(buckets, key)` sends to partition b, so every
    bucket gets a task of its own. Partitioning by the bucket number itself would hash several
    buckets into one partition and leave others empty: with 2 buckets on 2 cores, half the time
    one core would do all the work."""
    keys: list[int | None] = [None] * buckets
    missing, candidate = buckets, 0
    while missing:
        partition = spark_int_hash(candidate) % buckets
        if keys[partition] is None:
            keys[partition] = candidate
            missing -= 1
        candidate += 1
    return keys
