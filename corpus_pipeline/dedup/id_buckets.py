"""Which output part holds a document: part i of n holds the documents whose id hashes to i, sorted
by id (then the columns that order a document's repeated rows, repeats.row_order).

The hash is Spark's `hash(id)`: Murmur3_x86_32 of the id's UTF-8 bytes with seed 42, where a tail
of 1-3 bytes is mixed one sign-extended byte at a time (Spark's `hashUnsafeBytes`, not the reference
Murmur3 tail). Computed here as well, the driver's path (driver_job.py) writes the parts the Spark
path writes, byte for byte, with no JVM.
"""

from __future__ import annotations

import numpy as np

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


def id_buckets(ids, buckets: int) -> np.ndarray:
    """id_bucket of every id of a string Arrow array (no nulls), in numpy: the ids of one byte length
    at a time, their 4-byte words and tail bytes mixed column by column. 0.7 µs an id against the
    loop's 7.4 (32-character ids, this machine); the tests hold it to spark_string_hash."""
    import pyarrow as pa

    binary = (ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids).cast(pa.large_binary())
    if binary.null_count:
        raise ValueError(f"{binary.null_count} ids are null: a document without an id has no bucket")
    _, offsets, data = binary.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int64)[binary.offset : binary.offset + len(binary) + 1]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    lengths = np.diff(bounds)
    hashes = np.empty(len(binary), dtype=np.uint32)
    with np.errstate(over="ignore"):  # the multiplications wrap (mod 2^32), as in Java
        for length in np.unique(lengths):
            rows = np.flatnonzero(lengths == length)
            block = data[bounds[rows][:, None] + np.arange(length)]
            h1 = np.full(len(rows), SPARK_HASH_SEED, dtype=np.uint32)
            aligned = int(length) - int(length) % 4
            words = np.ascontiguousarray(block[:, :aligned]).view("<u4")
            for column in range(aligned // 4):
                h1 = _mix_array(h1, words[:, column])
            for column in range(aligned, int(length)):  # Spark's tail: one sign-extended byte at a time
                h1 = _mix_array(h1, block[:, column].view(np.int8).astype(np.int32).view(np.uint32))
            h1 ^= np.uint32(length)
            h1 = (h1 ^ (h1 >> np.uint32(16))) * np.uint32(0x85EBCA6B)
            h1 = (h1 ^ (h1 >> np.uint32(13))) * np.uint32(0xC2B2AE35)
            hashes[rows] = h1 ^ (h1 >> np.uint32(16))
    return np.mod(hashes.view(np.int32).astype(np.int64), buckets)


def _rotl_array(values: np.ndarray, shift: int) -> np.ndarray:
    return (values << np.uint32(shift)) | (values >> np.uint32(32 - shift))


def _mix_array(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
    k1 = _rotl_array(k1 * np.uint32(0xCC9E2D51), 15) * np.uint32(0x1B873593)
    return _rotl_array(h1 ^ k1, 13) * np.uint32(5) + np.uint32(0xE6546B64)
