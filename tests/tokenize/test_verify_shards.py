"""`shards verify` names the shard and the fault; `shards inspect` shows counts, lengths, documents."""

from __future__ import annotations

import argparse
import json
import shutil

import numpy as np
import pytest
import shards_fixtures
from shards_fixtures import small_config

from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.tokenize.cli import register
from corpus_pipeline.tokenize.shard_inspect import inspect_shards
from corpus_pipeline.tokenize.verify import verify_shards

# Session fixtures shared by the tokenize tests (pytest finds them as module attributes).
corpus_dir = shards_fixtures.corpus_dir
tokenizer_path = shards_fixtures.tokenizer_path


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, corpus_dir, tokenizer_path):
    output = tmp_path_factory.mktemp("verify") / "tokens"
    return run_stage(
        "tokenize", corpus_dir, output, small_config(shard_bytes=20_000), LocalExecutor(), tokenizer=tokenizer_path
    ).output


@pytest.fixture
def shards(tmp_path, pristine):
    return shutil.copytree(pristine, tmp_path / "tokens")


def faults(directory, **kwargs) -> list[str]:
    report = verify_shards(directory, **kwargs)
    assert report.ok == (not report.faults)
    return report.faults


def test_clean_shards_pass(pristine):
    report = verify_shards(pristine)
    assert report.ok and report.shards >= 2 and report.documents == 80
    assert "OK" in report.format()


def test_a_flipped_byte_is_caught_and_named(shards):
    path = shards / "tokens_00001.bin"
    data = bytearray(path.read_bytes())
    data[101] ^= 0x01
    path.write_bytes(bytes(data))
    assert faults(shards) == ["tokens_00001.bin: sha256 differs from the manifest (the bytes changed after writing)"]


def test_a_truncated_bin_is_named(shards):
    path = shards / "tokens_00000.bin"
    size = path.stat().st_size
    path.write_bytes(path.read_bytes()[: size - 10])
    assert faults(shards) == [f"tokens_00000.bin: truncated: {size - 10:,} bytes, the index implies {size:,}"]


def test_token_faults_are_found_without_checksums(shards):
    path = shards / "tokens_00000.bin"
    tokens = np.fromfile(path, dtype=np.uint16)
    ends = np.flatnonzero(tokens == 0)
    tokens[ends[1]] = 7  # document 1 loses its end-of-document token
    tokens[3] = 0  # document 0 gets one in its middle
    tokens[5] = 65_000  # over the vocabulary (2,000)
    tokens.tofile(path)
    found = faults(shards, checksums=False)
    assert found[0] == "tokens_00000.bin: token 5 has id 65000, not < vocab size 2,000"
    assert found[1].startswith("tokens_00000.bin: document 0 holds an end-of-document token before its end")
    assert len(found) == 2


def test_index_manifest_and_stray_files(shards):
    (shards / "tokens_00001.idx").write_bytes((shards / "tokens_00001.idx").read_bytes()[:-3])
    shutil.copy(shards / "tokens_00000.bin", shards / "tokens_00099.bin")
    manifest = json.loads((shards / "manifest.json").read_text())
    manifest["shards"][0]["documents"] += 1
    (shards / "manifest.json").write_text(json.dumps(manifest))
    found = faults(shards)
    assert "tokens_00099.bin: a shard file the manifest does not list" in found
    assert any(f.startswith("tokens_00000.idx: ") and "the manifest says" in f for f in found)
    assert any(f.startswith("tokens_00001.idx: ") and "truncated or corrupt index" in f for f in found)
    (shards / "manifest.json").unlink()
    assert faults(shards)[0].startswith("manifest.json: ")


def test_inspect_and_the_cli_verbs(pristine, shards, capsys):
    text = inspect_shards(pristine, documents=2)
    assert "80 documents" in text and "document length (text tokens)" in text and "document 1 (" in text
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="verb"))
    args = parser.parse_args(["shards", "verify", str(pristine)])
    assert args.handler(args, None) == 0
    (shards / "tokens_00000.bin").write_bytes(b"")
    args = parser.parse_args(["shards", "verify", str(shards)])
    assert args.handler(args, None) == 1
    assert "tokens_00000.bin: truncated" in capsys.readouterr().out
