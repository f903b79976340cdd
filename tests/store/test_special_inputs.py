"""Input expansion never opens a FIFO, a socket or a device (a FIFO blocks its reader forever):
skipped and listed in a folder, refused when named; a loop of symbolic links is refused (exit 2)."""

from __future__ import annotations

import json
import logging
import os
import socket
import stat

from store_inputs import ingest, write_dataset

from corpus_pipeline.cli import EXIT_OK, EXIT_USAGE


def test_fifos_and_sockets_in_an_input_folder_are_skipped_listed_and_left_alone(tmp_path, caplog):
    folder = write_dataset(tmp_path / "in" / "a.jsonl").parent
    os.mkfifo(folder / "b.jsonl")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder / "c.jsonl"))
        with caplog.at_level(logging.WARNING):
            assert ingest([folder], tmp_path / "out") == EXIT_OK
    assert json.loads((tmp_path / "out" / "_stats.json").read_text())["kept"] == 5
    assert "b.jsonl" in caplog.text and "c.jsonl" in caplog.text and "never opened" in caplog.text
    assert stat.S_ISFIFO(os.lstat(folder / "b.jsonl").st_mode)


def test_a_fifo_named_as_input_is_refused(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.jsonl")
    assert ingest([tmp_path / "pipe.jsonl"], tmp_path / "out") == EXIT_USAGE
    assert "FIFO" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_loop_of_links_in_an_input_folder_is_refused_naming_it(tmp_path, capsys):
    folder = write_dataset(tmp_path / "in" / "a.jsonl").parent
    (folder / "x.jsonl").symlink_to(folder / "y.jsonl")
    (folder / "y.jsonl").symlink_to(folder / "x.jsonl")
    assert ingest([folder], tmp_path / "out") == EXIT_USAGE
    error = capsys.readouterr().err
    assert "loop of symbolic links" in error and ".jsonl" in error
    assert not (tmp_path / "out").exists()


def test_a_file_name_that_is_not_utf8_is_named_skipped_in_a_folder_and_refused_alone(tmp_path, caplog, capsys):
    folder = write_dataset(tmp_path / "in" / "a.jsonl").parent
    odd = os.path.join(os.fsencode(folder), b"caf\xe9.jsonl")
    with open(odd, "wb") as out:
        out.write((folder / "a.jsonl").read_bytes())
    with caplog.at_level(logging.WARNING):
        assert ingest([folder], tmp_path / "out") == EXIT_OK
    assert "caf\\udce9.jsonl" in caplog.text and "not UTF-8" in caplog.text
    assert ingest([os.fsdecode(odd)], tmp_path / "out2") == EXIT_USAGE
    assert "caf\\udce9.jsonl" in capsys.readouterr().err


def test_a_corrupt_part_of_the_input_stage_is_named(tmp_path, capsys):
    from corpus_pipeline.cli import main

    assert ingest([write_dataset(tmp_path / "a.jsonl")], tmp_path / "ing") == EXIT_OK
    (part,) = (tmp_path / "ing").glob("part-*.parquet")
    data = part.read_bytes()
    part.write_bytes(data[:200] + b"\0" * (len(data) - 400) + data[-200:])
    assert main(["langid", "--runner", "local", "--input", str(tmp_path / "ing"), "--output", str(tmp_path / "l")]) == 1
    assert f"{str(part)!r}: not a readable Parquet file" in capsys.readouterr().err


def test_a_part_corrupt_inside_its_data_is_named(tmp_path, capsys):
    from corpus_pipeline.cli import main

    assert ingest([write_dataset(tmp_path / "a.jsonl", 200)], tmp_path / "ing") == EXIT_OK
    (part,) = (tmp_path / "ing").glob("part-*.parquet")
    data = bytearray(part.read_bytes())
    data[100:2000] = b"\0" * 1900  # the pages, not the footer
    part.write_bytes(bytes(data))
    assert main(["langid", "--runner", "local", "--input", str(tmp_path / "ing"), "--output", str(tmp_path / "l")]) == 1
    assert f"{str(part)!r}: cannot read this part of the input stage" in capsys.readouterr().err
