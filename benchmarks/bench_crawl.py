"""Crawl throughput on loopback: corpus_pipeline's crawler beside scrapy alone, on the demo site.

(a) scrapy alone: a plain link-following spider (robots.txt obeyed, same concurrency, no delay),
    counting pages and bytes and writing nothing.
(b) `run_crawl` (--runner local): the same crawl plus the address rule, seen-set, stats and
    WARC/1.1 writing, in its worker process.
Both are timed inside their crawl process, from before the CrawlerProcess is built to after it
stops, so interpreter start-up is left out of both. Target: (b) pages/s >= 0.9 x (a).

    .venv/bin/python benchmarks/bench_crawl.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.crawl.runner import run_crawl
from corpus_pipeline.demo.server import DemoServer

CONCURRENCY_PER_DOMAIN = 8
TARGET_RATIO = 0.9
MB = 1e6


def scrapy_alone(start_url: str, out: Path) -> None:
    """Runs in its own process (`--scrapy-alone URL OUT`): scrapy's reactor cannot restart."""
    import scrapy
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor

    counts = {"pages": 0, "bytes": 0}

    class PlainSpider(scrapy.Spider):
        name = "plain"
        start_urls = [start_url]
        allowed_domains = ["127.0.0.1"]
        links = LinkExtractor()

        def parse(self, response):
            if response.status != 200 or not response.headers.get("Content-Type", b"").startswith(b"text/html"):
                return  # counted as (b) counts: HTML pages with status 200
            counts["pages"] += 1
            counts["bytes"] += len(response.body)
            for link in self.links.extract_links(response):
                yield scrapy.Request(link.url, self.parse)

    started = time.monotonic()
    settings = {
        "ROBOTSTXT_OBEY": True,
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENCY_PER_DOMAIN,
        "DOWNLOAD_DELAY": 0,
        "REDIRECT_MAX_TIMES": 5,  # (b)'s default max_redirects
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
    }
    process = CrawlerProcess(settings)
    process.crawl(PlainSpider)
    process.start()
    counts["seconds"] = time.monotonic() - started
    out.write_text(json.dumps(counts))


def run_scrapy_alone(base_url: str, work: Path) -> dict:
    out = work / "scrapy_alone.json"
    subprocess.run([sys.executable, __file__, "--scrapy-alone", base_url + "/", str(out)], check=True)
    return json.loads(out.read_text())


def run_ours(base_url: str, work: Path) -> dict:
    seeds = work / "seeds.txt"
    seeds.write_text(base_url + "/\n")
    config = PipelineConfig(
        crawl={
            "allow_addresses": ["127.0.0.1"],
            "download_delay": 0.0,
            "autothrottle": False,
            "concurrent_requests_per_domain": CONCURRENCY_PER_DOMAIN,
            "depth_limit": 0,
        }
    )
    stats = run_crawl(seeds, work / "crawl", config).stats
    return {"pages": stats.extra["status"].get("200", 0), "bytes": stats.bytes_kept, "seconds": stats.task_seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small site: a smoke run, timings meaningless")
    parser.add_argument("--scrapy-alone", nargs=2, metavar=("URL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scrapy_alone:
        scrapy_alone(args.scrapy_alone[0], Path(args.scrapy_alone[1]))
        return 0
    with tempfile.TemporaryDirectory() as tmp, DemoServer(max_articles_per_source=5 if args.quick else None) as server:
        work = Path(tmp)
        columns = {
            "a scrapy alone": run_scrapy_alone(server.base_url, work),
            "b corpus_pipeline": run_ours(server.base_url, work),
        }
    print(f"{'':20} {'pages':>6} {'seconds':>8} {'pages/s':>8} {'MB/s':>6}")
    for label, c in columns.items():
        rate, mb_rate = c["pages"] / c["seconds"], c["bytes"] / MB / c["seconds"]
        print(f"{label:20} {c['pages']:6d} {c['seconds']:8.2f} {rate:8.1f} {mb_rate:6.2f}")
    ours, alone = columns["b corpus_pipeline"], columns["a scrapy alone"]
    ratio = (ours["pages"] / ours["seconds"]) / (alone["pages"] / alone["seconds"])
    caveat = "  [--quick: a smoke run, not a measurement]" if args.quick else ""
    print(f"ratio b/a pages/s: {ratio:.2f} (target >= {TARGET_RATIO}){caveat}")
    print(json.dumps({"stage": "crawl", "quick": args.quick, "columns": columns, "ratio": round(ratio, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
