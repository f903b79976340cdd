"""Shared by the crawl tests: the crawl stage as they run it, a fast loopback config and WARC readers."""

from __future__ import annotations

from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.lifecycle import StageResult
from corpus_pipeline.stage_runner import make_executor, run_stage


def run_crawl(
    seeds: Path, output: Path, config: PipelineConfig, runner: str = "local", previous: Path | None = None
) -> StageResult:
    return run_stage("crawl", seeds, output, config, make_executor(config, runner), previous=previous)


def loopback_config(**crawl) -> PipelineConfig:
    """Small delays and timeouts; 127.0.0.1 allowlisted, as the demo does."""
    settings = {
        "allow_addresses": ["127.0.0.1"],
        "download_delay": 0.0,
        "autothrottle": False,
        "timeout_s": 5.0,
        "retry_backoff_s": 0.05,
        "max_body_bytes": 100_000,
    }
    settings.update(crawl)
    return PipelineConfig(crawl=settings, spark={"master": "local[2]"})


def warc_records(crawl_dir: Path) -> list:
    """(record type, WARC headers dict, HTTP status or None, payload bytes) of every record,
    reading with digest checks on: a bad digest raises."""
    records = []
    for path in sorted((crawl_dir / "warc").glob("*.warc.gz")):
        with path.open("rb") as stream:
            for record in ArchiveIterator(stream, check_digests="raise"):
                status = record.http_headers.get_statuscode() if record.http_headers else None
                headers = dict(record.rec_headers.headers)
                records.append((record.rec_type, headers, status, record.content_stream().read()))
    return records


def response_paths(crawl_dir: Path, base_url: str, rec_type: str = "response") -> set[str]:
    return {h["WARC-Target-URI"].removeprefix(base_url) for t, h, _, _ in warc_records(crawl_dir) if t == rec_type}
