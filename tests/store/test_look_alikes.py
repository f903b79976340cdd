"""The store deletes only what it can prove it made: names that only look like ours (`.out.retired`,
`.out.inprogress-*`, a lock file) are never opened, renamed or deleted; a replace removes exactly
the files the old manifest named; one writer for two nested outputs; an --output link is resolved
once and never moved. Every case checks that what was there before is byte for byte unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat

import pytest
from store_inputs import ingest, picture, write_dataset

from corpus_pipeline.cli import EXIT_OK, EXIT_USAGE
from corpus_pipeline.engine.store.stage_dir import StageDir, remove_replaced
from corpus_pipeline.exit_codes import LOCKED
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.local_locks import output_lock_folder
from corpus_pipeline.storage.locks import output_lock


@pytest.fixture
def dataset(tmp_path):
    return write_dataset(tmp_path / "in" / "a.jsonl")


def _users(tmp_path, *names: str) -> None:
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "mine.txt").write_text(f"the user's {name}\n")


def test_look_alike_folders_beside_an_output_survive_its_replacement(tmp_path, dataset):
    output = tmp_path / "out"
    assert ingest([dataset], output) == EXIT_OK
    _users(tmp_path, ".out.retired", ".out.inprogress-0123456789abcdef", ".out.lock")
    looks = {k: v for k, v in picture(tmp_path).items() if k.startswith(".out.")}
    assert ingest([dataset], output, "--source", "renamed") == EXIT_OK  # a config change: out is replaced
    assert json.loads((output / "_SUCCESS").read_text())["fingerprint"]
    assert {k: v for k, v in picture(tmp_path).items() if k.startswith(".out.")} == looks


def test_a_look_alike_of_the_exact_work_directory_is_refused_untouched(tmp_path, dataset, capsys):
    output = tmp_path / "out"
    assert ingest([dataset], output) == EXIT_OK
    fingerprint = json.loads((output / "_SUCCESS").read_text())["fingerprint"]
    assert ingest([dataset], output, "--source", "renamed") == EXIT_OK
    work = tmp_path / f".out.inprogress-{fingerprint[:16]}"  # the name the first config's rerun uses
    work.mkdir()
    (work / "_SUCCESS").write_text("a user's file of that name\n")
    before = picture(tmp_path)
    assert ingest([dataset], output) == EXIT_USAGE
    error = capsys.readouterr().err
    assert str(work) in error and "did not make it" in error
    assert picture(tmp_path) == before


def test_a_file_added_while_a_replace_runs_is_kept_and_named(tmp_path, dataset, monkeypatch, capsys):
    output = tmp_path / "out"
    assert ingest([dataset], output) == EXIT_OK
    complete = StageDir.complete

    def a_user_writes_meanwhile(self, *args, **kwargs):
        (self.output / "notes.txt").write_text("written 2.5 s after the start\n")
        return complete(self, *args, **kwargs)

    monkeypatch.setattr(StageDir, "complete", a_user_writes_meanwhile)
    assert ingest([dataset], output, "--source", "renamed") != EXIT_OK
    assert "notes.txt" in capsys.readouterr().err
    assert (output / "notes.txt").read_text() == "written 2.5 s after the start\n"
    assert json.loads((output / "_SUCCESS").read_text())["fingerprint"]  # the old output, whole


def test_a_replace_removes_exactly_the_files_the_old_manifest_named(tmp_path):
    retired = tmp_path / ".out.retired-0123"
    (retired / "_rejected").mkdir(parents=True)
    for name in ("part-00000.parquet", "_stats.json", "_rejected/r.parquet", "late.txt"):
        (retired / name).write_text(name)
    (retired / "_SUCCESS").write_text("{}")
    named = ("part-00000.parquet", "_stats.json", "_rejected/r.parquet")
    manifest = {"fingerprint": "f", "files": {n: n for n in named}}
    remove_replaced(retired, manifest)
    assert picture(retired) == {".": "folder", "late.txt": b"late.txt"}


def test_nested_outputs_have_one_writer_at_a_time(tmp_path, dataset, capsys):
    outer, inner = tmp_path / "P", tmp_path / "P" / "sub"
    with output_lock(Storage(), str(outer)):
        before = picture(tmp_path)
        assert ingest([dataset], inner) == LOCKED
        assert "another command is writing" in capsys.readouterr().err
        assert picture(tmp_path) == before
    with output_lock(Storage(), str(inner)):
        assert ingest([dataset], outer) == LOCKED
        # The inner stage's work in progress inside P is not "foreign" to the outer command: held.
        (outer / ".sub.inprogress-0123456789abcdef" / "_attempts").mkdir(parents=True)
        assert ingest([dataset], outer) == LOCKED
        shutil.rmtree(outer)
    assert ingest([dataset], inner) == EXIT_OK  # released: both run
    assert ingest([dataset], tmp_path / "Q") == EXIT_OK


def test_a_foreign_file_in_the_lock_folder_is_refused_untouched(tmp_path, dataset, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    output = tmp_path / "out"
    assert ingest([dataset], output) == EXIT_OK
    folder = output_lock_folder()
    assert folder.is_dir() and not list(folder.glob("*.lock")), "a released lock leaves nothing"
    os.mkfifo(folder / "fifo.lock")  # never opened: a FIFO would block a reader
    assert ingest([dataset], output, "--source", "renamed") == EXIT_OK
    assert stat.S_ISFIFO(os.lstat(folder / "fifo.lock").st_mode)
    name = hashlib.sha256(os.path.realpath(output).encode()).hexdigest()[:32]
    (folder / f"{name}.lock").write_text("a user's notes\n")
    before = picture(tmp_path)
    assert ingest([dataset], output) == EXIT_USAGE
    assert "not a lock file of corpus_pipeline" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_an_output_link_is_resolved_once_and_never_moved(tmp_path, dataset):
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    assert ingest([dataset], link) == EXIT_OK
    assert ingest([dataset], link, "--source", "renamed") == EXIT_OK  # replaced through the link
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads((target / "_SUCCESS").read_text())["stage"] == "ingest"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "link", "target"]


@pytest.mark.parametrize("case", ["dangling link", "current folder", "under a file"])
def test_outputs_that_cannot_be_written_are_refused_before_any_work(tmp_path, dataset, monkeypatch, capsys, case):
    if case == "dangling link":
        output = tmp_path / "link"
        output.symlink_to(tmp_path / "nowhere")
    elif case == "current folder":
        (tmp_path / "here").mkdir()
        monkeypatch.chdir(tmp_path / "here")
        output = "."
    else:
        (tmp_path / "a-file").write_text("x")
        output = tmp_path / "a-file" / "out"
    before = picture(tmp_path)
    assert ingest([dataset], output) == EXIT_USAGE
    error = capsys.readouterr().err
    assert "--output" in error and "Traceback" not in error and "tasks" not in error
    assert picture(tmp_path) == before
