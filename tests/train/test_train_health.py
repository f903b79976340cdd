"""The run watches itself, on CPU with the tiny preset and faults planted by these tests alone (a
monkeypatched loader, schedule or model; nothing in the trainer plants a fault): a batch of random
targets or a learning rate x 1,000 is caught within 2 steps, a NaN is skipped and recorded, a rollback
ends where a clean run ends, a stop leaves the last good checkpoint, a periodic restart resumes exactly."""

from __future__ import annotations

import math

import pytest
import torch
import train_fixtures
from train_fixtures import tiny_config

import corpus_pipeline.train.train as train_module
from corpus_pipeline.train.checkpoint import load_checkpoint, load_checkpoint_meta
from corpus_pipeline.train.data import BatchLoader
from corpus_pipeline.train.distributed import setup_distributed
from corpus_pipeline.train.events import read_events
from corpus_pipeline.train.logs import read_metrics
from corpus_pipeline.train.model import GPT
from corpus_pipeline.train.train import train

shards_dir = train_fixtures.shards_dir
tokenizer_file = train_fixtures.tokenizer_file
one_thread = train_fixtures.one_thread

pytestmark = pytest.mark.realdata

# lr 1e-2 (the tiny preset's) so that the loss has fallen to ~4.3 nats by step 25, far below what
# random targets cost; min_history 10 so that spikes are judged from step 11.
BASE = ("log_every=1", "eval_every=1000", "lr=1e-2", "warmup_steps=5", "health.min_history=10")


def random_targets_at(monkeypatch, step: int) -> None:
    """The batch of optimizer step `step` (1-based) gets uniformly random targets."""
    original, calls = BatchLoader.next_step, {"n": 0}

    def next_step(loader):
        calls["n"] += 1
        batches = original(loader)
        if calls["n"] == step:
            generator = torch.Generator().manual_seed(0)
            vocab = loader.shards.vocab_size
            batches = [(x, torch.randint(0, vocab, y.shape, generator=generator)) for x, y in batches]
        return batches

    monkeypatch.setattr(BatchLoader, "next_step", next_step)


def learning_rate_x1000_at(monkeypatch, step: int, times: int = 1) -> None:
    """Optimizer step `step` runs at 1,000 x its learning rate, the first `times` times it runs (a
    rollback replays it)."""
    schedule, fired = train_module.learning_rate, {"n": 0}

    def learning_rate(s, config):
        spike = s + 1 == step and fired["n"] < times
        fired["n"] += spike
        return schedule(s, config) * (1000 if spike else 1)

    monkeypatch.setattr(train_module, "learning_rate", learning_rate)


def step_entries(out) -> list[dict]:
    return [entry for entry in read_metrics(out) if "loss" in entry]


def events_of(out, kind: str) -> list[dict]:
    return [event for event in read_events(out) if event["kind"] == kind]


def test_a_clean_run_raises_no_event(shards_dir, tmp_path):
    train(shards_dir, tmp_path, tiny_config("max_steps=40", *BASE), setup_distributed("cpu"))
    assert read_events(tmp_path) == []
    last = step_entries(tmp_path)[-1]
    assert last["skipped_steps"] == 0 and last["grad_norm_median"] > 0 and last["loss_std"] > 0


def test_a_batch_of_random_targets_is_caught_at_its_step_and_skipped(shards_dir, tmp_path, monkeypatch):
    random_targets_at(monkeypatch, 25)
    train(shards_dir, tmp_path, tiny_config("max_steps=28", *BASE), setup_distributed("cpu"))
    spikes = events_of(tmp_path, "loss_spike")
    assert [event["step"] for event in spikes] == [25], read_events(tmp_path)
    assert spikes[0]["action"] == "skip" and spikes[0]["update_applied"] is False
    assert spikes[0]["loss"] > 1.5 * spikes[0]["loss_median"]
    assert spikes[0]["batch"] == {"epoch": 0, "position": 24 * 8, "seed": 1337, "window": 65}
    assert step_entries(tmp_path)[-1]["skipped_steps"] == 1


def test_a_learning_rate_x1000_is_caught_within_2_steps(shards_dir, tmp_path, monkeypatch):
    learning_rate_x1000_at(monkeypatch, 25)
    train(shards_dir, tmp_path, tiny_config("max_steps=28", "health.on_spike=warn", *BASE), setup_distributed("cpu"))
    first = min(event["step"] for event in read_events(tmp_path) if event["kind"].endswith("spike"))
    assert 25 < first <= 27


