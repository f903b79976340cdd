"""An output inside an input is refused for every verb; one writer per output (exit 75 naming the
holder); a marker cut short by a crash means "not finished", never a crash; input expansion never
reads a stage's internals or a crawl still running."""

from __future__ import annotations

import json

import pytest
from conftest import html_page, write_warc
from store_inputs import ingest, picture, write_dataset
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from corpus_pipeline.cli import EXIT_OK, EXIT_USAGE, main
from corpus_pipeline.engine.store.stage_dir import StageDir
from corpus_pipeline.exit_codes import LOCKED
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locks import output_lock

ARTICLE = "<p>" + "Engineers finished the new bridge over the river two months ahead of schedule. " * 5 + "</p>"


def _warc(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_warc(path, [{"url": "https://a.example/", "payload": html_page(ARTICLE).encode()}])


def _tokenizer(path):
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"])
    tokenizer.train_from_iterator(["the committee met on tuesday"] * 20, trainer)
    tokenizer.save(str(path))
    return path


def test_ingest_into_its_own_input_folder_is_refused(tmp_path, capsys):
    folder = write_dataset(tmp_path / "D" / "a.jsonl").parent
    before = picture(tmp_path)
    assert ingest([folder], folder / "out") == EXIT_USAGE
    assert "lies inside the input" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_extract_into_its_own_input_folder_is_refused(tmp_path, capsys):
    _warc(tmp_path / "crawl" / "a.warc.gz")
    before = picture(tmp_path)
    code = main(
        ["extract", "--runner", "local", "--input", str(tmp_path / "crawl"), "--output", str(tmp_path / "crawl" / "x")]
    )
    assert code == EXIT_USAGE and "lies inside the input" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_dedup_with_several_inputs_refuses_an_output_inside_any_of_them(tmp_path, capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    assert ingest([write_dataset(tmp_path / "x.jsonl")], first) == EXIT_OK
    assert ingest([write_dataset(tmp_path / "y.jsonl", 3)], second) == EXIT_OK
    before = picture(tmp_path)
    code = main(["dedup", "--runner", "local", "--input", str(first), str(second), "--output", str(second / "d")])
    assert code == EXIT_USAGE and f"the input {second}" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_mix_refuses_an_output_inside_its_input(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    assert ingest([write_dataset(tmp_path / "x.jsonl")], corpus) == EXIT_OK
    tokenizer = _tokenizer(tmp_path / "tokenizer.json")
    before = picture(tmp_path)
    code = main(
        [
            "mix",
            "--runner",
            "local",
            "--input",
            str(corpus),
            "--tokenizer",
            str(tokenizer),
            "--output",
            str(corpus / "m"),
        ]
    )
    assert code == EXIT_USAGE and "lies inside the input" in capsys.readouterr().err
    assert picture(tmp_path) == before


def test_a_run_whose_source_folder_holds_the_run_is_refused(tmp_path, capsys):
    data_root = tmp_path / "root"
    write_dataset(data_root / "a.jsonl")
    before = picture(tmp_path)
    source = f"pipeline.sources=[{{name: d, kind: jsonl, paths: ['{data_root}']}}]"
    code = main(["run", "--runner", "local", "--set", f"data_root={data_root}", "--set", source])
    assert code == EXIT_USAGE and "the input" in capsys.readouterr().err
    assert {k: v for k, v in picture(tmp_path).items() if "/runs" not in f"/{k}"} == before


def test_a_second_command_on_a_locked_output_exits_75_naming_the_holder(tmp_path, capsys):
    dataset = write_dataset(tmp_path / "a.jsonl")
    output = tmp_path / "out"
    with output_lock(Storage(), str(output)):  # another command (a cron job) writes it now
        before = picture(tmp_path)
        assert ingest([dataset], output) == LOCKED
        error = capsys.readouterr().err
        assert "held by another command writing" in error and "pid " in error
        assert picture(tmp_path) == before
    assert ingest([dataset], output) == EXIT_OK  # released: the next command runs


def test_an_unreadable_marker_left_by_a_crash_is_redone_with_a_message(tmp_path, monkeypatch, caplog):
    dataset = write_dataset(tmp_path / "a.jsonl")
    output = tmp_path / "out"

    def crash(self):
        raise KeyboardInterrupt("killed between the marker and the rename")

    monkeypatch.setattr(StageDir, "publish", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest([dataset], output)
    (marker,) = tmp_path.glob(".out.inprogress-*/_SUCCESS")
    marker.write_bytes(b"")  # cut short, as a write without a rename could leave it
    monkeypatch.undo()
    assert ingest([dataset], output) == EXIT_OK
    assert "unreadable _SUCCESS" in caplog.text
    assert json.loads((output / "_SUCCESS").read_text())["stage"] == "ingest"


def test_extract_over_a_crawl_folder_skips_a_crawl_still_running_and_stage_internals(tmp_path):
    crawl = tmp_path / "crawl"
    _warc(crawl / "c1" / "a.warc.gz")
    _warc(crawl / ".c2.inprogress-0123456789abcdef" / "b.warc.gz")  # a crawl running, or killed
    _warc(crawl / "c1" / "_attempts" / "t-1" / "c.warc.gz")  # an attempt's file
    assert main(["extract", "--runner", "local", "--input", str(crawl), "--output", str(tmp_path / "x")]) == EXIT_OK
    stats = json.loads((tmp_path / "x" / "_stats.json").read_text())
    assert stats["docs_in"] == 1
