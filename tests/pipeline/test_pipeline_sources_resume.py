"""A run over several sources killed with SIGKILL while its last source is being read, then rerun:
the finished sources are reused, the killed one runs again, and the mix shards and
documents.parquet are byte-identical to those of a run that was never interrupted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_and_kill_when
from multi_source_inputs import multi_source_overrides
from stage_fixtures import stage_dir

from corpus_pipeline import exit_codes
from corpus_pipeline.cli import main

pytestmark = pytest.mark.spark  # dedup's decisions are Spark jobs whatever the runner

MIX_FILES = ("*.bin", "*.idx", "manifest.json", "documents.parquet")


def _mix_bytes(mix: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for pattern in MIX_FILES for p in sorted(mix.glob(pattern))}


def test_kill_9_in_the_last_source_then_rerun_reuses_the_others_and_gives_identical_mix(tmp_path, spark):
    arguments = ["run", "--runner", "local"]
    arguments += [arg for override in multi_source_overrides(tmp_path) for arg in ("--set", override)]
    run_dir = tmp_path / "runs" / "demo"
    wiki = run_dir / "sources" / "wiki"
    started = ".01_ingest.inprogress-*"
    run_and_kill_when(arguments, lambda: any(wiki.glob(started)), started, tmp_path / "killed.log")
    assert not (stage_dir(wiki, "ingest")).exists(), "the kill came after the wiki source finished"

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
