"""Domains: the first `domains.rules` entry matching a URL's host and path, else the source's
default; both source stages label their documents with it."""

from __future__ import annotations

import pytest
from conftest import shared_data
from ingest_inputs import ingest, kept, write_jsonl

from corpus_pipeline.config import ConfigError, DomainsConfig, load_config
from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.stages.domains import DomainRules
from corpus_pipeline.stats import StageStats

RULES = [
    {"host": "*.wikipedia.org", "path": "^/wiki/", "domain": "encyclopedia"},
    {"host": "github.com", "domain": "code"},
    {"host": "*", "path": r"/(news|article)s?/", "domain": "news"},
]


def rules() -> DomainRules:
    return DomainRules(load_config(None, [f"domains.rules={RULES}"]).domains)


def test_the_first_matching_rule_decides_then_the_default():
    labels = rules()
    assert labels.domain_of("https://en.wikipedia.org/wiki/Anarchism", "web") == "encyclopedia"
    assert labels.domain_of("https://EN.Wikipedia.org./wiki/A", "web") == "encyclopedia"  # host case, root dot
    assert labels.domain_of("https://en.wikipedia.org/w/index.php?title=A", "web") == "web"  # path rule misses
    assert labels.domain_of("https://wikipedia.org/wiki/A", "web") == "web"  # *. needs a subdomain
    assert labels.domain_of("https://github.com/news/x", "web") == "code"  # before the news rule
    assert labels.domain_of("http://paper.example/news/2024/1", "web") == "news"
    assert labels.domain_of(None, "encyclopedia") == "encyclopedia"
    assert labels.domain_of("http://[broken/", "web") == "web"
    assert not DomainRules(DomainsConfig()) and DomainRules(DomainsConfig()).domain_of("https://github.com", "x") == "x"


def test_a_bad_rule_fails_when_the_config_loads():
    with pytest.raises(ConfigError, match="domains.rules.0.path"):
        load_config(None, ["domains.rules=[{host: '*', path: '(', domain: x}]"])
    with pytest.raises(ConfigError, match="domains.rules.0.domain"):
        load_config(None, ["domains.rules=[{host: '*'}]"])


def test_ingest_labels_by_url_and_falls_back_on_its_domain(tmp_path):
    records = [
        {"id": "1", "text": "An article.", "url": "https://en.wikipedia.org/wiki/Alabama"},
        {"id": "2", "text": "Some code.", "url": "https://github.com/a/b"},
        {"id": "3", "text": "No URL at all."},
    ]
    source = write_jsonl(tmp_path / "mixed.jsonl", records)
    result = ingest([source], tmp_path / "out", f"domains.rules={RULES}", "ingest.domain=books")
    assert [r["domain"] for r in kept(result, ["domain"])] == ["encyclopedia", "code", "books"]


def test_extract_sets_source_and_domain_on_real_pages():
    warc = shared_data("warc/cc-main-2020-34-excerpt.warc.gz")
    domains = load_config(None, ["domains.rules=[{host: '*.live-radsport.ch', domain: sports}]"]).domains
    stage = ExtractStage(ExtractConfig(source="cc", domain="web"), domains)
    rows = [row for row, _ in stage.read(str(warc), StageStats("extract"))]
    assert {row["source"] for row in rows} == {"cc"}
    sports = {row["url"] for row in rows if row["domain"] == "sports"}
    assert sports == {u for u in (row["url"] for row in rows) if u and ".live-radsport.ch/" in u} and len(sports) == 2
    assert {row["domain"] for row in rows} == {"sports", "web"}
    assert ExtractStage().config_fingerprint() != stage.config_fingerprint()
