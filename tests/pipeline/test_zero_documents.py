"""No surviving documents is a normal outcome: `run`, `report`, `gates` and `nightly` do not raise;
the gates fail with "no documents" (exit 1) and the report renders."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import html_page, write_warc

from corpus_pipeline import exit_codes
from corpus_pipeline.cli import main

ARTICLE = "<p>" + "Engineers finished the new bridge over the river two months ahead of schedule. " * 5 + "</p>"
ONLY_CHINESE = "langid.allowed_languages=[zh]"  # on English pages: langid drops every document

pytestmark = pytest.mark.spark  # the nightly starts Spark for its index, under --runner local too


def _english_warc(path):
    pages = [
        {"url": f"https://a.example/{n}", "payload": html_page(ARTICLE + f"<p>page {n}</p>").encode(),
         "content_type": "text/html"}
        for n in range(3)
    ]  # fmt: skip
    return write_warc(path, pages)


def test_zero_documents_run_report_gates_and_nightly_exit_1_with_no_documents(tmp_path, capsys):
    warc = _english_warc(tmp_path / "in.warc.gz")
    data = tmp_path / "data"
    common = ["--runner", "local", "--set", f"data_root={data}", "--set", ONLY_CHINESE]
    assert main(["run", *common, "--set", f"pipeline.inputs=[{warc}]"]) == exit_codes.ERROR
    captured = capsys.readouterr()
    assert "the corpus has no documents" in captured.out and "Traceback" not in captured.err
    run = data / "runs" / "demo"
    record = json.loads((run / "run_record.json").read_text())
    assert record["status"] == "gate_failed" and "no documents" in record["reason"]

    assert main(["report", str(run)]) == exit_codes.SUCCESS
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "the corpus has no documents" in page and "No documents reached dedup" in page

    assert main(["gates", str(run), "--json"]) == exit_codes.ERROR
    out = capsys.readouterr().out
    assert "FAIL: the corpus has no documents" in out
    assert json.loads(out.strip().splitlines()[-1])["documents"] == 0

    (data / "incoming").mkdir()
    shutil.copy(warc, data / "incoming" / warc.name)
    assert main(["nightly", *common]) == exit_codes.ERROR
    [night] = [json.loads(line) for line in (data / "nightly" / "history.jsonl").read_text().splitlines()]
    assert night["status"] == "gate_failed" and "no documents" in night["reason"]
    assert "Traceback" not in capsys.readouterr().err
