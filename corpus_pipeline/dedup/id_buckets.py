"""Which output part holds a document: part i of n holds the documents whose id hashes to i, sorted
by id (then the columns that order a document's repeated rows, repeats.row_order).

The hash is Spark's `hash(id)`: Murmur3_x86_32 of the id's UTF-8 bytes with seed 42, where a tail
of 1-3 bytes is mixed one sign-extended byte at a time (Spark's `hashUnsafeBytes`, not the reference
Murmur3 tail). Computed here as well, the driver's path (driver_job.py) writes the parts the Spark
path writes, byte for byte, with no JVM.
"""

from __future__ import annotations

_MASK = 0xFFFFFFFF
SPARK_HASH_SEED = 42
# After id, these columns tell the rows of one document apart (file_path + warc_offset is one record).
REPEAT_ORDER = ("date", "file_path", "warc_offset")


def row_order(columns: list[str]) -> list[str]:
    """id, then the columns that order a document's repeated rows: for sorting output files and
    for picking the row of a repeated id that stays (repeats.py, driver_job.py)."""
    return ["id", *(column for column in REPEAT_ORDER if column in columns)]


def bucket_identity(bucket: int, buckets: int) -> str:
    return f"id bucket {bucket} of {buckets}"


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (32 - shift))) & _MASK


def _mix(h1: int, k1: int) -> int:
    k1 = _rotl(k1 * 0xCC9E2D51 & _MASK, 15) * 0x1B873593 & _MASK
    return (_rotl(h1 ^ k1, 13) * 5 + 0xE6546B64) & _MASK


def spark_string_hash(text: str, seed: int = SPARK_HASH_SEED) -> int:
    """Spark's `hash(text)` for a string column, as a signed 32-bit int."""
    data = text.encode("utf-8")
    aligned = len(data) - len(data) % 4
    h1 = seed
    for start in range(0, aligned, 4):
        h1 = _mix(h1, int.from_bytes(data[start : start + 4], "little"))
    for byte in data[aligned:]:
        h1 = _mix(h1, (byte - 256 if byte >= 128 else byte) & _MASK)
    h1 ^= len(data)
    h1 = (h1 ^ (h1 >> 16)) * 0x85EBCA6B & _MASK
    h1 = (h1 ^ (h1 >> 13)) * 0xC2B2AE35 & _MASK
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def id_bucket(doc_id: str, buckets: int) -> int:
    """Spark's `pmod(hash(id), buckets)`."""
    return spark_string_hash(doc_id) % buckets
