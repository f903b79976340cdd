"""A run over several sources killed with SIGKILL while its last source is being read, then rerun:
the finished sources are reused, the killed one runs again, and the mix shards and
documents.parquet are byte-identical to those of a run that was never interrupted."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from multi_source_inputs import multi_source_overrides

from corpus_pipeline.cli import main
from corpus_pipeline.pipeline import exit_codes

pytestmark = pytest.mark.spark  # dedup's decisions are Spark jobs whatever the runner

MIX_FILES = ("*.bin", "*.idx", "manifest.json", "documents.parquet")
# Three sources before the last one starts: ~20 s idle, minutes on a busy machine.
LAST_SOURCE_TIMEOUT_S = 300


def _mix_bytes(mix: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for pattern in MIX_FILES for p in sorted(mix.glob(pattern))}


def _kill_when_reading(command: list[str], work_glob: str, source_dir: Path, log: Path) -> None:
    with log.open("wb") as out:
        # Its own process group: SIGKILL takes the driver and anything it started down together.
        driver = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + LAST_SOURCE_TIMEOUT_S
        while not any(source_dir.glob(work_glob)):
            assert driver.poll() is None, f"the run ended (exit {driver.returncode}) first: {log.read_text()}"
            assert time.monotonic() < deadline, f"{work_glob} did not appear in {LAST_SOURCE_TIMEOUT_S} s"
            time.sleep(0.05)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()


def test_kill_9_in_the_last_source_then_rerun_reuses_the_others_and_gives_identical_mix(tmp_path, spark):
    arguments = ["run", "--runner", "local"]
    arguments += [arg for override in multi_source_overrides(tmp_path) for arg in ("--set", override)]
    run_dir = tmp_path / "runs" / "demo"
    wiki = run_dir / "sources" / "wiki"
    command = [sys.executable, "-m", "corpus_pipeline.cli", *arguments]
    _kill_when_reading(command, ".01_ingest.inprogress-*", wiki, tmp_path / "killed.log")
    assert not (wiki / "01_ingest").exists(), "the kill came after the wiki source finished"

    # The rerun in this process: the same CLI, and the session's JVM instead of a second start.
    assert main(arguments) == exit_codes.SUCCESS
    record = json.loads((run_dir / "run_record.json").read_text())
    assert record["status"] == "succeeded" and record["attempt"] == 2
    statuses = {(step.get("source"), step["step"]): step["status"] for step in record["steps"]}
    assert [statuses[(name, "normalize")] for name in ("web", "news", "mirror")] == ["reused"] * 3
    assert statuses[("wiki", "ingest")] == statuses[(None, "dedup")] == statuses[(None, "mix")] == "ran"
    resumed = _mix_bytes(run_dir / "mix")
    assert any(name.endswith(".bin") for name in resumed) and "documents.parquet" in resumed

    # The run never interrupted, over the same inputs at the same paths.
    shutil.rmtree(tmp_path / "runs")
    assert main(arguments) == exit_codes.SUCCESS
    assert _mix_bytes(run_dir / "mix") == resumed
