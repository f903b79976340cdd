"""The CLI verbs end to end in this process (local runner: no JVM), and their error handling."""

from __future__ import annotations

import json

from conftest import html_page, shared_data, write_warc

from corpus_pipeline.cli import EXIT_OK, EXIT_USAGE, main

ARTICLE = "<p>" + "Engineers finished the new bridge over the river two months ahead of schedule. " * 5 + "</p>"


def test_extract_verb_writes_a_stage_and_prints_the_funnel(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    warc = write_warc(
        tmp_path / "in" / "in.warc.gz",
        [
            {"url": "https://a.example/", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"},
            {"url": "https://a.example/x.jpg", "payload": b"\xff\xd8\xff", "content_type": "image/jpeg"},
        ],
    )
    code = main(["extract", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), "--runner", "local"])
    out = capsys.readouterr().out
    assert code == EXIT_OK
    assert "extract" in out and "not_html 1" in out
    stats = json.loads((tmp_path / "out" / "_stats.json").read_text())
    assert (stats["docs_in"], stats["kept"]) == (2, 1)
    assert warc.exists()


def test_a_config_typo_exits_2_naming_the_key(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("extract:\n  favour_precision: true\n")
    code = main(["extract", "--input", str(tmp_path), "--output", str(tmp_path / "o"), "--config", str(config)])
    assert code == EXIT_USAGE
    assert "extract.favour_precision" in capsys.readouterr().err


def test_missing_input_is_a_clear_error(tmp_path, capsys):
    code = main(
        ["extract", "--input", str(tmp_path / "nothing*.warc.gz"), "--output", str(tmp_path / "o"), "--runner", "local"]
    )
    assert code == EXIT_USAGE  # refused before anything ran
    assert "no such file" in capsys.readouterr().err


def test_an_unfinished_input_stage_is_refused(tmp_path, capsys):
    (tmp_path / "half").mkdir()
    code = main(["langid", "--input", str(tmp_path / "half"), "--output", str(tmp_path / "o"), "--runner", "local"])
    assert code == EXIT_USAGE
    assert "did not finish" in capsys.readouterr().err


def test_eval_langid_json_is_the_last_line(capsys):
    sentences = shared_data("langid/sentences")
    code = main(["eval", "langid", "--sentences", str(sentences), "--max-per-language", "30", "--json"])
    assert code == EXIT_OK
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["micro_accuracy"] > 0.8
    assert "zh" in figures["per_language"]
