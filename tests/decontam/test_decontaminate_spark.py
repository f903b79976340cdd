"""decontaminate on Spark local[2]: the same kept and rejected rows as in one process (each Python
worker loads the index the driver saved)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from decontam_fixtures import planted_run
from stage_fixtures import stage_dir

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.stage_runner import run_stage

pytestmark = pytest.mark.spark


def _rows(directory):
    return sorted(pq.read_table(directory).to_pylist(), key=lambda row: row["id"])


def test_spark_and_one_process_agree(spark, tmp_path):
    docs, eval_file = planted_run(tmp_path)
    config = PipelineConfig.model_validate(
        {
            "decontamination": {
                "eval_sets": [{"name": "humaneval", "builtin": "humaneval"}, {"name": "q", "path": str(eval_file)}]
            }
        }
    )
    source = stage_dir(tmp_path / "run", "quality")
    local = run_stage("decontaminate", source, tmp_path / "local", config, LocalExecutor())
    distributed = run_stage("decontaminate", source, tmp_path / "spark", config, SparkExecutor(spark))
    assert distributed.stats.dropped == local.stats.dropped == {"contaminated": 2}
    assert distributed.stats.extra == local.stats.extra
    assert _rows(tmp_path / "spark") == _rows(tmp_path / "local")
    rejected = [_rows(tmp_path / d / "_rejected") for d in ("spark", "local")]
    assert rejected[0] == rejected[1] and len(rejected[0]) == 2
