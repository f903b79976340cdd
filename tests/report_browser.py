"""The report measured in a real browser (Debian's chromium, headless), for the report's browser
test and the demo's: the page itself has no script; `load_figures` injects one into a copy, at the
end of the body, that measures every chart and writes the figures onto <body> for `--dump-dom` to
show. Console messages and failed loads reach chromium's log (`--enable-logging=stderr`) as CONSOLE
lines. `make test` installs chromium when it can (root and apt-get); without it the tests skip.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

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
    // A mark is a bar, a rect with a tooltip (legend swatches have none), or a line chart's line or
    // point; a histogram's kept bars say "kept:".
    var marks = figure.querySelectorAll("svg rect, svg polyline, svg circle");
    var bars = Array.prototype.filter.call(marks, function (mark) {
      var box = mark.getBBox();
      if (mark.tagName === "rect") return mark.querySelector("title") && box.width > 0 && box.height > 0;
      return box.width > 0 || box.height > 0;
    });
    var kept = bars.filter(function (mark) {
      return mark.tagName === "rect" && mark.querySelector("title").textContent.indexOf("kept:") === 0;
    });
    var histogram = figure.hasAttribute("data-kept");
    return [figure.querySelector("figcaption").textContent, Number(figure.getAttribute("data-drawn")), bars.length,
            histogram ? kept.length : null];
  });
  document.body.setAttribute("data-drawn", JSON.stringify(drawn));
})();
</script>"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium() -> str:
    found = find_chromium()
    if found is None:
        pytest.skip("chromium is not installed (make test installs it as root with apt-get: apt-get install chromium)")
    return found


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
