"""The training loop on CPU, in this process: the loss falls on real shards, and resuming from a
checkpoint continues exactly where an uninterrupted run would be."""

from __future__ import annotations

import shutil

import pytest
import torch
import train_fixtures
from train_fixtures import tiny_config

from corpus_pipeline.train.checkpoint import load_checkpoint
from corpus_pipeline.train.distributed import setup_distributed
from corpus_pipeline.train.logs import read_metrics
from corpus_pipeline.train.train import Trainer, finished_run, train

shards_dir = train_fixtures.shards_dir
tokenizer_file = train_fixtures.tokenizer_file
one_thread = train_fixtures.one_thread

pytestmark = pytest.mark.realdata


def losses(out_dir) -> dict[int, float]:
    return {entry["step"]: entry["loss"] for entry in read_metrics(out_dir) if "loss" in entry}


@pytest.mark.slow  # 200 steps: ~60 s on 2 shared cores
def test_the_tiny_model_loss_falls_by_30_percent_within_200_steps(shards_dir, tmp_path):
    config = tiny_config("max_steps=200", "log_every=1", "eval_every=200", "lr=1e-2", "micro_batch_size=32")
    result = train(shards_dir, tmp_path, config, setup_distributed("cpu"))
    curve = losses(tmp_path)
    first, last = curve[1], sum(curve[s] for s in range(191, 201)) / 10
    assert last <= 0.7 * first, f"loss {first:.3f} -> {last:.3f} (mean of the last 10 steps)"
    assert result.val_loss < 0.75 * first
    assert result.tokens_seen == 200 * 32 * 64


def test_stop_and_resume_gives_the_losses_of_an_uninterrupted_run(shards_dir, tmp_path, monkeypatch):
    config = tiny_config("max_steps=12", "log_every=1", "eval_every=6", "checkpoint_every=100", "warmup_steps=3")
    train(shards_dir, tmp_path / "whole", config, setup_distributed("cpu"))
    step = Trainer.train_step

    def stop_after_step_5(trainer):  # as SIGTERM would: the trainer checkpoints and leaves
        result = step(trainer)
        trainer.stop_requested = trainer.step == 5
        return result

    monkeypatch.setattr(Trainer, "train_step", stop_after_step_5)
    stopped = train(shards_dir, tmp_path / "parts", config, setup_distributed("cpu"))
    assert stopped.interrupted and load_checkpoint(tmp_path / "parts")["step"] == 5
    monkeypatch.setattr(Trainer, "train_step", step)
    train(shards_dir, tmp_path / "parts", config, setup_distributed("cpu"), resume=True)
    assert losses(tmp_path / "parts") == losses(tmp_path / "whole")
    whole = load_checkpoint(tmp_path / "whole")["model"]
    parts = load_checkpoint(tmp_path / "parts")["model"]
    assert all(torch.equal(whole[name], parts[name]) for name in whole)


def test_a_resumed_run_forgets_the_steps_logged_after_its_checkpoint(shards_dir, tmp_path):
    settings = ("max_steps=4", "log_every=1", "checkpoint_every=2", "eval_every=100")
    train(shards_dir, tmp_path / "a", tiny_config(*settings), setup_distributed("cpu"))
    shutil.copy(tmp_path / "a" / "metrics.jsonl", tmp_path / "metrics-after-4")
    # Pretend the run died after logging step 4 but before its step-4 checkpoint: roll back to step 2.
    train(shards_dir, tmp_path / "b", tiny_config(*settings, "max_steps=2"), setup_distributed("cpu"))
    shutil.copy(tmp_path / "metrics-after-4", tmp_path / "b" / "metrics.jsonl")
    train(shards_dir, tmp_path / "b", tiny_config(*settings), setup_distributed("cpu"), resume=True)
    steps = [entry["step"] for entry in read_metrics(tmp_path / "b") if "loss" in entry]
    assert steps == [1, 2, 3, 4]


def test_bf16_autocast_checkpointing_and_experts_train_together(shards_dir, tmp_path):
    config = tiny_config(
        "max_steps=3",
        "log_every=1",
        "eval_every=3",
        "precision=bf16",
        "activation_checkpointing=true",
        "model.moe_experts=4",
        "model.mlp=geglu",
        "grad_accum_steps=2",
    )
    result = train(shards_dir, tmp_path, config, setup_distributed("cpu"))
    curve = losses(tmp_path)
    assert sorted(curve) == [1, 2, 3] and all(5.0 < loss < 8.0 for loss in curve.values())
    assert result.val_loss is not None and result.tokens_seen == 3 * 2 * 8 * 64


def test_a_finished_run_is_recognised_only_for_its_config_and_shards(shards_dir, tmp_path):
    config = tiny_config("max_steps=2", "eval_every=2")
    train(shards_dir, tmp_path, config, setup_distributed("cpu"))
    assert finished_run(tmp_path, shards_dir, config)["step"] == 2
    assert finished_run(tmp_path, shards_dir, tiny_config("max_steps=3", "eval_every=2")) is None
    assert finished_run(tmp_path / "elsewhere", shards_dir, config) is None
