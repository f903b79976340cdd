"""The Spark adapter runs the same stages to the same outputs as the local executor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import PROJECT_ROOT, html_page, write_warc
from stage_fixtures import stage_dir

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.stage_runner import run_stage

pytestmark = pytest.mark.spark

TEXTS = {
    "en": "The harbour authority published new rules for cargo ships entering the port at night. ",
    "zh": "今年以来，全国各地认真贯彻落实中央经济工作会议精神，经济运行总体平稳。",
    "de": "Die Stadtverwaltung hat neue Regeln für den Verkehr in der Innenstadt beschlossen. ",
}


def make_warcs(root: Path, files: int = 3, pages: int = 6) -> list[str]:
    paths = []
    for f in range(files):
        records = []
        for p in range(pages):
            language = list(TEXTS)[(f + p) % 3]
            body = "".join(f"<p>{TEXTS[language] * 3} ({f}-{p}-{i})</p>" for i in range(3))
            records.append(
                {
                    "url": f"https://site{f}.example/{p}",
                    "payload": html_page(body).encode(),
                    "content_type": "text/html; charset=utf-8",
                }
            )
        records.append(
            {"url": f"https://site{f}.example/x.png", "payload": b"\x89PNG\x00", "content_type": "image/png"}
        )
        paths.append(str(write_warc(root / f"crawl-{f}.warc.gz", records)))
    return paths


def rows(directory: Path, columns=("id", "language", "text")) -> list[dict]:
    table = pq.read_table(sorted(directory.glob("part-*.parquet")), columns=list(columns))
    return sorted(table.to_pylist(), key=lambda r: r["id"])


def test_extract_and_langid_on_spark_equal_local(spark, tmp_path):
    warcs = make_warcs(tmp_path)
    config = PipelineConfig.model_validate({"langid": {"allowed_languages": ["en", "zh"]}})
    outputs = {}
    for name, executor in (("local", LocalExecutor()), ("spark", SparkExecutor(spark))):
        extracted = run_stage("extract", warcs, stage_dir(tmp_path / name, "extract"), config, executor)
        identified = run_stage("langid", extracted.output, stage_dir(tmp_path / name, "langid"), config, executor)
        outputs[name] = (extracted, identified)
    (local_x, local_l), (spark_x, spark_l) = outputs["local"], outputs["spark"]
    assert rows(spark_x.output) == rows(local_x.output)
    assert rows(spark_l.output) == rows(local_l.output)
    for local, distributed in ((local_x, spark_x), (local_l, spark_l)):
        a, b = local.stats.to_dict(), distributed.stats.to_dict()
        for key in ("docs_in", "bytes_in", "kept", "bytes_kept", "dropped"):
            assert a[key] == b[key], key
    assert spark_x.stats.tasks == 3, "one task per input file"
    assert spark_x.stats.to_dict()["dropped"] == {"not_html": 3}
    assert spark_l.stats.to_dict()["dropped"] == {"language_not_allowed": 6}
    assert spark_l.stats.tasks >= 2, "small inputs are spread over the cores"
    assert spark_x.output.joinpath("_SUCCESS").exists()


def test_spark_rerun_is_skipped(spark, tmp_path):
    warcs = make_warcs(tmp_path, files=1)
    config = PipelineConfig()
    first = run_stage("extract", warcs, tmp_path / "x", config, SparkExecutor(spark))
    second = run_stage("extract", warcs, tmp_path / "x", config, SparkExecutor(spark))
    assert not first.skipped and second.skipped


def test_jobs_run_unchanged_under_spark_submit(tmp_path):
    """`spark-submit jobs/stage.py extract` is the cluster entry point: same arguments as the CLI verb."""
    from pyspark.find_spark_home import _find_spark_home

    warcs = make_warcs(tmp_path, files=2, pages=2)
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    spark_submit = Path(_find_spark_home()) / "bin" / "spark-submit"
    output = tmp_path / "submitted"
    completed = subprocess.run(
        [
            str(spark_submit),
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            str(PROJECT_ROOT / "jobs" / "stage.py"),
            "extract",
            "--input",
            *warcs,
            "--output",
            str(output),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    stats = json.loads((output / "_stats.json").read_text())
    assert (stats["docs_in"], stats["kept"], stats["tasks"]) == (6, 4, 2)
    assert "extract" in completed.stdout


def test_spark_schema_is_derived_from_the_arrow_schema():
    from corpus_pipeline.document import DOCUMENT_SCHEMA
    from corpus_pipeline.engine.exec.spark import spark_schema

    derived = spark_schema(DOCUMENT_SCHEMA)
    assert derived.fieldNames() == DOCUMENT_SCHEMA.names
    assert derived["language_score"].dataType.simpleString() == "float"
    assert derived["language_topk"].dataType.simpleString() == "array<struct<language:string,score:float>>"
    assert not derived["id"].nullable and derived["url"].nullable


def test_no_job_shadows_a_standard_library_module():
    """spark-submit puts jobs/ first on sys.path: a jobs/tokenize.py broke every job (linecache)."""
    names = {path.stem for path in (PROJECT_ROOT / "jobs").glob("*.py")}
    assert not names & set(sys.stdlib_module_names)


def test_the_embedded_jvm_starts_with_the_quick_start_flags(spark):
    """Embedded local mode only: C1 JIT and the serial collector (SparkConfig.quick_start_jvm)."""
    from corpus_pipeline.engine.exec.session import QUICK_START_JVM

    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    assert set(QUICK_START_JVM.split()) <= set(runtime.getInputArguments())
