"""`corpus-pipeline run` killed with SIGKILL in the middle of dedup, then rerun: it continues from
dedup and its shards are byte-identical to those of a run that was never interrupted. And
conservation: every WARC record is in the shards or in exactly one `_rejected/` folder."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import run_and_kill_when
from pipeline_inputs import (
    rejected_rows,
    small_config,
    small_run_overrides,
    warc_record_count,
    write_demo_warc,
)
from stage_fixtures import final_corpus, stage_dir

from corpus_pipeline import exit_codes
from corpus_pipeline.cli import main
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline

pytestmark = pytest.mark.spark

SHARD_FILES = ("*.bin", "*.idx", "manifest.json", "tokenizer.json")


def _inputs(root: Path) -> list[Path]:
    # The same folder name in every run: it becomes the documents' `dump` column.
    return [write_demo_warc(root / "incoming" / "site.warc.gz", seed=0)]


def _shard_bytes(tokens: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for pattern in SHARD_FILES for p in sorted(tokens.glob(pattern))}


@pytest.fixture(scope="module")
def reference(spark, tmp_path_factory):
    """An uninterrupted run, in this process (it reuses the session's JVM)."""
    root = tmp_path_factory.mktemp("reference")
    inputs = _inputs(root)
    config = small_config(root, f"pipeline.inputs=[{root / 'incoming'}]")
    result = run_pipeline(RunPlan.from_config(config, "local"))
    assert result.status == "succeeded", result.record.data["reason"]
    return result, inputs


def _run_arguments(root: Path) -> list[str]:
    overrides = [*small_run_overrides(root), f"pipeline.inputs=[{root / 'incoming'}]"]
    return ["run", "--runner", "local"] + [arg for override in overrides for arg in ("--set", override)]


def test_kill_9_in_dedup_then_rerun_continues_and_gives_identical_shards(reference, tmp_path, capsys):
    result, _ = reference
    _inputs(tmp_path)
    run_dir = tmp_path / "runs" / "demo"
    arguments = _run_arguments(tmp_path)
    started = ".04_dedup.inprogress-*"
    run_and_kill_when(arguments, lambda: any(run_dir.glob(started)), started, tmp_path / "killed.log")

    assert not (stage_dir(run_dir, "dedup")).exists(), "the kill came after dedup finished"
    record = json.loads((run_dir / "run_record.json").read_text())
    assert (record["status"], record["current_step"]) == ("running", "dedup")

    # The rerun in this process: the same CLI, and the session's JVM instead of a second start.
    assert main(arguments) == exit_codes.SUCCESS
    record = json.loads((run_dir / "run_record.json").read_text())
    assert record["status"] == "succeeded" and record["attempt"] == 2
    statuses = {step["step"]: step["status"] for step in record["steps"]}
    assert [statuses[s] for s in ("extract", "langid", "normalize")] == ["reused"] * 3
    assert statuses["dedup"] == statuses["tokenize"] == "ran"
    assert "token shards:" in capsys.readouterr().out

    expected = _shard_bytes(result.context.tokens)
    assert any(name.endswith(".bin") for name in expected)
    assert _shard_bytes(run_dir / "tokens") == expected


def test_every_record_is_in_the_shards_or_rejected_with_a_reason(reference):
    result, inputs = reference
    run_dir = result.context.run_dir
    records = warc_record_count(inputs)
    manifest = json.loads((result.context.tokens / "manifest.json").read_text())
    corpus_rows = sum(pq.ParquetFile(p).metadata.num_rows for p in final_corpus(run_dir).glob("part-*.parquet"))
    rejected = rejected_rows(run_dir)

    assert manifest["documents"] == corpus_rows > 0
    assert records == manifest["documents"] + sum(rejected.values()), rejected
    # every stage that drops something says why: not_a_document (WARC requests), duplicates...
    assert {key.split("/")[0] for key in rejected} >= {
        stage_spec(name).directory for name in ("extract", "dedup", "quality")
    }
    assert all(reason for key in rejected for reason in key.split("/")[1:])
    conservation = result.record.data["conservation"]
    assert conservation["input_records"] == records
    assert conservation["output_documents"] == manifest["documents"]
    assert conservation["rejected"] == {
        stage: sum(n for key, n in rejected.items() if key.startswith(directory))
        for stage, directory in (
            ("extract", "01_"),
            ("langid", "02_"),
            ("normalize", "03_"),
            ("dedup", "04_"),
            ("pii", "05_"),
            ("quality", "06_"),
            ("decontaminate", "07_"),
            ("tokenize", "tokens"),
        )
    }
