"""Training as users run it, in subprocesses: SIGTERM writes a checkpoint and --resume continues; two
ranks under torchrun (gloo) follow the loss curve of one process with the same global batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import train_fixtures
from conftest import PROJECT_ROOT

from corpus_pipeline.train.checkpoint import load_checkpoint
from corpus_pipeline.train.logs import read_metrics

shards_dir = train_fixtures.shards_dir
tokenizer_file = train_fixtures.tokenizer_file

pytestmark = [pytest.mark.realdata, pytest.mark.slow]  # torchrun children: 15-25 s each

SMALL = ["model.seq_len=64", "tensorboard=false", "verify_shards=sizes", "log_every=1", "eval_every=1000"]
BIN = Path(sys.executable).parent


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "corpus_pipeline.cli", *args]


def settings(*overrides: str) -> list[str]:
    return [arg for item in (*SMALL, *overrides) for arg in ("--set", item)]


def environment() -> dict:
    # One thread per process: two ranks x two threads on two cores would spin-wait each other.
    return {**os.environ, "OMP_NUM_THREADS": "1"}


def losses(out_dir: Path) -> list[float]:
    return [entry["loss"] for entry in read_metrics(out_dir) if "loss" in entry]


def test_sigterm_checkpoints_and_resume_finishes(shards_dir, tmp_path):
    command = cli("train", "--shards", str(shards_dir), "--out", str(tmp_path), *settings("max_steps=100000"))
    process = subprocess.Popen(command, env=environment(), stderr=subprocess.PIPE, text=True, cwd=PROJECT_ROOT)
    deadline = time.monotonic() + 120
    while not ((tmp_path / "metrics.jsonl").exists() and len(losses(tmp_path)) >= 3):
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "no training step within 120 s"
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 143, process.stderr.read()
    stopped_at = load_checkpoint(tmp_path)["step"]
    assert stopped_at >= 3 and json.loads((tmp_path / "run.json").read_text())["interrupted"]
    finish = cli(
        "train",
        "--shards",
        str(shards_dir),
        "--out",
        str(tmp_path),
        "--resume",
        *settings(f"max_steps={stopped_at + 2}"),
    )
    done = subprocess.run(finish, env=environment(), capture_output=True, text=True, cwd=PROJECT_ROOT)
    assert done.returncode == 0, done.stderr
    assert load_checkpoint(tmp_path)["step"] == stopped_at + 2
    assert len(losses(tmp_path)) == stopped_at + 2


def run_torchrun(shards_dir: Path, out: Path, processes: int, *overrides: str) -> subprocess.CompletedProcess:
    command = [
        str(BIN / "torchrun"),
        "--standalone",
        f"--nproc_per_node={processes}",
        "-m",
        "corpus_pipeline.cli",
        "train",
        "--shards",
        str(shards_dir),
        "--out",
        str(out),
        *settings(*overrides),
    ]
    return subprocess.run(command, env=environment(), capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300)


def train_one_process(shards_dir: Path, out: Path, *overrides: str) -> None:
    """The reference run of a multi-rank test: the same settings in one process."""
    command = cli("train", "--shards", str(shards_dir), "--out", str(out), *settings(*overrides))
    single = subprocess.run(command, env=environment(), capture_output=True, text=True, cwd=PROJECT_ROOT)
    assert single.returncode == 0, single.stderr[-2000:]


@pytest.mark.parametrize("parallel", ["ddp", "fsdp"])
def test_two_ranks_follow_the_loss_curve_of_one_process_with_the_same_global_batch(shards_dir, tmp_path, parallel):
    train_one_process(shards_dir, tmp_path / "one", "max_steps=8", "micro_batch_size=8")
    pair = run_torchrun(shards_dir, tmp_path / "two", 2, "max_steps=8", "micro_batch_size=4", f"parallel={parallel}")
    assert pair.returncode == 0, pair.stderr[-3000:]
    one, two = losses(tmp_path / "one"), losses(tmp_path / "two")
    assert len(one) == len(two) == 8
    assert two == pytest.approx(one, rel=1e-4), f"one process {one}\ntwo ranks   {two}"
