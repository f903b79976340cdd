"""crawl with an `s3://` output (the loopback S3 server): Scrapy writes the WARC files into the
scratch directory (storage.scratch_dir) and the finished stage is uploaded under its manifest; extract
reads those objects and keeps what it keeps from a local crawl of the same site."""

from __future__ import annotations

from crawl_helpers import loopback_config, run_crawl

from corpus_pipeline.config import StorageConfig
from corpus_pipeline.demo.server import DemoServer
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import read_success, stage_files
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage


def test_a_crawl_to_a_bucket_publishes_its_warc_files_through_the_manifest(s3_server, bucket, tmp_path):
    seeds = tmp_path / "seeds.txt"
    config = loopback_config().model_copy(update={"storage": StorageConfig(scratch_dir=str(tmp_path / "scratch"))})
    with DemoServer(max_articles_per_source=1) as demo:
        seeds.write_text(f"{demo.base_url}/\n")
        local = run_crawl(seeds, tmp_path / "crawl", config)
        remote = run_crawl(seeds, f"s3://{bucket}/crawl", config)
    assert remote.stats.kept == local.stats.kept > 0 and remote.stats.dropped == local.stats.dropped
    files = stage_files(remote.output, storage=Storage())
    warcs = [str(uri) for name, uri in files.items() if name.startswith("warc/")]
    assert len(warcs) == len(list((tmp_path / "crawl" / "warc").glob("*.warc.gz"))) >= 1
    assert read_success(remote.output, storage=Storage())["stage"] == "crawl"
    assert not any((tmp_path / "scratch").iterdir())  # uploaded, then the scratch is gone

    extracted = run_stage("extract", warcs, tmp_path / "from-s3", config, LocalExecutor())
    from_local = run_stage(
        "extract", [str(tmp_path / "crawl" / "warc")], tmp_path / "from-local", config, LocalExecutor()
    )
    assert extracted.stats.kept == from_local.stats.kept > 0
    assert (
        Storage().read_bytes(str(files["_seed_errors.txt"])) == (tmp_path / "crawl" / "_seed_errors.txt").read_bytes()
    )
