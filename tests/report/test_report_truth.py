"""The report reads every figure from where the data is: a fused stage's documents in the directory
its _SUCCESS names, stages in directories of any name, the domain column and URL hosts apart."""

from __future__ import annotations

import re
import shutil

from report_run_fixture import config, copy_run, report_run  # noqa: F401 (a fixture)
from stage_fixtures import stage_dir

from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.registry import STAGES, stage_spec
from corpus_pipeline.engine.stage_order import fused_run as fused_chain
from corpus_pipeline.report.write import write_report
from corpus_pipeline.stage_runner import run_fused

FIGURE = re.compile(r'<figure class="plot" data-drawn="([0-9.e+]+)"(?: data-kept="([0-9.e+]+)")?><figcaption>([^<]*)')


def figures(page: str) -> list[tuple[float, float | None, str]]:
    return [(float(d), float(k) if k else None, t) for d, k, t in FIGURE.findall(page)]


def fused_run(report_run, target):  # noqa: F811
    """The run with pii -> quality -> decontaminate fused, as `run` writes them: 05 and 06 keep no parts."""
    run = copy_run(report_run, target, ("extract", "langid", "normalize", "dedup"))
    chain = [spec.name for spec in fused_chain("pii")]
    dirs = [stage_dir(run, name) for name in chain]
    run_fused(chain, stage_dir(run, "dedup"), dirs, config(), LocalExecutor())
    assert not list((stage_dir(run, "quality")).glob("part-*.parquet"))
    return run


def test_a_fused_quality_stage_shows_its_kept_documents(report_run, tmp_path):  # noqa: F811
    run = fused_run(report_run, tmp_path / "fused")
    page = write_report(run, config()).path.read_text(encoding="utf-8")
    histograms = [(kept, title) for _, kept, title in figures(page) if kept is not None]
    assert len(histograms) >= 20
    # Every quality signal computed for the kept documents draws them (was "kept (0)" for all 34).
    assert all(kept > 0 for kept, _ in histograms), [t for k, t in histograms if not k]


def test_every_figure_whose_stage_kept_documents_is_drawn(report_run, tmp_path):  # noqa: F811
    run = fused_run(report_run, tmp_path / "fused")
    page = write_report(run, config()).path.read_text(encoding="utf-8")
    empty = [title for drawn, _, title in figures(page) if drawn == 0]
    assert empty == [], empty


def test_a_report_over_stages_in_directories_of_any_name(report_run, tmp_path):  # noqa: F811
    run = tmp_path / "verbs"
    run.mkdir()
    named = {"extract": "extracted", "langid": "lang", "normalize": "norm", "dedup": "dd", "pii": "p", "quality": "q"}
    for stage, name in named.items():
        shutil.copytree(stage_dir(report_run, stage), run / name)
    result = write_report(run, config())
    page = result.path.read_text(encoding="utf-8")
    summary = page[page.index("Run directory:") :].split("</p>")[0]
    missing = summary.split("Not run:")[1]
    assert all(stage not in missing for stage in ("extract,", "langid", "normalize", "dedup", "pii", "quality"))
    assert result.figures.gates is not None and result.figures.gates.corpus == run / "q"  # gates over `q`
    assert result.figures.gates.documents > 0


def test_the_domain_chart_uses_the_domain_column_and_the_host_chart_says_hosts(report_run, tmp_path):  # noqa: F811
    page = write_report(report_run, config(), output=tmp_path / "r.html").path.read_text(encoding="utf-8")
    titles = [title for _, _, title in figures(page)]
    assert any("domains of the final corpus" in t and "the domain column" in t for t in titles)
    hosts = page[page.index("URL hosts of the final corpus") :].split("</figure>")[0]
    assert "en.example.org" in hosts and "news.example.cn" in hosts
    domains = page[page.index("the domain column") :].split("</figure>")[0]
    assert "en.example.org" not in domains


def test_a_sources_run_funnel_starts_at_each_source_first_stage(report_run, tmp_path):  # noqa: F811
    """pipeline.sources: the sources' extract, langid and normalize lead the funnel into dedup."""
    run = tmp_path / "sources_run"
    per_source = ("extract", "langid", "normalize")
    for stage in per_source:
        shutil.copytree(stage_dir(report_run, stage), stage_dir(run / "sources" / "web", stage))
    after = STAGES[STAGES.index(stage_spec("dedup")) :]
    whole = [spec.name for spec in after if stage_dir(report_run, spec.name).exists()]
    for stage in whole:
        shutil.copytree(stage_dir(report_run, stage), stage_dir(run, stage))
    result = write_report(run, config())
    stages = [row.stage for row in result.figures.funnel]
    # The funnel lists stages of documents and shards (not train-tokenizer's tokenizer).
    assert stages == ["web/extract", "web/langid", "web/normalize", *(s for s in whole if s != "train-tokenizer")]
    assert stages[3:5] == ["dedup", "pii"] and stages[-1] == "tokenize"
    page = result.path.read_text(encoding="utf-8")
    assert "Not run:" not in page[page.index("Run directory:") :].split("</p>")[0]
    funnel = page[page.index('<section id="funnel">') :].split("</section>")[0]
    assert "<td>web/extract</td>" in funnel and "web/langid: language_not_allowed" in funnel
