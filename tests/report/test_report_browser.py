"""The report in a real browser (Debian's chromium, headless): it loads without console errors and
every plot is drawn (each SVG and its marks have a non-zero box once laid out).

The page itself has no script; the test injects one into a copy, at the end of the body, that
measures every chart and writes the figures onto <body> for `--dump-dom` to show. Console messages
and failed loads reach chromium's log (`--enable-logging=stderr`) as CONSOLE lines.
`make test` installs chromium when it can (root and apt-get); without it this test skips.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_run_fixture import config, report_run  # noqa: F401 (a fixture)
from test_report_truth import fused_run

from corpus_pipeline.report import write_report

MEASURE = """<script>
(function () {
  var charts = Array.prototype.slice.call(document.querySelectorAll("figure.plot svg"));
  var boxed = charts.filter(function (svg) {
    var box = svg.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  });
  var marked = charts.filter(function (svg) {
    return Array.prototype.some.call(svg.querySelectorAll("rect, text"), function (mark) {
      var box = mark.getBBox();
      return box.width > 0 && box.height > 0;
    });
  });
  document.body.setAttribute("data-plots", JSON.stringify([charts.length, boxed.length, marked.length]));
  // Per figure: what it counts (data-drawn) and how many of its bars have a visible width.
  var drawn = Array.prototype.slice.call(document.querySelectorAll("figure.plot")).map(function (figure) {
    // A bar is a rect with a tooltip (legend swatches have none); a histogram's kept bars say "kept:".
    var bars = Array.prototype.filter.call(figure.querySelectorAll("svg rect"), function (rect) {
      var box = rect.getBBox();
      return rect.querySelector("title") && box.width > 0 && box.height > 0;
    });
    var kept = bars.filter(function (rect) { return rect.querySelector("title").textContent.indexOf("kept:") === 0; });
    var histogram = figure.hasAttribute("data-kept");
    return [figure.querySelector("figcaption").textContent, Number(figure.getAttribute("data-drawn")), bars.length,
            histogram ? kept.length : null];
  });
  document.body.setAttribute("data-drawn", JSON.stringify(drawn));
})();
</script>"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("chromium is not installed (make test installs it as root with apt-get: apt-get install chromium)")


def load(page: Path, profile: Path) -> tuple[list[int], list[str]]:
    """[plots, plots with a box, plots with a visible mark] and the console lines, as chromium saw them."""
    plots, console, _ = load_figures(page, profile)
    return plots, console


def load_figures(page: Path, profile: Path) -> tuple[list[int], list[str], list[list]]:
    """`load`, and per figure [caption, the count it draws, its bars with a visible box]."""
    measured = page.with_name("measured-" + page.name)
    measured.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",  # root in a container has no user namespace for the sandbox
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        "--dump-dom",
        measured.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r'data-plots="(\[[0-9, ]*\])"', done.stdout)
    assert found, f"chromium rendered no page (exit {done.returncode}): {done.stderr[-2000:]}"
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    figures = re.search(r'data-drawn="([^"]*)"', done.stdout)
    return json.loads(found.group(1)), console, json.loads(html.unescape(figures.group(1)))


def test_the_page_loads_without_console_errors_and_every_plot_shows(report_run, tmp_path):  # noqa: F811
    page = write_report(report_run, config(), previous=report_run, output=tmp_path / "report.html").path
    (plots, boxed, marked), console = load(page, tmp_path / "profile")
    assert plots >= 40 and boxed == plots and marked == plots
    assert console == []


def test_the_browser_check_sees_a_broken_page(report_run, tmp_path):  # noqa: F811
    page = write_report(report_run, config(), output=tmp_path / "report.html").path
    html = page.read_text(encoding="utf-8")
    html = html.replace(
        '<svg xmlns="http://www.w3.org/2000/svg" width="540"', '<svg xmlns="http://www.w3.org/2000/svg" width="0"', 1
    )
    page.write_text(
        html.replace("</body>", '<script>console.error("planted failure")</script></body>'), encoding="utf-8"
    )
    (plots, boxed, _), console = load(page, tmp_path / "profile")
    assert boxed == plots - 1
    assert any("planted failure" in line for line in console)


def test_every_figure_whose_stage_kept_documents_draws_bars(report_run, tmp_path):  # noqa: F811
    """The page as `run` and `make demo` write it (pii, quality and decontaminate fused: 05 and 06
    keep no parts): every stage kept documents, so every figure counts some and shows its bars."""
    page = write_report(fused_run(report_run, tmp_path / "fused"), config()).path
    (plots, boxed, _), console, figures = load_figures(page, tmp_path / "profile")
    assert plots >= 40 and boxed == plots and console == []
    empty = [caption for caption, drawn, bars, _ in figures if drawn == 0 or bars == 0]
    assert empty == [], empty
    histograms = [(caption, kept) for caption, _, _, kept in figures if kept is not None]
    assert len(histograms) >= 20
    # Quality kept documents, so each of its signal histograms shows kept bars (not "kept (0)").
    assert [caption for caption, kept in histograms if kept == 0] == []