def test_a_nan_is_skipped_recorded_and_the_weights_stay_finite(shards_dir, tmp_path, monkeypatch):
    forward, calls = GPT.forward, {"n": 0}

    def forward_with_a_nan(model, inputs, targets=None):
        logits, loss = forward(model, inputs, targets)
        if targets is not None:
            calls["n"] += 1
            loss = loss * math.nan if calls["n"] == 5 else loss
        return logits, loss

    monkeypatch.setattr(GPT, "forward", forward_with_a_nan)
    result = train(shards_dir, tmp_path, tiny_config("max_steps=8", *BASE), setup_distributed("cpu"))
    [event] = read_events(tmp_path)
    assert (event["kind"], event["step"], event["action"], event["update_applied"]) == ("non_finite", 5, "skip", False)
    model = load_checkpoint(tmp_path)["model"]
    assert all(torch.isfinite(tensor).all() for tensor in model.values())
    assert math.isfinite(result.val_loss)


def test_a_rollback_ends_within_2_percent_of_the_clean_runs_loss(shards_dir, tmp_path, monkeypatch):
    settings = ("max_steps=60", "eval_every=60", "checkpoint_every=10", *BASE)
    clean = train(shards_dir, tmp_path / "clean", tiny_config(*settings), setup_distributed("cpu"))
    learning_rate_x1000_at(monkeypatch, 25)
    rollback = ("health.on_spike=rollback", "health.rollback_skip_batches=3", "health.rollback_lr_factor=0.5")
    rolled = train(shards_dir, tmp_path / "rolled", tiny_config(*settings, *rollback), setup_distributed("cpu"))
    [event] = events_of(tmp_path / "rolled", "rollback")
    assert event["to_step"] == 20 and event["lr_scale"] == 0.5
    skip = event["data_skip"]
    assert skip["to"]["position"] - skip["from"]["position"] == 3 * 8  # three batches of 8 windows
    assert load_checkpoint_meta(tmp_path / "rolled")["health"]["data_skips"] == [skip]
    steps = [entry["step"] for entry in step_entries(tmp_path / "rolled")]
    assert steps == list(range(1, 61))  # the abandoned steps are gone from the curve
    assert rolled.val_loss == pytest.approx(clean.val_loss, rel=0.02)


def test_a_fault_that_returns_after_max_rollbacks_stops_with_the_last_good_checkpoint(
    shards_dir, tmp_path, monkeypatch
):
    learning_rate_x1000_at(monkeypatch, 25, times=3)
    stop = (
        "health.on_spike=rollback",
        "health.max_rollbacks=2",
        "health.rollback_skip_batches=0",
        "checkpoint_every=10",
    )
    result = train(shards_dir, tmp_path, tiny_config("max_steps=40", *stop, *BASE), setup_distributed("cpu"))
    assert result.interrupted and result.stopped_by == "health" and result.step == 26
    kinds = [event["kind"] for event in read_events(tmp_path) if event["kind"] in ("rollback", "stop")]
    assert kinds == ["rollback", "rollback", "stop"]
    assert load_checkpoint_meta(tmp_path)["step"] == 20


def test_a_periodic_restart_checkpoints_and_resumes_exactly(shards_dir, tmp_path):
    settings = ("max_steps=6", "checkpoint_every=100", *BASE)
    train(shards_dir, tmp_path / "whole", tiny_config(*settings), setup_distributed("cpu"))
    restart = tiny_config(*settings, "restart_every_hours=1e-9")  # due after the first step
    stopped = train(shards_dir, tmp_path / "parts", restart, setup_distributed("cpu"))
    assert (stopped.stopped_by, stopped.step) == ("restart", 1)
    train(shards_dir, tmp_path / "parts", tiny_config(*settings), setup_distributed("cpu"), resume=True)

    losses = [[entry["loss"] for entry in step_entries(tmp_path / run)] for run in ("parts", "whole")]
    assert losses[0] == losses[1]


def test_update_ratios_are_logged_and_warned_outside_the_band(shards_dir, tmp_path):
    band = ("health.every=2", "health.ratio_patience=2", "health.ratio_band=[1e-9,1e-8]")
    train(shards_dir, tmp_path, tiny_config("max_steps=4", *band, *BASE), setup_distributed("cpu"))
    ratios = [entry for entry in read_metrics(tmp_path) if "update_ratio/blocks.0" in entry]
    assert [entry["step"] for entry in ratios] == [2, 4]
    assert 1e-4 < ratios[0]["update_ratio/blocks.0"] < 1.0
    warned = events_of(tmp_path, "update_ratio")
    assert {event["layer"] for event in warned} == {"embedding", "blocks.0", "blocks.1"}
    assert {event["step"] for event in warned} == {4}
