"""Measured gaps between requests to one host: the configured delay and robots.txt Crawl-delay."""

import pytest
from crawl_helpers import loopback_config, run_crawl

from corpus_pipeline.demo.server import DemoServer

PAGES = 6
TOLERANCE_S = 0.01  # server-side timestamps of a request sent at t arrive a little after t


@pytest.fixture(scope="module")
def server():
    with DemoServer(max_articles_per_source=2) as demo:
        yield demo


def _page_gaps(server, tmp_path, config) -> list[float]:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{server.base_url}/\n")
    started = len(server.log)
    result = run_crawl(seeds, tmp_path / "crawl", config)
    assert result.stats.docs_in == PAGES
    starts = sorted(r.start for r in server.log[started:] if r.path != "/robots.txt")
    assert len(starts) == PAGES
    return [later - earlier for earlier, later in zip(starts, starts[1:], strict=False)]


def test_gap_between_requests_is_at_least_the_configured_delay(server, tmp_path):
    server.robots_txt = server.site.robots_txt
    config = loopback_config(download_delay=0.2, concurrent_requests_per_domain=4, max_pages=PAGES)
    assert min(_page_gaps(server, tmp_path, config)) >= 0.2 - TOLERANCE_S


def test_robots_crawl_delay_is_honoured_above_the_configured_delay(server, tmp_path):
    server.robots_txt = server.site.robots_txt.replace("User-agent: *\n", "User-agent: *\nCrawl-delay: 0.3\n")
    try:
        config = loopback_config(download_delay=0.0, concurrent_requests_per_domain=4, max_pages=PAGES)
        assert min(_page_gaps(server, tmp_path, config)) >= 0.3 - TOLERANCE_S
    finally:
        server.robots_txt = server.site.robots_txt


def test_autothrottle_never_goes_below_crawl_delay(server, tmp_path):
    server.robots_txt = server.site.robots_txt.replace("User-agent: *\n", "User-agent: *\nCrawl-delay: 0.25\n")
    try:
        config = loopback_config(autothrottle=True, download_delay=0.0, max_pages=PAGES)
        assert min(_page_gaps(server, tmp_path, config)) >= 0.25 - TOLERANCE_S
    finally:
        server.robots_txt = server.site.robots_txt
