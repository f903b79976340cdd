"""The crawl as a Spark job (local[2]) fetches the same pages as a single-process crawl."""

import pytest
from crawl_helpers import loopback_config, run_crawl, warc_records

from corpus_pipeline.crawl.seeds import partition_by_domain
from corpus_pipeline.demo.server import DemoServer

pytestmark = pytest.mark.spark

# Two registered domains served by the same demo server, so the Spark job has two tasks.
HOSTS = ("news-site.test", "wiki-site.test")


def _fetched(crawl_dir) -> set[str]:
    return {h["WARC-Target-URI"] for kind, h, _, _ in warc_records(crawl_dir) if kind == "response"}


def test_spark_crawl_reproduces_the_single_process_crawl(spark, tmp_path):
    with DemoServer(max_articles_per_source=1, slow_seconds=0.1) as server:
        port = server.base_url.rsplit(":", 1)[1]
        seeds = [f"http://{host}:{port}/" for host in HOSTS]
        assert len(partition_by_domain(seeds, tasks=0)) == 2
        (tmp_path / "seeds.txt").write_text("\n".join(seeds) + "\n")
        config = loopback_config(static_hosts=dict.fromkeys(HOSTS, "127.0.0.1"))
        local = run_crawl(tmp_path / "seeds.txt", tmp_path / "local", config, runner="local")
        distributed = run_crawl(tmp_path / "seeds.txt", tmp_path / "spark", config, runner="spark")
    assert distributed.stats.tasks == 2
    assert len(list((distributed.output / "warc").glob("*.warc.gz"))) == 2
    assert _fetched(distributed.output) == _fetched(local.output)
    assert len(_fetched(local.output)) > 2 * len(server.page_paths()) - 10
    assert distributed.stats.to_dict()["dropped"] == local.stats.to_dict()["dropped"]
