"""Two nightly runs at once: the second exits at once with the lock code and changes nothing; a
holder killed with SIGKILL leaves no stale lock behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline_inputs import small_run_overrides, write_demo_warc

from corpus_pipeline import exit_codes
from corpus_pipeline.pipeline.nightly import NightlyLayout
from corpus_pipeline.storage.locks import exclusive_lock

LOCK_TIMEOUT_S = 120  # the first run takes the lock after its imports: ~2 s idle


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_an_overlapping_nightly_exits_with_the_lock_code_and_changes_nothing(tmp_path):
    data_root = tmp_path / "data"
    write_demo_warc(data_root / "incoming" / "night.warc.gz", seed=0)
    command = [sys.executable, "-m", "corpus_pipeline.cli", "nightly", "--runner", "local"]
    command += [arg for override in small_run_overrides(data_root) for arg in ("--set", override)]
    lock = NightlyLayout(data_root).lock
    with (tmp_path / "first.log").open("wb") as log:
        first = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while not (lock.exists() and lock.read_text().startswith(f"pid {first.pid},")):
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            assert time.monotonic() < deadline, "the first nightly never took the lock"
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGSTOP)  # frozen mid-run, lock held: nothing moves under the check
        before = _tree(data_root)

        second = subprocess.run(command, capture_output=True, text=True, timeout=LOCK_TIMEOUT_S)

        assert second.returncode == exit_codes.LOCKED == 75
        assert f"{lock} is held by another nightly run (pid {first.pid}, since" in second.stderr
        assert _tree(data_root) == before
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    with exclusive_lock(lock):  # the kernel dropped the dead holder's lock: the next night runs
        assert lock.read_text().startswith(f"pid {os.getpid()},")
