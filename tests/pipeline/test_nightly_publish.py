"""The nightly refresh end to end on small demo-site crawls: a first night publishes, a rerun finds
nothing new, a failed gate publishes nothing and leaves CURRENT serving the last snapshot, and the
next passing night dedups against the index and publishes both nights."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pipeline_inputs import small_config, write_demo_warc
from stage_fixtures import stage_dir

from corpus_pipeline import exit_codes
from corpus_pipeline.dedup.index import published_folders
from corpus_pipeline.pipeline.nightly import NightlyLayout, run_nightly
from corpus_pipeline.pipeline.snapshots import current_snapshot as read_current
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark


def _night(data_root: Path, *overrides: str) -> int:
    return run_nightly(small_config(data_root, *overrides), "local", log=lambda line: None)


def _history(data_root: Path) -> list[dict]:
    return [json.loads(line) for line in NightlyLayout(data_root).history.read_text().splitlines()]


def _files(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def _rows(folder: Path | str) -> int:
    return sum(pq.ParquetFile(p).metadata.num_rows for p in Path(folder).glob("part-*.parquet"))


def current_snapshot(corpus: Path):
    return read_current(corpus, Storage())


@pytest.fixture(scope="module")
def first_night(spark, tmp_path_factory):
    data_root = tmp_path_factory.mktemp("nightly")
    write_demo_warc(data_root / "incoming" / "night-1.warc.gz", seed=0)
    return data_root, _night(data_root)


def test_a_first_night_publishes_and_a_rerun_finds_nothing_new(first_night):
    data_root, code = first_night
    assert code == exit_codes.SUCCESS
    layout = NightlyLayout(data_root)
    snapshot = current_snapshot(layout.corpus)
    assert (layout.corpus / "CURRENT").is_symlink()
    [increment] = snapshot.info["increments"]
    # A reader browses CURRENT: the night's documents and shards, linked into the snapshot.
    browsed = layout.corpus / "CURRENT" / "increments" / increment["run_id"]
    assert Path(increment["documents_dir"]).resolve() == (browsed / "documents").resolve()
    documents = _rows(browsed / "documents")
    manifest = json.loads((browsed / "tokens" / "manifest.json").read_text())
    assert snapshot.info["documents"] == documents == manifest["documents"] > 0
    assert Path(snapshot.tokenizer).read_bytes() == (browsed / "tokens" / "tokenizer.json").read_bytes()
    assert len(published_folders(layout.index, storage=Storage())) == 1
    assert [Path(i.split("|")[0]).name for i in snapshot.processed_inputs()] == ["night-1.warc.gz"]

    assert _night(data_root) == exit_codes.NOTHING_NEW
    assert current_snapshot(layout.corpus).name == snapshot.name
    assert [entry["status"] for entry in _history(data_root)[-2:]] == ["published", "nothing_new"]


def test_a_failed_gate_publishes_nothing_then_a_passing_night_publishes(first_night):
    data_root, _ = first_night
    layout = NightlyLayout(data_root)
    published = current_snapshot(layout.corpus)
    before = {"corpus": _files(layout.corpus), "index": _files(layout.index)}
    write_demo_warc(data_root / "incoming" / "night-2.warc.gz", seed=1)

    # No corpus has a duplicate ratio below 0: the Chinese gate fails.
    code = _night(data_root, "quality.gates.languages=[zh]", "quality.gates.max_duplicate_ratio=0.0")

    assert code == exit_codes.GATE_FAILED
    assert current_snapshot(layout.corpus).name == published.name
    assert {"corpus": _files(layout.corpus), "index": _files(layout.index)} == before
    last = _history(data_root)[-1]
    assert last["status"] == "gate_failed" and "zh duplicate_ratio" in last["reason"]
    run_dir = data_root / "runs" / last["run_id"]
    record = json.loads((run_dir / "run_record.json").read_text())
    assert record["status"] == "gate_failed"
    assert "quality gate failed: zh duplicate_ratio" in record["reason"]
    assert record["nightly"]["published"] is False and "CURRENT unchanged" in record["nightly"]["why"]
    assert {s["step"]: s["status"] for s in record["steps"]}["tokenize"] == "blocked"
    assert not (run_dir / "tokens").exists()

    assert _night(data_root, "nightly.keep_snapshots=1") == exit_codes.SUCCESS

    record = json.loads((run_dir / "run_record.json").read_text())
    statuses = {s["step"]: s["status"] for s in record["steps"]}
    assert statuses["dedup"] == "reused" and statuses["quality"] == "ran"  # the gates are quality config
    assert record["tokenizer"] == str(published.tokenizer)  # one vocabulary for every increment
    index_hits = [
        detail
        for part in (stage_dir(run_dir, "dedup") / "_rejected").glob("reason=*/*.parquet")
        for detail in pq.read_table(part, columns=["reject_detail"]).column(0).to_pylist()
        if detail.startswith("index:")
    ]
    assert index_hits, "night 2 repeats night 1's English articles: dropped as already published"
    snapshot = current_snapshot(layout.corpus)
    assert snapshot.info["previous"] == published.name
    runs = [increment["run_id"] for increment in snapshot.info["increments"]]
    assert runs == [published.info["increments"][0]["run_id"], last["run_id"]]
    assert snapshot.info["documents"] == sum(_rows(folder) for folder in snapshot.document_dirs())
    # keep_snapshots=1 still keeps the one before CURRENT: a reader may have resolved CURRENT just before.
    assert current_snapshot(layout.corpus).info["previous"] == published.name
    assert (layout.corpus / "snapshots" / published.name).is_dir()
    assert len(published_folders(layout.index, storage=Storage())) == 2
    assert record["nightly"] == {**record["nightly"], "published": True, "retired_snapshots": []}
