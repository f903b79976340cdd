"""The report in a real browser (Debian's chromium, headless): it loads without console errors and
every plot is drawn (each SVG and its marks have a non-zero box once laid out).

The page itself has no script; the test injects one into a copy, at the end of the body, that
measures every chart and writes the figures onto <body> for `--dump-dom` to show. Console messages
and failed loads reach chromium's log (`--enable-logging=stderr`) as CONSOLE lines.
`make test` installs chromium when it can (root and apt-get); without it this test skips.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_run_fixture import config, report_run  # noqa: F401 (a fixture)

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
    return json.loads(found.group(1)), console


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
