"""The address rule, proven without a packet leaving loopback.

Names are resolved by StaticResolver (crawl.static_hosts), so no DNS query is sent; requests to a
name mapped to a private or link-local address go to a recording download handler instead of the
network, so even a broken rule could not send anything: the test asserts nothing was recorded.
"""

import os
from pathlib import Path

import pytest
from crawl_helpers import loopback_config, run_crawl

from corpus_pipeline.crawl.safety import AddressPolicy, StaticResolver, forbidden_kind
from corpus_pipeline.demo.server import DemoServer

HERE = Path(__file__).parent


@pytest.mark.parametrize(
    ("ip", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.1", "private"),
        ("169.254.169.254", "link_local"),
        ("224.0.0.1", "multicast"),
        ("::1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("fe80::1", "link_local"),
        ("100.64.0.1", "not_global"),
        ("93.184.216.34", None),
    ],
)
def test_forbidden_address_classes(ip, kind):
    assert forbidden_kind(ip) == kind


def test_allowlist_lifts_the_rule_by_network_or_host():
    policy = AddressPolicy.from_allowlist(["127.0.0.0/8", "intranet.corp"])
    assert policy.refusal("localhost", "127.0.0.5") is None
    assert policy.refusal("intranet.corp", "10.0.0.7") is None
    assert policy.refusal("other.corp", "10.0.0.7") == "private"


def test_static_resolver_answers_only_from_its_table():
    resolver = StaticResolver({"Site.Test": "10.9.9.9"})
    answers, failures = [], []
    resolver.getHostByName("site.test.").addCallback(answers.append)
    resolver.getHostByName("127.0.0.1").addCallback(answers.append)
    resolver.getHostByName("unknown.test").addErrback(failures.append)
    assert answers == ["10.9.9.9", "127.0.0.1"]
    assert len(failures) == 1


@pytest.fixture(scope="module")
def server():
    with DemoServer(max_articles_per_source=1) as demo:
        yield demo


def test_loopback_refused_unless_allowlisted(server, tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{server.base_url}/\n")
    before = len(server.log)
    stats = run_crawl(seeds, tmp_path / "crawl", loopback_config(allow_addresses=[])).stats
    assert stats.dropped == {"refused_by_safety": 1}
    assert len(server.log) == before  # not even robots.txt was requested


def _recorded_crawl(tmp_path: Path, monkeypatch, allow: list[str]) -> tuple[dict, list[str]]:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    log = tmp_path / "downloads.log"
    log.touch()
    handler = "crawl_recording_handler.RecordingHandler"
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://intranet.test/\nhttp://metadata.test/latest/\n")
    config = loopback_config(
        allow_addresses=allow,
        static_hosts={"intranet.test": "10.20.30.40", "metadata.test": "169.254.169.254"},
        scrapy_settings={
            "DOWNLOAD_HANDLERS": {"http": handler, "https": handler},
            "CRAWL_TEST_DOWNLOAD_LOG": str(log),
        },
    )
    stats = run_crawl(seeds, tmp_path / "crawl", config)
    return stats.stats.to_dict(), log.read_text().split()


def test_names_resolving_to_private_or_link_local_are_refused_before_any_connect(tmp_path, monkeypatch):
    stats, attempted = _recorded_crawl(tmp_path, monkeypatch, allow=[])
    assert stats["dropped"] == {"refused_by_safety": 2}
    assert attempted == []


def test_the_recording_handler_does_see_allowlisted_requests(tmp_path, monkeypatch):
    # The control for the test above: with the rule lifted the same requests reach the handler.
    stats, attempted = _recorded_crawl(tmp_path, monkeypatch, allow=["10.0.0.0/8", "169.254.0.0/16"])
    assert "http://intranet.test/" in attempted and "http://metadata.test/latest/" in attempted
    assert stats["kept"] == 2
