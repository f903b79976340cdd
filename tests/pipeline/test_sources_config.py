"""pipeline.sources as config: each source's own config and plan, refusals, the dedup keep order."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_pipeline import exit_codes
from corpus_pipeline.cli import main
from corpus_pipeline.config import ConfigError, load_config
from corpus_pipeline.config.sources import source_config
from corpus_pipeline.pipeline.context import RunContext, RunPlan

WEB = "{name: web, kind: warc, paths: [crawl/], priority: 1}"
WIKI = "{name: wiki, kind: wikipedia, paths: [wiki.xml.bz2], domain: encyclopedia, priority: 5, skip: [langid]}"
NEWS = '{name: news, kind: jsonl, paths: [news.jsonl], overrides: ["normalize.unicode_form=NFKC"]}'


def _config(*sources: str, tmp_path: Path | None = None):
    return load_config(None, [f"pipeline.sources=[{', '.join(sources)}]", f"data_root={tmp_path or 'data'}"])


def test_each_source_runs_with_its_overrides_labels_and_directory(tmp_path):
    config = _config(WEB, WIKI, NEWS, tmp_path=tmp_path)
    plan = RunPlan.from_config(config, "local")
    web, wiki, news = RunContext(plan).sources

    assert plan.config.dedup.source_priority == ["wiki", "web", "news"]  # priority 5, 1, 0
    assert web.plan.run_dir == tmp_path / "runs" / "demo" / "sources" / "web"
    assert (web.plan.inputs, web.plan.datasets) == (("crawl/",), ())
    # embed, opt-in and not enabled, is left out too.
    assert (wiki.plan.datasets, wiki.plan.skip) == (("wiki.xml.bz2",), ("langid", "embed"))
    assert (wiki.config.ingest.format, wiki.config.ingest.source, wiki.config.ingest.domain) == (
        "wikipedia",
        "wiki",
        "encyclopedia",
    )
    assert (web.config.extract.source, news.config.normalize.unicode_form) == ("web", "NFKC")
    assert config.normalize.unicode_form == "NFC" and not web.config.pipeline.sources
    assert web.config.run_id == "demo-web"  # a crawl source crawls into <data_root>/crawl/demo-web
    assert (wiki.config.ingest.id_prefix, news.config.ingest.id_prefix) == ("wiki:", "news:")


def test_a_priority_set_by_hand_wins_over_the_sources_priorities():
    config = load_config(None, [f"pipeline.sources=[{WEB}, {WIKI}]", "dedup.source_priority=[web]"])
    assert RunPlan.from_config(config, "local").config.dedup.source_priority == ["web"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('{name: a, kind: warc, paths: [x], overrides: ["dedup.threshold=0.9"]}', "not of a per-source stage"),
        ("{name: a, kind: warc, paths: [x], skip: [dedup]}", "cannot skip dedup"),
        ('{name: a, kind: warc, paths: [x], overrides: ["quality.no_such_key=1"]}', "quality.no_such_key"),
    ],
)
def test_an_override_or_skip_the_pipeline_cannot_honour_is_refused_before_anything_runs(source, message):
    config = _config(source)
    with pytest.raises(ConfigError, match=message):
        source_config(config, config.pipeline.sources[0])


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["pipeline.sources=[{name: a, kind: crawl, paths: [x]}]"], "takes seeds"),
        (["pipeline.sources=[{name: a, kind: jsonl}]"], "takes paths"),
        (["pipeline.sources=[{name: a, kind: warc, paths: [x]}, {name: a, kind: jsonl, paths: [y]}]"], "repeated: a"),
        (["pipeline.sources=[{name: a, kind: warc, paths: [x]}]", "pipeline.inputs=[b.warc.gz]"], "not both"),
        (["pipeline.sources=[{name: ../a, kind: warc, paths: [x]}]"], "pattern"),
    ],
)
def test_sources_that_do_not_say_what_to_read_fail_when_the_config_loads(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_a_run_whose_source_config_does_not_validate_exits_2_and_writes_nothing(tmp_path, capsys):
    source = '{name: a, kind: jsonl, paths: [x.jsonl], overrides: ["quality.no_such_key=1"]}'
    code = main(["run", "--runner", "local", "--set", f"data_root={tmp_path}", "--set", f"pipeline.sources=[{source}]"])
    assert code == exit_codes.USAGE and "quality.no_such_key" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
