"""Bad input is refused before any training step, with a message that names the problem."""

from __future__ import annotations

import json
import shutil

import pytest
import train_fixtures

from corpus_pipeline.cli import main

shards_dir = train_fixtures.shards_dir
tokenizer_file = train_fixtures.tokenizer_file

pytestmark = pytest.mark.realdata

SMALL = ["model.seq_len=64", "tensorboard=false", "max_steps=1", "eval_every=1000"]


def train(shards, out, *overrides: str, resume: bool = False) -> int:
    args = ["train", "--shards", str(shards), "--out", str(out), *(["--resume"] if resume else [])]
    return main([*args, *[arg for item in (*SMALL, *overrides) for arg in ("--set", item)]])


@pytest.fixture
def copy(shards_dir, tmp_path):
    return shutil.copytree(shards_dir, tmp_path / "shards")


def refused(capsys, *needles: str) -> None:
    message = capsys.readouterr().err
    for needle in needles:
        assert needle in message, message


def test_a_tokenizer_other_than_the_manifests_is_refused(copy, tmp_path, capsys):
    tokenizer = copy / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert train(copy, tmp_path / "out") == 1
    refused(capsys, "tokenizer.json", "sha256 differs")
    assert train(copy, tmp_path / "out", "verify_shards=sizes") == 1
    refused(capsys, "tokenizer.json is not the tokenizer the manifest names")
    assert not (tmp_path / "out" / "metrics.jsonl").exists()


def test_a_manifest_vocabulary_that_is_not_the_tokenizers_is_refused(copy, tmp_path, capsys):
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["tokenizer"]["vocab_size"] = 1_000
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert train(copy, tmp_path / "out", "verify_shards=sizes") == 1
    refused(capsys, "vocabulary of 1,000", "has 300")


def test_a_model_vocabulary_smaller_than_the_shards_is_refused(shards_dir, tmp_path, capsys):
    assert train(shards_dir, tmp_path / "out", "model.vocab_size=256") == 1
    refused(capsys, "model.vocab_size 256 is smaller than the shards' vocabulary 300")


def test_a_missing_shard_is_refused(copy, tmp_path, capsys):
    (copy / "tokens_00000.bin").unlink()
    assert train(copy, tmp_path / "out") == 1
    refused(capsys, "tokens_00000.bin: missing")
    assert train(copy, tmp_path / "out", "verify_shards=sizes") == 1
    refused(capsys, "tokens_00000.bin")


def test_a_corrupt_shard_is_refused(copy, tmp_path, capsys):
    with open(copy / "tokens_00000.bin", "r+b") as stream:
        stream.seek(1_000)
        byte = stream.read(1)
        stream.seek(1_000)
        stream.write(bytes([byte[0] ^ 0xFF]))
    assert train(copy, tmp_path / "out") == 1
    refused(capsys, "tokens_00000.bin", "sha256 differs")


def test_fewer_tokens_than_one_batch_are_refused(shards_dir, tmp_path, capsys):
    assert train(shards_dir, tmp_path / "out", "micro_batch_size=100000") == 1
    refused(capsys, "fewer than one global batch (100,000 windows)")


def test_a_checkpoint_of_another_model_shape_is_refused(shards_dir, tmp_path, capsys):
    assert train(shards_dir, tmp_path / "out", "verify_shards=sizes") == 0
    assert train(shards_dir, tmp_path / "out", "verify_shards=sizes", "model.n_layer=3", resume=True) == 1
    refused(capsys, "another model shape", "n_layer: checkpoint 2, config 3")


def test_resuming_on_other_shards_is_refused(shards_dir, copy, tmp_path, capsys):
    assert train(shards_dir, tmp_path / "out", "verify_shards=sizes") == 0
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["writer"] = "another run"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert train(copy, tmp_path / "out", "verify_shards=sizes", "max_steps=2", resume=True) == 1
    refused(capsys, "trained on other shards")


def test_resume_without_a_checkpoint_is_refused(shards_dir, tmp_path, capsys):
    assert train(shards_dir, tmp_path / "out", "verify_shards=sizes", resume=True) == 1
    refused(capsys, "no checkpoint.pt")


def test_an_unknown_setting_is_a_config_error(shards_dir, tmp_path, capsys):
    assert train(shards_dir, tmp_path / "out", "model.n_layers=3") == 2
    refused(capsys, "n_layers")
