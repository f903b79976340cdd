"""A crawl of the demo site on 127.0.0.1: politeness, limits, faults of the site, WARC contents."""

import json
import os

import pyarrow.parquet as pq
import pytest
from crawl_helpers import loopback_config, response_paths, run_crawl, warc_records

from corpus_pipeline.demo.server import DemoServer
from corpus_pipeline.demo.site import DISALLOWED_SECTION
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage

PER_DOMAIN = 2
MAX_BODY = 100_000


@pytest.fixture(scope="module")
def server():
    with DemoServer(max_articles_per_source=3, slow_seconds=0.3, oversize_bytes=300_000) as demo:
        yield demo


@pytest.fixture(scope="module")
def crawl(server, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo_crawl")
    seeds = out / "seeds.txt"
    seeds.write_text(f"# the demo site\n{server.base_url}/\nmailto:editors@example.com\n")
    config = loopback_config(concurrent_requests_per_domain=PER_DOMAIN, download_delay=0.02, max_body_bytes=MAX_BODY)
    started = len(server.log)
    result = run_crawl(seeds, out / "crawl", config)
    return result, server.log[started:]


def test_every_public_page_is_fetched_once_and_the_disallowed_section_never(server, crawl):
    result, log = crawl
    fetched = response_paths(result.output, server.base_url)
    public = {p for p in server.page_paths() if not p.startswith(DISALLOWED_SECTION)}
    assert public <= fetched
    assert fetched - public == {"/slow.html", "/big.html", "/flaky.html"}
    assert not [r for r in log if r.path.startswith(DISALLOWED_SECTION)]
    assert result.stats.dropped["robots_blocked"] == 1
    page_requests = [r.path for r in log if r.path not in ("/flaky.html", "/robots.txt")]
    assert len(page_requests) == len(set(page_requests))  # the seen-set: nothing fetched twice


def test_per_host_concurrency_is_never_exceeded(server, crawl):
    assert 1 <= server.max_active <= PER_DOMAIN


def test_per_host_concurrency_holds_without_a_download_delay(tmp_path):
    with DemoServer(max_articles_per_source=5) as fresh:
        seeds = tmp_path / "seeds.txt"
        seeds.write_text(f"{fresh.base_url}/\n")
        run_crawl(seeds, tmp_path / "crawl", loopback_config(concurrent_requests_per_domain=2, download_delay=0.0))
        assert len(fresh.log) > 20 and 1 <= fresh.max_active <= 2


def test_site_faults_are_counted(server, crawl):
    result, log = crawl
    stats = result.stats
    assert stats.dropped["redirect_loop"] == 1
    assert stats.dropped["duplicate_redirect"] == 1  # /old-home -> / already fetched
    assert stats.dropped["http_4xx"] == 1 and stats.extra["status"]["404"] == 1
    assert stats.dropped["content_type"] == 1  # the PDF
    assert stats.dropped["malformed_seed"] == 1
    assert stats.dropped["too_many_redirects"] == 1  # /chain/0: 8 hops, at most 5 followed
    flaky = [r.start for r in log if r.path == "/flaky.html"]
    assert len(flaky) == 2 and flaky[1] - flaky[0] >= 0.05  # 503, retried after the backoff, then 200
    assert stats.docs_in == stats.kept + sum(stats.dropped.values())
    assert "line 3" in (result.output / "_seed_errors.txt").read_text()


def test_the_task_cpu_time_is_recorded_beside_its_wall_time(crawl):
    result, _ = crawl
    cpu_s = result.stats.extra["crawl"]["cpu_ms"] / 1000
    assert 0 < cpu_s <= result.stats.task_seconds * os.cpu_count()


def test_warc_records_carry_the_required_headers_and_validate(server, crawl):
    result, _ = crawl
    records = warc_records(result.output)  # digests checked while reading
    assert records[0][0] == "warcinfo"
    responses = [(h, status, body) for kind, h, status, body in records if kind == "response"]
    assert len([r for r in records if r[0] == "request"]) == len(responses) == result.stats.kept
    for headers, _, _ in responses:
        for name in ("WARC-Target-URI", "WARC-Date", "WARC-Record-ID", "WARC-Payload-Digest", "WARC-IP-Address"):
            assert headers.get(name), name
        assert headers["WARC-IP-Address"] == "127.0.0.1"
    big = [(h, b) for h, _, b in responses if h["WARC-Target-URI"].endswith("/big.html")]
    assert big[0][0]["WARC-Truncated"] == "length" and len(big[0][1]) == MAX_BODY
    assert sum("WARC-Truncated" in h for h, _, _ in responses) == 1 == result.stats.extra["crawl"]["truncated"]


def test_the_crawl_goes_through_the_extract_stage(server, crawl, tmp_path):
    result, _ = crawl
    extracted = run_stage("extract", [str(result.output)], tmp_path / "extract", loopback_config(), LocalExecutor())
    urls = set(pq.read_table(extracted.output).column("url").to_pylist())
    fetched = {server.base_url + path for path in response_paths(result.output, server.base_url)}
    article = next(p.url for p in server.site.pages if p.kind == "article")
    assert article in urls and urls <= fetched
    assert extracted.stats.kept == result.stats.kept
    assert extracted.stats.extra["warc_truncated"] == {"length": 1}


def test_recrawl_sends_conditional_requests_and_records_unchanged_pages(server, crawl, tmp_path):
    result, _ = crawl
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{server.base_url}/\n")
    started = len(server.log)
    again = run_crawl(seeds, tmp_path / "again", loopback_config(max_body_bytes=MAX_BODY), previous=result.output)
    log = server.log[started:]
    conditional = [r for r in log if "If-None-Match" in r.headers]
    assert len(conditional) == result.stats.kept
    assert again.stats.extra["crawl"]["unchanged"] == result.stats.kept
    revisited = response_paths(again.output, server.base_url, "revisit")
    assert revisited == response_paths(result.output, server.base_url)
    assert not response_paths(again.output, server.base_url)  # nothing downloaded again


def test_crawl_job_entry_point_and_cli_verb(server, tmp_path, capsys):
    import subprocess
    import sys
    from pathlib import Path

    job = Path(__file__).parents[2] / "jobs" / "stage.py"
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{server.base_url}/sitemap.xml\n")
    overrides = [
        "crawl.allow_addresses=[127.0.0.1]",
        "crawl.download_delay=0",
        "crawl.max_pages=4",
        "crawl.depth_limit=0",
    ]
    argv = [sys.executable, str(job), "crawl", "--seeds", str(seeds), "--output", str(tmp_path / "out")]
    argv += ["--runner", "local", *[arg for o in overrides for arg in ("--set", o)]]
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "crawl" in completed.stdout
    stats = json.loads((tmp_path / "out" / "_stats.json").read_text())
    assert stats["kept"] == 4 and stats["extra"]["crawl"]["sitemaps"] == 1
