"""`make demo` on Spark local[2]: crawl the demo site, the whole pipeline, then a rerun that reuses it all."""

import json
import socket

import pyarrow.parquet as pq
import pytest
from conftest import PROJECT_ROOT

from corpus_pipeline.config import load_config
from corpus_pipeline.demo_run import run_demo

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
    assert list(stats) == ["crawl", "extract", "langid", "normalize", "dedup", "pii", "quality", "tokenize"]
    assert stats["crawl"].dropped["robots_blocked"] > 0, "the /private/ section is disallowed"
    assert stats["extract"].kept > 300
    languages = stats["langid"].extra["languages"]
    assert languages["zh"] > 200 and languages["en"] > 50
    texts = pq.read_table(result.outcomes["normalize"].output, columns=["text"]).column("text").to_pylist()
    assert not any("本网站使用cookie" in text for text in texts)
    # the demo site serves byte-identical copies under /archive/ and near-copies under /partner/
    assert stats["dedup"].dropped["exact_duplicate"] + stats["dedup"].dropped["minhash_duplicate"] >= 10
    for stage in stats.values():
        assert stage.docs_in == stage.kept + sum(stage.dropped.values()), stage.stage
    manifest = json.loads((result.context.tokens / "manifest.json").read_text())
    assert sum(shard["documents"] for shard in manifest["shards"]) == stats["tokenize"].kept
    training = result.outcomes["train"]
    assert training.notes["steps"] == 20 and training.notes["val_loss"] < 9.0
    assert (result.outcomes["report"].output).read_text(encoding="utf-8").count("<svg") > 10
    rerun = run_demo(config, "spark", port=port)
    assert {o.status for name, o in rerun.outcomes.items() if name not in ("gates", "report")} == {"reused"}
