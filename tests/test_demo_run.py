"""`make demo` on Spark local[2]: crawl the demo site, ingest gensim's Wikipedia dump and People's
Daily as JSON lines, the whole pipeline over the three sources to mixed shards, then a rerun that
reuses it all."""

import json
import re
import socket

import pyarrow.parquet as pq
import pytest
from conftest import PROJECT_ROOT
from report_browser import find_chromium, load_figures

from corpus_pipeline.config import load_config
from corpus_pipeline.demo_run import DEMO_NEWS_ARTICLES, run_demo

pytestmark = pytest.mark.spark


def test_demo_crawls_runs_every_stage_and_reruns_as_a_no_op(spark, tmp_path):
    # 20 training steps instead of the demo's 100: the step is what is tested, not the model.
    overrides = [f"data_root={tmp_path}", "pipeline.train_overrides=[max_steps=20, eval_every=20]"]
    config = load_config(PROJECT_ROOT / "configs" / "demo.yaml", overrides)
    with socket.socket() as probe:  # a free port, the same for both runs (URLs decide document ids)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_demo(config, "spark", port=port)
    assert result.status == "succeeded", result.record.data["reason"]
    stats = {name: outcome.stats for name, outcome in result.outcomes.items() if outcome.stats is not None}
    assert list(stats) == [
        *("web/crawl", "web/extract", "web/langid", "web/normalize"),
        *("wikipedia/ingest", "wikipedia/langid", "wikipedia/normalize"),
        *("peoples_daily/ingest", "peoples_daily/langid", "peoples_daily/normalize"),
        *("dedup", "pii", "quality", "decontaminate", "mix"),
    ]
    assert stats["web/crawl"].dropped["robots_blocked"] > 0, "the /private/ section is disallowed"
    assert stats["web/extract"].kept > 300
    languages = stats["web/langid"].extra["languages"]
    assert languages["zh"] > 200 and languages["en"] > 50
    assert stats["wikipedia/ingest"].kept == 106 and stats["peoples_daily/ingest"].kept == DEMO_NEWS_ARTICLES
    texts = pq.read_table(result.outcomes["web/normalize"].output, columns=["text"]).column("text").to_pylist()
    assert not any("本网站使用cookie" in text for text in texts)
    # The site serves copies of its own pages (/archive/, /partner/) and of Wikipedia and People's
    # Daily articles that the other two sources hold: only web copies are dropped.
    dedup = result.outcomes["dedup"].output
    dropped = pq.read_table(dedup / "_rejected", columns=["source", "reject_detail"]).to_pylist()
    kept_source = {row["id"]: row["source"] for row in pq.read_table(dedup, columns=["id", "source"]).to_pylist()}
    assert len(dropped) >= 10 and {row["source"] for row in dropped} == {"web"}
    assert {kept_source[row["reject_detail"]] for row in dropped} == {"web", "wikipedia", "peoples_daily"}
    for stage in stats.values():
        assert stage.docs_in == stage.kept + sum(stage.dropped.values()), stage.stage
    manifest = json.loads((result.context.tokens / "manifest.json").read_text())
    for group, target in config.mix.targets.items():
        assert abs(manifest["mix"]["groups"][group]["achieved"] - target) < 0.01, group
    in_shards = pq.read_metadata(result.context.tokens / "documents.parquet").num_rows
    assert sum(shard["documents"] for shard in manifest["shards"]) == in_shards
    training = result.outcomes["train"]
    assert training.notes["steps"] == 20 and training.notes["val_loss"] < 9.0
    page = result.outcomes["report"].output.read_text(encoding="utf-8")
    assert page.count("<svg") > 10 and "<td>peoples_daily</td><td>30.0%</td>" in page
    # Quality ran fused (its documents are in 07_decontaminate): every histogram still draws them.
    kept = [float(n) for n in re.findall(r'<figure class="plot" data-drawn="[^"]*" data-kept="([^"]*)"', page)]
    assert len(kept) >= 20 and min(kept) > 0
    empty = re.findall(r'<figure class="plot" data-drawn="0"[^>]*><figcaption>([^<]*)', page)
    # Every figure draws something but PII's: the demo's text holds none (every pii_*_count column
    # sums to 0 over the 836 documents pii kept), so its charts show each type looked for at 0.
    assert empty == ["PII matches by type", "documents with a match, by type"], empty
    rerun = run_demo(config, "spark", port=port)
    ran = {o.status for name, o in rerun.outcomes.items() if name not in ("gates", "report")}
    assert ran <= {"reused", "not needed"} and "reused" in ran
    if find_chromium() is not None:  # the demo's page as a browser draws it (make test installs chromium)
        _, console, figures = load_figures(result.outcomes["report"].output, tmp_path / "profile")
        assert console == []
        no_bars = [caption for caption, _, bars, _ in figures if bars == 0]
        assert no_bars == ["PII matches by type", "documents with a match, by type"], no_bars
        assert [caption for caption, _, _, kept in figures if kept == 0] == []  # every histogram draws kept
