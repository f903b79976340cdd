"""The report in a real browser (Debian's chromium, headless): it loads without console errors and
every plot is drawn (each SVG and its marks have a non-zero box once laid out).

How it measures: tests/report_browser.py. `make test` installs chromium when it can (root and
apt-get); without it these tests skip.
"""

from __future__ import annotations

from report_browser import load, load_figures
from report_run_fixture import config, report_run  # noqa: F401 (a fixture)
from test_report_truth import fused_run

from corpus_pipeline.report.write import write_report


def test_the_page_loads_without_console_errors_and_every_plot_shows(report_run, tmp_path):  # noqa: F811
    page = write_report(report_run, config(), previous=report_run, output=tmp_path / "report.html").path
    (plots, boxed, marked), console = load(page, tmp_path / "profile")
    # Every figure the page holds (signals that are 0 for every document are named, not drawn).
    assert plots == page.read_text(encoding="utf-8").count('<figure class="plot"') >= 30
    assert boxed == plots and marked == plots
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
    assert plots == page.read_text(encoding="utf-8").count('<figure class="plot"') >= 30
    assert boxed == plots and console == []
    empty = [caption for caption, drawn, bars, _ in figures if drawn == 0 or bars == 0]
    assert empty == [], empty
    histograms = [(caption, kept) for caption, _, _, kept in figures if kept is not None]
    assert len(histograms) >= 20
    # Quality kept documents, so each of its signal histograms shows kept bars (not "kept (0)").
    assert [caption for caption, kept in histograms if kept == 0] == []
