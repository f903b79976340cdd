"""tree_usage.SeenProcessesCpu: the CPU of a process that no one's account holds (its parent ignores
SIGCHLD, as pyspark's daemon does, so the kernel reaps it) is counted, and what the processes had
used before it started is not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from tree_usage import SeenProcessesCpu  # noqa: E402

BURN = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass"
# A parent that ignores SIGCHLD starts a child burning 0.8 CPU s, then outlives it.
IGNORING = (
    "import signal, subprocess, sys, time; signal.signal(signal.SIGCHLD, signal.SIG_IGN); "
    f"subprocess.Popen([sys.executable, '-c', {BURN.format(seconds=0.8)!r}]); time.sleep(2.5)"
)


def test_cpu_of_a_process_the_kernel_reaped_is_counted():
    parent = subprocess.Popen([sys.executable, "-c", IGNORING])
    with SeenProcessesCpu([parent.pid]) as seen:
        parent.wait()
    # 0.8 s less the last sampling interval (0.2 s) at worst, plus two interpreters' start
    assert 0.55 <= seen.cpu_s < 2.0


def test_what_was_used_before_it_started_is_not_counted():
    code = BURN.format(seconds=0.8) + "\nprint('burnt', flush=True)\ntime.sleep(1.5)"
    busy = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert busy.stdout.readline() == "burnt\n"
        with SeenProcessesCpu([busy.pid]) as seen:
            busy.wait()
    finally:
        busy.kill()
        busy.wait()
        busy.stdout.close()
    assert seen.cpu_s < 0.3
