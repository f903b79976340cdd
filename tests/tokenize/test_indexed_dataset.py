"""The shard format: an independent reader written here from schemas/token_shards.md, and
Megatron-LM's own IndexedDataset, read exactly the documents the writer was given."""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import numpy as np
import pytest

from corpus_pipeline.tokenize.indexed_dataset import ShardFormatError, ShardWriter, read_index

EOD = 0
DOCUMENTS = [[5, 6, 7], [65_535], list(range(1, 300)), [42, 43]]


def write(path: Path, dtype, documents=DOCUMENTS):
    writer = ShardWriter(path, np.dtype(dtype), EOD)
    for doc in documents:
        half = len(doc) // 2  # pieces, as the encoder hands long documents over
        writer.add_document([np.array(doc[:half]), np.array(doc[half:])])
    return writer.close()


def read_by_the_documented_layout(prefix: Path) -> tuple[str, list[list[int]]]:
    """Independent of our code: struct and bytes only, following schemas/token_shards.md."""
    index = (prefix.parent / f"{prefix.name}.idx").read_bytes()
    assert index[:9] == b"MMIDIDX\x00\x00"
    version, code, sequences, document_entries = struct.unpack_from("<QBQQ", index, 9)
    assert version == 1
    dtype = {8: "<u2", 4: "<i4"}[code]
    offset = 34
    lengths = struct.unpack_from(f"<{sequences}i", index, offset)
    offset += 4 * sequences
    pointers = struct.unpack_from(f"<{sequences}q", index, offset)
    offset += 8 * sequences
    doc_index = struct.unpack_from(f"<{document_entries}q", index, offset)
    assert offset + 8 * document_entries == len(index)
    data = (prefix.parent / f"{prefix.name}.bin").read_bytes()
    documents = []
    for d in range(document_entries - 1):
        tokens = []
        for s in range(doc_index[d], doc_index[d + 1]):
            tokens += np.frombuffer(data, dtype=dtype, count=lengths[s], offset=pointers[s]).tolist()
        documents.append(tokens)
    return np.dtype(dtype).name, documents


@pytest.mark.parametrize("dtype", ["uint16", "int32"])
def test_independent_reader_agrees_with_the_writer(tmp_path, dtype):
    shard = write(tmp_path / "s_00000", dtype)
    name, documents = read_by_the_documented_layout(tmp_path / "s_00000")
    assert name == dtype
    assert documents == [doc + [EOD] for doc in DOCUMENTS]
    assert shard.documents == 4 and shard.tokens == sum(len(d) + 1 for d in DOCUMENTS)
    assert shard.bin_bytes == (tmp_path / "s_00000.bin").stat().st_size == shard.tokens * np.dtype(dtype).itemsize
    index = read_index(tmp_path / "s_00000.idx")
    assert index.documents == 4 and index.tokens == shard.tokens
    assert not list(tmp_path.glob(".*")), "no temporary files left"


def test_megatron_indexed_dataset_reads_our_shards(tmp_path):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from megatron.core.datasets.indexed_dataset import IndexedDataset
    except ImportError as error:
        pytest.skip(f"megatron-core is not installed ({error}); pip install megatron-core to run this check")
    write(tmp_path / "s_00000", "uint16")
    dataset = IndexedDataset(str(tmp_path / "s_00000"))
    assert len(dataset) == len(DOCUMENTS)
    assert dataset.index.dtype == np.uint16
    assert [dataset[i].tolist() for i in range(len(dataset))] == [doc + [EOD] for doc in DOCUMENTS]
    assert dataset.document_indices.tolist() == list(range(len(DOCUMENTS) + 1))


def test_a_damaged_index_is_refused_with_its_name(tmp_path):
    write(tmp_path / "s_00000", "uint16")
    idx = tmp_path / "s_00000.idx"
    data = idx.read_bytes()
    idx.write_bytes(data[:-8])
    with pytest.raises(ShardFormatError, match=r"s_00000.idx: .* \(truncated or corrupt index\)"):
        read_index(idx)
    idx.write_bytes(b"NOTMMIDX\x00" + data[9:])
    with pytest.raises(ShardFormatError, match="bad magic"):
        read_index(idx)
    idx.write_bytes(data[:17] + bytes([99]) + data[18:])
    with pytest.raises(ShardFormatError, match="unknown dtype code 99"):
        read_index(idx)
