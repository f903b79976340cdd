"""The training reader: documents by number and token windows across shard boundaries."""

from __future__ import annotations

import numpy as np
import pytest

from corpus_pipeline.tokenize.indexed_dataset import ShardFile, ShardFormatError, ShardWriter
from corpus_pipeline.tokenize.manifest import build_manifest, write_manifest
from corpus_pipeline.tokenize.reader import TokenShards

EOD = 0
# Three shards, the middle one empty (a bucket can be), documents of 1..9 tokens.
SHARDS = [[[1, 2, 3], [4], [5, 6, 7, 8, 9]], [], [[10, 11], [12, 13, 14, 15, 16, 17, 18, 19, 20]]]


@pytest.fixture
def directory(tmp_path):
    files: list[ShardFile] = []
    for number, documents in enumerate(SHARDS):
        writer = ShardWriter(tmp_path / f"tokens_{number:05d}", np.dtype(np.uint16), EOD)
        for doc in documents:
            writer.add_document([np.array(doc)])
        files.append(writer.close())
    write_manifest(tmp_path, build_manifest("tokens", np.dtype(np.uint16), "0" * 64, 100, "<|endoftext|>", EOD, files))
    return tmp_path


def stream() -> list[int]:
    return [token for documents in SHARDS for doc in documents for token in [*doc, EOD]]


def test_documents_by_number_across_shards(directory):
    shards = TokenShards(directory)
    documents = [doc for docs in SHARDS for doc in docs]
    assert len(shards) == len(documents) and shards.num_tokens == len(stream())
    assert [shards.document(i).tolist() for i in range(len(shards))] == documents
    assert shards.document(3, with_eod=True).tolist() == [10, 11, EOD]
    with pytest.raises(IndexError):
        shards.document(len(documents))


def test_every_window_equals_the_concatenated_stream(directory):
    shards = TokenShards(directory)
    tokens = stream()
    for length in (1, 4, 13, len(tokens)):
        for start in range(len(tokens) - length + 1):
            assert shards.window(start, length).tolist() == tokens[start : start + length], (start, length)
    batch = shards.windows([0, 10, 19], 6)
    assert batch.dtype == np.int64 and batch.tolist() == [tokens[0:6], tokens[10:16], tokens[19:25]]
    with pytest.raises(IndexError):
        shards.window(len(tokens) - 2, 3)


def test_windows_inside_a_shard_are_views_of_the_map(directory):
    view = TokenShards(directory).window(1, 3)
    assert view.base is not None and not view.flags.writeable


def test_a_truncated_bin_is_refused_on_open(directory):
    path = directory / "tokens_00002.bin"
    path.write_bytes(path.read_bytes()[:-2])
    with pytest.raises(ShardFormatError, match="tokens_00002.bin: .*truncated or wrong .bin"):
        TokenShards(directory)
