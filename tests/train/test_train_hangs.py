"""What ends a job that would otherwise hang or fail silently, in child processes: a stalled data
loader (planted by the child's own script, never reachable from the CLI) ends within timeout_s with a
checkpoint on disk and a message naming the rank and the step; a rank killed mid-run ends the job,
which resumes to the unbroken loss; bf16 gradient compression under DDP
(two gloo ranks) trains to a loss close to fp32's. CUDA memory creep is judged from the allocator's peaks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
import train_fixtures
from conftest import PROJECT_ROOT
from test_train_processes import BIN, environment, losses, run_torchrun, settings, train_one_process

from corpus_pipeline.train.checkpoint import load_checkpoint_meta
from corpus_pipeline.train.events import EventLog, read_events
from corpus_pipeline.train.health import MemoryWatch
from corpus_pipeline.train.watchdog import EXIT_HUNG

shards_dir = train_fixtures.shards_dir
tokenizer_file = train_fixtures.tokenizer_file

# The child trains in-process with BatchLoader.next_step replaced by one that never returns at its
# 4th call: what a hung network filesystem looks like from the trainer.
STALLING_CHILD = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from corpus_pipeline.train.config import load_train_config
    from corpus_pipeline.train.data import BatchLoader
    from corpus_pipeline.train.distributed import setup_distributed
    from corpus_pipeline.train.train import train

    original, calls = BatchLoader.next_step, []

    def next_step(loader):
        calls.append(1)
        if len(calls) == 4:
            threading.Event().wait()
        return original(loader)

    BatchLoader.next_step = next_step
    overrides = ["model.seq_len=64", "tensorboard=false", "verify_shards=sizes", "timeout_s=2", "max_steps=10"]
    train(Path(sys.argv[1]), Path(sys.argv[2]), load_train_config(None, overrides), setup_distributed("cpu"))
    """
)


@pytest.mark.realdata
@pytest.mark.slow  # a child process: ~8 s
def test_a_stalled_data_loader_ends_within_timeout_with_a_checkpoint(shards_dir, tmp_path):
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-c", STALLING_CHILD, str(shards_dir), str(tmp_path)],
        env=environment(),
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=120,
    )
    assert child.returncode == EXIT_HUNG, child.stderr[-2000:]
    assert "rank 0 waited more than 2 s for the batch of step 4" in child.stderr
    [event] = read_events(tmp_path)
    assert (event["kind"], event["step"], event["rank"]) == ("data_stall", 3, 0)
    meta = load_checkpoint_meta(tmp_path)  # the state after step 3, at the data position before step 4's batch
    assert meta["step"] == 3 and meta["sampler"]["position"] == 3 * 8
    assert time.monotonic() - started < 60


@pytest.mark.realdata
@pytest.mark.slow  # two torchrun jobs: ~40 s
def test_bf16_gradient_compression_trains_close_to_fp32(shards_dir, tmp_path):
    common = ("max_steps=8", "micro_batch_size=4", "lr=1e-2", "warmup_steps=2")
    fp32 = run_torchrun(shards_dir, tmp_path / "fp32", 2, *common)
    assert fp32.returncode == 0, fp32.stderr[-3000:]
    bf16 = run_torchrun(shards_dir, tmp_path / "bf16", 2, *common, "ddp_comm_hook=bf16")
    assert bf16.returncode == 0, bf16.stderr[-3000:]
    exact, compressed = losses(tmp_path / "fp32"), losses(tmp_path / "bf16")
    assert compressed != exact  # the hook was in the path
    assert compressed == pytest.approx(exact, rel=2e-2)


def test_memory_creep_is_a_warning_once_per_new_high(tmp_path, monkeypatch):
    peaks = iter([10.0, 10.5, 11.5, 11.6, 13.0])
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda device: 2**30)
    monkeypatch.setattr(torch.cuda, "max_memory_reserved", lambda device: next(peaks) * 2**30)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda device: None)
    watch = MemoryWatch(torch.device("cuda", 0), 10.0, EventLog(tmp_path, enabled=True))
    readings = [watch.interval(step) for step in range(5)]
    assert readings[2] == {"mem_allocated_peak_gib": 1.0, "mem_reserved_peak_gib": 11.5}
    assert [(event["step"], event["kind"]) for event in read_events(tmp_path)] == [
        (2, "memory_creep"),
        (4, "memory_creep"),
    ]


def worker_of_rank(torchrun: subprocess.Popen, rank: int) -> int:
    """The pid of torchrun's worker process of `rank` (read from the children's environments)."""
    children = Path(f"/proc/{torchrun.pid}/task/{torchrun.pid}/children").read_text().split()
    for pid in children:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        if f"RANK={rank}".encode() in environ:
            return int(pid)
    raise AssertionError(f"no worker of rank {rank} among {children}")


@pytest.mark.realdata
@pytest.mark.slow  # one process and two torchrun jobs: ~45 s
def test_a_rank_killed_mid_run_ends_the_job_and_the_same_line_resumes_to_the_unbroken_loss(shards_dir, tmp_path):
    """torchrun --max-restarts would rerun the line itself; on CPU (gloo) torch 2.13's restarted workers
    hang in init_process_group (a plain two-rank script does the same), so the test reruns it."""
    common = ("max_steps=40", "checkpoint_every=3")  # 40: the kill lands well before the end
    train_one_process(shards_dir, tmp_path / "one", *common, "micro_batch_size=8")
    out = tmp_path / "two"
    command = [str(BIN / "torchrun"), "--standalone", "--nproc_per_node=2", "-m", "corpus_pipeline.cli", "train"]
    command += [
        "--shards",
        str(shards_dir),
        "--out",
        str(out),
        "--resume",
        "auto",
        *settings(*common, "micro_batch_size=4"),
    ]
    job = subprocess.Popen(command, env=environment(), stderr=subprocess.PIPE, text=True, cwd=PROJECT_ROOT)
    deadline = time.monotonic() + 120
    while not ((out / "metrics.jsonl").exists() and len(losses(out)) >= 5):
        assert job.poll() is None and time.monotonic() < deadline, "the job did not reach step 5"
        time.sleep(0.1)
    os.kill(worker_of_rank(job, 1), signal.SIGKILL)
    _, stderr = job.communicate(timeout=120)
    assert job.returncode != 0 and "Signal 9 (SIGKILL) received" in stderr  # torchrun ended the survivor
    assert 3 <= load_checkpoint_meta(out)["step"] < 40
    again = subprocess.run(command, env=environment(), capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert losses(out) == pytest.approx(losses(tmp_path / "one"), rel=1e-4)
