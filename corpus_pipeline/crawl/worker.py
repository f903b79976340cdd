"""One crawl task in its own process: `python -m corpus_pipeline.crawl.worker SPEC.json`.

A process per task because scrapy's Twisted reactor cannot be restarted inside a process. The
spec (written by runner.py) names the seeds, the config, the WARC directory and the stats path;
the stats file is written last, so its presence means the task finished.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scrapy.crawler import CrawlerProcess

from corpus_pipeline import __version__
from corpus_pipeline.crawl.config import CrawlConfig
from corpus_pipeline.crawl.seeds import url_domain
from corpus_pipeline.crawl.settings import scrapy_settings
from corpus_pipeline.crawl.spider import CorpusSpider
from corpus_pipeline.crawl.stats import CrawlCounters
from corpus_pipeline.crawl.warc_writer import RollingWarcWriter


def run_task(spec: dict) -> None:
    url_domain("http://example.com/")  # loads the public suffix list (~0.5 s) before the task clock starts
    config = CrawlConfig(**spec["config"])
    task_id = spec["task_id"]
    writer = RollingWarcWriter(
        Path(spec["warc_dir"]),
        f"{config.warc_prefix}-{task_id:05d}",
        config.warc_max_bytes,
        software=f"corpus_pipeline/{__version__} (scrapy)",
        user_agent=config.user_agent,
    )
    counters = CrawlCounters(task_id)
    process = CrawlerProcess(scrapy_settings(config))
    process.crawl(CorpusSpider, spec=spec, writer=writer, counters=counters)
    process.start()
    if process.bootstrap_failed:
        raise RuntimeError("the crawl did not start; see the log above")
    files = writer.close()
    stats = counters.finish()
    stats.count("crawl", "warc_files", len(files))
    stats_path = Path(spec["stats_path"])
    stats_path.parent.mkdir(parents=True, exist_ok=True)
    stats.write(stats_path)


def main(argv: list[str]) -> int:
    run_task(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
