"""Never touch what corpus_pipeline did not write: every refused output is left byte for byte as it
was, the command exits 2 naming one thing found there, and a stage directory of ours is still
replaced after a config change."""

from __future__ import annotations

import json
import os

import pytest
from stage_fixtures import stage_dir
from store_inputs import ingest, picture, write_dataset

from corpus_pipeline.cli import EXIT_OK, EXIT_USAGE, main


@pytest.fixture
def dataset(tmp_path):
    return write_dataset(tmp_path / "in" / "a.jsonl")


def test_a_folder_with_a_users_files_is_refused_and_left_as_it_was(tmp_path, dataset, capsys):
    precious = tmp_path / "precious"
    (precious / "sub").mkdir(parents=True)
    (precious / "notes.txt").write_text("my notes\n")
    before = picture(tmp_path)
    assert ingest([dataset], precious) == EXIT_USAGE
    error = capsys.readouterr().err
    assert "notes.txt" in error and "did not write" in error
    assert picture(tmp_path) == before


def test_a_folder_holding_only_an_empty_folder_of_the_user_is_refused(tmp_path, dataset, capsys):
    (tmp_path / "out" / "empty").mkdir(parents=True)
    before = picture(tmp_path)
    assert ingest([dataset], tmp_path / "out") == EXIT_USAGE
    assert "empty/" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_a_file_as_output_is_refused_and_not_moved(tmp_path, dataset, capsys):
    target = tmp_path / "report.txt"
    target.write_text("keep me\n")
    before = picture(tmp_path)
    assert ingest([dataset], target) == EXIT_USAGE
    assert "is a file" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_a_device_like_output_is_refused(tmp_path, dataset, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # a special file as /dev/null is one; /dev itself is never touched by a test
    before = picture(tmp_path)
    assert ingest([dataset], fifo) == EXIT_USAGE
    assert "device or special file" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_a_spark_output_with_an_empty_success_file_is_not_taken_for_ours(tmp_path, dataset, capsys):
    spark_output = tmp_path / "spark_out"
    spark_output.mkdir()
    (spark_output / "_SUCCESS").write_bytes(b"")
    (spark_output / "part-00000.parquet").write_bytes(b"PAR1 the user's data")
    before = picture(tmp_path)
    assert ingest([dataset], spark_output) == EXIT_USAGE
    assert "part-00000.parquet" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_a_file_a_user_added_to_our_stage_directory_is_never_deleted(tmp_path, dataset, capsys):
    output = tmp_path / "out"
    assert ingest([dataset], output) == EXIT_OK
    (output / "README.txt").write_text("what this folder is\n")
    before = picture(tmp_path)
    assert ingest([dataset], output, "--source", "renamed") == EXIT_USAGE  # a config change: would replace it
    assert "README.txt" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_our_own_stage_directory_is_replaced_after_a_config_change(tmp_path, dataset):
    output = tmp_path / "out"
    assert ingest([dataset], output) == EXIT_OK
    first = json.loads((output / "_SUCCESS").read_text())
    assert ingest([dataset], output, "--source", "renamed") == EXIT_OK
    second = json.loads((output / "_SUCCESS").read_text())
    assert first["fingerprint"] != second["fingerprint"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]  # no lock, work or retired folder left


def test_files_beside_a_stage_directory_in_the_run_directory_are_left_alone(tmp_path, dataset):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "plan.md").write_text("notes\n")
    (run_dir / "drafts").mkdir()
    assert main(["ingest", "--runner", "local", "--input", str(dataset), "--run-dir", str(run_dir)]) == EXIT_OK
    assert main(["langid", "--runner", "local", "--run-dir", str(run_dir)]) == EXIT_OK
    assert (run_dir / "plan.md").read_text() == "notes\n" and (run_dir / "drafts").is_dir()


def test_a_run_refuses_a_foreign_stage_directory_before_any_step(tmp_path, capsys):
    dataset = write_dataset(tmp_path / "data" / "a.jsonl")
    data_root = tmp_path / "root"
    foreign = stage_dir(data_root / "runs" / "r1", "dedup")
    foreign.mkdir(parents=True)
    (foreign / "mine.csv").write_text("a,b\n")
    before = picture(data_root)
    code = main(
        [
            "run",
            "--runner",
            "local",
            "--set",
            f"data_root={data_root}",
            "--set",
            "run_id=r1",
            "--set",
            f"pipeline.sources=[{{name: d, kind: jsonl, paths: ['{dataset}']}}]",
        ]
    )
    assert code == EXIT_USAGE
    assert foreign.name in capsys.readouterr().err
    assert picture(data_root) == before  # nothing written: not a run record, not a source's stage
