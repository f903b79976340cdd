"""The report page: well-formed, self-contained, a chart per plot, PII redacted, stopped runs and
unreadable inputs handled."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree
from report_run_fixture import EMAIL, PHONE, config, copy_run, report_run  # noqa: F401 (a fixture)
from stage_fixtures import stage_dir

from corpus_pipeline.cli import main
from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.report.examples import Redactor
from corpus_pipeline.report.html_page import SECTIONS
from corpus_pipeline.report.write import ReportInputError, write_report

XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


def parse(path: Path) -> etree._Element:
    """Strict XML parsing: an unclosed tag or a stray `&` fails here."""
    return etree.fromstring(path.read_bytes(), etree.XMLParser(resolve_entities=False, no_network=True))


def section_text(root: etree._Element, key: str) -> str:
    section = root.find(f".//{XHTML}section[@id='{key}']")
    return "".join(section.itertext())


def test_page_is_well_formed_self_contained_and_every_plot_has_an_svg(report_run, tmp_path):  # noqa: F811
    result = write_report(report_run, config(), output=tmp_path / "report.html")
    root = parse(result.path)
    plots = root.findall(f".//{XHTML}figure[@class='plot']")
    histograms = len(result.figures.quality_histograms)
    # funnel 2, languages 2, domains and hosts 2, quality histograms, dedup 1, PII 2, tokens 3; of the
    # signals, those 0 for every document are named instead of drawn
    assert len(plots) == 2 + 4 + histograms + 1 + 2 + 3 and histograms >= 20
    assert "0 for every document (no chart): " + ", ".join(result.figures.quality_all_zero) in section_text(
        root, "quality"
    )
    for plot in plots:
        charts = plot.findall(f"{SVG}svg")
        assert len(charts) == 1
        assert float(charts[0].get("width")) > 0 and float(charts[0].get("height")) > 0
        assert charts[0].findall(f".//{SVG}rect") or charts[0].findall(f".//{SVG}text")
    assert [s.get("id") for s in root.iter(f"{XHTML}section")] == [key for key, _ in SECTIONS]
    html = result.path.read_text(encoding="utf-8")
    assert "not run" not in html
    for outside in ("<script", "<link", "<img", "url(", "@import", "src="):  # nothing to fetch, nothing to run
        assert outside not in html
    assert "Gates over" in section_text(root, "gates")


def test_examples_are_redacted_by_the_pii_stage_code(report_run, tmp_path):  # noqa: F811
    html = write_report(report_run, config(), output=tmp_path / "report.html").path.read_text(encoding="utf-8")
    assert EMAIL not in html and PHONE not in html
    # The French page (rejected by langid, before the pii stage) and the English one (kept by extract)
    assert html.count("&lt;EMAIL&gt;") >= 2 and html.count("&lt;PHONE&gt;") >= 2


def test_redactor_scans_past_the_cut_and_marks_truncation():
    redactor = Redactor(PiiConfig(), chars=30)
    text = "x" * 25 + f" {EMAIL} and more text after it"
    shown = redactor.clean(text)
    assert shown == "x" * 25 + " <EMA\u2026" and EMAIL[:4] not in shown
    assert redactor.clean("short") == "short"


def test_a_run_that_stopped_early_renders_not_run_sections(report_run, tmp_path):  # noqa: F811
    stopped = copy_run(report_run, tmp_path / "stopped", ("extract", "langid", "normalize"))
    result = write_report(stopped, config())
    assert result.path == stopped / "report" / "index.html"
    root = parse(result.path)
    for key in ("quality", "dedup", "pii", "tokens", "gates"):
        assert "not run" in section_text(root, key), key
    funnel = {row.stage: row for row in result.figures.funnel}
    assert funnel["normalize"].done and not funnel["dedup"].done
    assert funnel["normalize"].tokens_out is None  # no tokenizer ran: no estimate
    assert result.figures.final_stage == "normalize" and result.figures.languages_final.total == 22
    empty = copy_run(report_run, tmp_path / "empty", ())
    (empty / "run_record.json").write_text("{}")  # a run whose first step failed
    assert "not run: no stage finished in this run" in section_text(parse(write_report(empty, config()).path), "funnel")


def test_unreadable_inputs_are_clear_errors(report_run, tmp_path, capsys):  # noqa: F811
    broken = copy_run(report_run, tmp_path / "broken")
    (stage_dir(broken, "langid") / "_stats.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ReportInputError, match=re.escape(f"{stage_dir(broken, 'langid').name}/_stats.json")):
        write_report(broken, config())
    assert main(["report", str(broken)]) == 1
    assert "corpus-pipeline report: cannot read" in capsys.readouterr().err

    truncated = copy_run(report_run, tmp_path / "truncated")
    part = sorted((stage_dir(truncated, "quality")).glob("part-*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(ReportInputError, match=f"cannot read .*{stage_dir(truncated, 'quality').name}/part-"):
        write_report(truncated, config())
    with pytest.raises(ReportInputError, match="no such directory"):
        write_report(tmp_path / "absent", config())


def test_the_cli_verb_writes_the_page(report_run, tmp_path, capsys):  # noqa: F811
    output = tmp_path / "out" / "page.html"
    assert main(["report", str(report_run), "--output", str(output), "--set", "report.examples_per_rule=1"]) == 0
    assert f"report: {output.resolve()}" in capsys.readouterr().out
    parse(output)
    assert main(["report", str(report_run), "--set", "report.typo=1"]) == 2  # extra="forbid"
