"""`make demo`'s chain on Spark local[2]: the packaged real text through every stage, then a rerun."""

import pyarrow.parquet as pq
import pytest
from conftest import PROJECT_ROOT

from corpus_pipeline.config import load_config
from corpus_pipeline.demo_run import DEMO_WARC_FILES, run_demo

pytestmark = pytest.mark.spark


def test_demo_runs_every_stage_and_reruns_as_a_no_op(spark, tmp_path):
    config = load_config(PROJECT_ROOT / "configs" / "demo.yaml", [f"data_root={tmp_path}"])
    extracted, identified, normalized = run_demo(config, "spark")
    assert extracted.stats.tasks == DEMO_WARC_FILES
    assert extracted.stats.kept > 400
    assert identified.stats.extra["languages"]["zh"] > 300 and identified.stats.extra["languages"]["en"] > 50
    texts = pq.read_table(normalized.output, columns=["text", "language"]).to_pylist()
    assert len(texts) == normalized.stats.kept
    assert not any("本网站使用cookie" in row["text"] for row in texts)
    assert all(
        stats.docs_in == stats.kept + sum(stats.dropped.values())
        for stats in (extracted.stats, identified.stats, normalized.stats)
    )
    assert all(result.skipped for result in run_demo(config, "spark"))
