"""The pieces of `run` and `nightly` that need no Spark: retention, seams, inputs, config, failures."""

from __future__ import annotations

import json
import os

import pytest

from corpus_pipeline import exit_codes
from corpus_pipeline.cli import main
from corpus_pipeline.config import ConfigError, load_config
from corpus_pipeline.engine.exec.task_plan import file_identity
from corpus_pipeline.pipeline.conservation import DocumentsLostError, check_seam
from corpus_pipeline.pipeline.nightly import NightlyLayout, new_inputs, run_nightly
from corpus_pipeline.pipeline.snapshots import CURRENT, SNAPSHOTS, current_snapshot, retire_old_snapshots
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import write_json


def test_retention_keeps_currents_line_and_never_fewer_than_two(tmp_path):
    storage = Storage()
    names = ["20240101T020000Z-a", "20240102T020000Z-b", "20240103T020000Z-c", "20240104T020000Z-d"]
    for previous, name in zip([None, *names], names, strict=False):
        (tmp_path / SNAPSHOTS / name).mkdir(parents=True)  # its folder of links
        write_json(tmp_path / SNAPSHOTS / f"{name}.json", {"name": name, "previous": previous}, storage)
    (tmp_path / SNAPSHOTS / "20240105T020000Z-orphan.json").write_text("{}")  # a publish that crashed
    (tmp_path / SNAPSHOTS / "my backup").mkdir()  # a user's folder: not a snapshot of ours, never deleted
    (tmp_path / SNAPSHOTS / "my backup" / "notes.txt").write_text("mine")
    storage.write_pointer(str(tmp_path / CURRENT), f"{SNAPSHOTS}/{names[2]}")  # an operator rolled back to c
    storage.write_pointer(str(tmp_path / CURRENT), f"{SNAPSHOTS}/{names[2]}")  # again: no temporary link left

    assert retire_old_snapshots(tmp_path, keep=1, storage=storage) == [names[0], names[3], "20240105T020000Z-orphan"]
    assert sorted(p.name for p in (tmp_path / SNAPSHOTS).iterdir()) == sorted(
        [names[1], f"{names[1]}.json", names[2], f"{names[2]}.json", "my backup"]
    )
    assert (tmp_path / SNAPSHOTS / "my backup" / "notes.txt").read_text() == "mine"
    assert os.readlink(tmp_path / CURRENT) == f"{SNAPSHOTS}/{names[2]}"
    assert current_snapshot(tmp_path, storage).name == names[2]
    assert sorted(p.name for p in tmp_path.iterdir()) == [CURRENT, SNAPSHOTS]


def test_a_stage_that_reads_other_than_the_previous_one_kept_stops_the_run():
    normalize, dedup = StageStats("normalize", docs_in=70, kept=62), StageStats("dedup", docs_in=70, kept=50)
    with pytest.raises(DocumentsLostError, match="dedup read 70 documents but normalize kept 62"):
        check_seam(normalize, dedup)
    check_seam(normalize, StageStats("dedup", docs_in=62, kept=50))


def test_new_inputs_are_the_unpublished_present_and_rewritten_files(tmp_path):
    published, rewritten, fresh = (tmp_path / f"{n}.warc.gz" for n in ("published", "rewritten", "fresh"))
    for path in (published, rewritten, fresh):
        path.write_bytes(b"x")
    processed = {file_identity(str(published), storage=Storage()), file_identity(str(rewritten), storage=Storage())}
    rewritten.write_bytes(b"xy")  # another size: the crawler rewrote it
    vanished = str(tmp_path / "vanished.warc.gz")  # listed, then deleted before it was looked at

    found = new_inputs([str(published), str(rewritten), str(fresh), vanished], processed, storage=Storage())

    assert sorted(found.values()) == sorted([str(rewritten), str(fresh)])


def test_inputs_and_seeds_together_are_refused_when_the_config_loads():
    with pytest.raises(ConfigError, match="pipeline.inputs .* or pipeline.seeds"):
        load_config(None, ["pipeline.inputs=[a.warc.gz]", "pipeline.seeds=seeds.txt"])


def test_a_run_with_nothing_to_read_is_refused_before_any_step(tmp_path, capsys):
    code = main(["run", "--runner", "local", "--set", f"data_root={tmp_path}"])

    assert code == exit_codes.USAGE
    assert "nothing to run on: set pipeline.inputs" in capsys.readouterr().err
    assert not (tmp_path / "runs" / "demo" / "run_record.json").exists()  # no step started


def test_a_nightly_refused_exits_2_and_its_history_line_says_why(tmp_path):
    config = load_config(None, [f"data_root={tmp_path}"])  # no <data_root>/incoming: a deployment mistake
    assert run_nightly(config, "local", log=lambda line: None) == exit_codes.USAGE
    [entry] = [json.loads(line) for line in NightlyLayout(tmp_path).history.read_text().splitlines()]
    assert entry["status"] == "refused" and entry["exit_code"] == exit_codes.USAGE
    assert entry["reason"] == f"FileNotFoundError: input {tmp_path / 'incoming'} does not exist"
    assert not (tmp_path / "corpus").exists()
