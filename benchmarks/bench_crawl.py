"""Crawl throughput on loopback: corpus_pipeline's crawler beside scrapy alone, on the demo site.

(a) scrapy alone: a plain link-following spider (robots.txt obeyed, same concurrency, no delay),
    counting pages and bytes and writing nothing.
(b) `run_stage("crawl", ...)` (--runner local): the same crawl plus the address rule, seen-set, stats and
    WARC/1.1 writing, in its worker process.
Both are timed inside their crawl process, from before the CrawlerProcess is built to after it
stops, so interpreter start-up is left out of both: wall seconds and that process's CPU seconds.
The reps alternate a, b, b, a, a, b ... so both columns see the same load from other processes on
average; rates use each column's fastest rep. The `others` column is the CPU other processes used
meanwhile (~0 on an idle machine). Target: (b) pages/s >= 0.9 x (a).

    .venv/bin/python benchmarks/run_all.py crawl [--reps N] [--quick]   # --quick: a small site, timings meaningless
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import harness
from common import Column, Ratio, StageReport, Target
from cpu_monitor import CpuMonitor
from harness import Results, Spec, option

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.demo.server import DemoServer
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage

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

    started, cpu_started = time.monotonic(), time.process_time()
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
    counts["cpu_seconds"] = time.process_time() - cpu_started
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
    stats = run_stage("crawl", seeds, work / "crawl", config, LocalExecutor(config.spark)).stats
    return {
        "pages": stats.extra["status"].get("200", 0),
        "bytes": stats.bytes_kept,
        "seconds": stats.task_seconds,
        "cpu_seconds": stats.extra["crawl"]["cpu_ms"] / 1000,
    }


COLUMNS = {"a": ("scrapy alone", run_scrapy_alone), "b": ("corpus_pipeline crawl stage", run_ours)}


def measure(reps: int, quick: bool, monitor: CpuMonitor) -> StageReport:
    runs: dict[str, list[dict]] = {key: [] for key in COLUMNS}
    others: dict[str, float] = dict.fromkeys(COLUMNS, 0.0)
    for rep in range(reps):
        for key in ("a", "b") if rep % 2 == 0 else ("b", "a"):
            with (
                tempfile.TemporaryDirectory() as tmp,
                DemoServer(max_articles_per_source=5 if quick else None) as server,
            ):
                before = monitor.snapshot()[0]
                runs[key].append(COLUMNS[key][1](server.base_url, Path(tmp)))
                others[key] += monitor.snapshot()[0] - before
    report = StageReport("crawl", "the demo site on 127.0.0.1, one host, robots.txt obeyed, no delay")
    for key, (label, _) in COLUMNS.items():
        pages = {r["pages"] for r in runs[key]}
        if len(pages) != 1:
            raise RuntimeError(f"({key}) fetched a different number of pages in each rep: {sorted(pages)}")
        column = Column(
            key,
            label,
            [r["seconds"] for r in runs[key]],
            pages.pop(),
            max(r["bytes"] for r in runs[key]) / MB,
            cpu_seconds=[r["cpu_seconds"] for r in runs[key]],
        )
        column.others_cpu_s = others[key]
        report.columns.append(column)
    a, b = report.column("a"), report.column("b")
    ratio = Ratio.of("pages/s (b) vs (a)", b, a, "fastest rep of each; CPU: the crawl process's own")
    report.ratios.append(ratio)
    report.targets.append(
        Target("corpus_pipeline (b) vs scrapy alone (a), pages/s", ratio.value, TARGET_RATIO, cpu_value=ratio.cpu_value)
    )
    if quick:
        report.notes.append("--quick: a smoke run, not a measurement")
    return report


def run(opts, results: Results) -> int:
    if opts.scrapy_alone:
        scrapy_alone(opts.scrapy_alone[0], Path(opts.scrapy_alone[1]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        monitor = CpuMonitor(Path(tmp) / "cpu-monitor.txt").start()
        try:
            report = measure(opts.reps, opts.quick, monitor)
        finally:
            monitor.stop()
    print(report.table())
    results.add_report(report)
    return 0


SPEC = Spec(
    "crawl",
    __doc__,
    run,
    shared=("quick", "reps"),
    options=(option("--scrapy-alone", hidden=True, nargs=2, metavar=("URL", "OUT")),),
    defaults={"reps": 3},
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
