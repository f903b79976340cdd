"""Checkpoints are two files nothing can execute: a planted pickle is refused (exit 2) and its code
never runs; a .pt that is not the one its JSON names is refused; a kill between the two renames is
recovered. And an --out is never silently taken over: another run's is refused without --resume."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
import train_fixtures

from corpus_pipeline.cli import main
from corpus_pipeline.train.checkpoint import (
    CHECKPOINT_FILE,
    CHECKPOINT_META,
    CheckpointError,
    load_checkpoint,
    load_checkpoint_meta,
)

shards_dir = train_fixtures.shards_dir
tokenizer_file = train_fixtures.tokenizer_file
one_thread = train_fixtures.one_thread

pytestmark = pytest.mark.realdata

SMALL = ["model.seq_len=64", "tensorboard=false", "verify_shards=sizes", "eval_every=1000"]


def train(shards, out, *overrides: str, resume: bool = False) -> int:
    args = ["train", "--shards", str(shards), *(["--out", str(out)] if out else []), *(["--resume"] * resume)]
    return main([*args, *[arg for item in (*SMALL, *overrides) for arg in ("--set", item)]])


class CreatesAFile:
    """Unpickling this calls open(path, "w"): the file appears only if the pickle's code runs."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def sha_and_size(path) -> dict:
    import hashlib

    return {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "bytes": path.stat().st_size}


def test_a_planted_pickle_is_refused_and_never_runs(shards_dir, tmp_path, capsys):
    out, marker = tmp_path / "out", tmp_path / "the-pickle-ran"
    assert train(shards_dir, out, "max_steps=2") == 0
    torch.save({"model": CreatesAFile(marker)}, out / CHECKPOINT_FILE)
    # The worst case: the JSON forged to name the planted file, so only the safe unpickler stands between.
    meta = json.loads((out / CHECKPOINT_META).read_text())
    meta["tensors"] = sha_and_size(out / CHECKPOINT_FILE)
    (out / CHECKPOINT_META).write_text(json.dumps(meta))
    assert train(shards_dir, out, "max_steps=3", resume=True) == 2
    message = capsys.readouterr().err
    assert "holds more than tensors and is not loaded" in message and "open" in message, message
    assert not marker.exists()


def test_a_pickle_without_its_json_is_refused_and_never_runs(shards_dir, tmp_path, capsys):
    out, marker = tmp_path / "out", tmp_path / "the-pickle-ran"
    out.mkdir()
    torch.save({"model": CreatesAFile(marker)}, out / CHECKPOINT_FILE)
    assert train(shards_dir, out, "max_steps=1", resume=True) == 2
    assert f"has no {CHECKPOINT_META} beside it" in capsys.readouterr().err
    assert train(shards_dir, out, "max_steps=1") == 2  # nor is it overwritten by a new run
    assert not marker.exists()


def test_tensors_of_another_checkpoint_are_refused(shards_dir, tmp_path):
    assert train(shards_dir, tmp_path / "a", "max_steps=1") == 0
    assert train(shards_dir, tmp_path / "b", "max_steps=2") == 0
    shutil.copy(tmp_path / "a" / CHECKPOINT_FILE, tmp_path / "b" / CHECKPOINT_FILE)
    with pytest.raises(CheckpointError, match="a mismatched or altered pair"):
        load_checkpoint(tmp_path / "b")


def test_a_kill_between_the_two_renames_loads_the_new_checkpoint(shards_dir, tmp_path):
    assert train(shards_dir, tmp_path / "a", "max_steps=1") == 0
    assert train(shards_dir, tmp_path / "b", "max_steps=2") == 0
    # As the writer leaves it after renaming the JSON and before renaming the .pt:
    shutil.move(tmp_path / "b" / CHECKPOINT_FILE, tmp_path / "b" / f".{CHECKPOINT_FILE}.inprogress")
    shutil.copy(tmp_path / "a" / CHECKPOINT_FILE, tmp_path / "b" / CHECKPOINT_FILE)
    state = load_checkpoint(tmp_path / "b")
    written = torch.load(tmp_path / "b" / f".{CHECKPOINT_FILE}.inprogress", weights_only=True)["model"]
    assert state["step"] == 2 and all(torch.equal(state["model"][name], written[name]) for name in written)


def test_another_runs_out_is_refused_and_resume_continues_it(shards_dir, tmp_path, capsys):
    out = tmp_path / "out"
    assert train(shards_dir, out, "max_steps=2", "log_every=1") == 0
    metrics = (out / "metrics.jsonl").read_bytes()
    checkpoint = (out / CHECKPOINT_FILE).read_bytes()
    assert train(shards_dir, out, "max_steps=1") == 2
    message = capsys.readouterr().err
    assert "a checkpoint of step 2 and metrics.jsonl" in message and "--resume continues it" in message
    assert (out / "metrics.jsonl").read_bytes() == metrics and (out / CHECKPOINT_FILE).read_bytes() == checkpoint
    assert train(shards_dir, out, "max_steps=3", "log_every=1", resume=True) == 0
    assert load_checkpoint_meta(out)["step"] == 3


def test_a_run_directory_gives_the_shards_its_mix_stage_published(shards_dir, tmp_path, capsys):
    run = tmp_path / "runs" / "demo"
    shutil.copytree(shards_dir, run / "mix")
    (run / "mix" / "_SUCCESS").write_text("{}")
    assert train(run, None, "max_steps=1") == 0
    assert f"the shards the mix stage published: {run / 'mix'}" in capsys.readouterr().out
    assert load_checkpoint_meta(run / "train_tiny")["step"] == 1
    assert train(run, None, "max_steps=1") == 2  # the default --out now holds a model: not replaced
    assert "holds a checkpoint of step 1" in capsys.readouterr().err


def test_a_directory_without_shards_names_where_it_looked(tmp_path, capsys):
    (tmp_path / "run" / "tokens").mkdir(parents=True)
    assert train(tmp_path / "run", None, "max_steps=1") == 1
    message = capsys.readouterr().err
    for where in ("run/manifest.json", "run/mix/manifest.json with _SUCCESS (mix stage)", "run/tokens/manifest.json"):
        assert where in message, message
