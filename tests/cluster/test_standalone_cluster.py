"""The pipeline's spark-submit jobs on a real standalone cluster (a master and a worker on loopback)
give the same documents as the same stages run on one machine.

Two jobs, extract then langid: each submit costs a driver JVM, an executor JVM and their Python
processes (about a minute of wall time when four agents share the two cores), so the test covers one
source stage (executors read the WARC files) and one document stage (mapInArrow, the fastText model
loaded on the executor) rather than every stage. The reference is the same CLI verbs with the local
runner, in this process: tests/engine/test_spark_runner.py holds the local runner and Spark local
mode to the same output, and a local-mode Spark run here would cost as much as a cluster job."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import PROJECT_ROOT, html_page, write_warc
from stage_fixtures import stage_dir

from corpus_pipeline.cli import main as corpus_pipeline
from corpus_pipeline.loopback_cluster import log_tail, standalone_cluster

pytestmark = pytest.mark.cluster

# One paragraph per page, so that no two pages are near-duplicates of each other.
PAGES = {
    "en": [
        "The harbour authority published new rules for cargo ships entering the port at night.",
        "Volunteers planted four hundred oak trees along the river bank over the weekend.",
        "The city library will extend its opening hours during the examination period.",
    ],
    "zh": [
        "今年以来，全国各地认真贯彻落实中央经济工作会议精神，经济运行总体平稳。",
        "气象部门预计，本周北方地区将迎来大范围降温，局部地区有中到大雪。",
        "这所大学新建的图书馆正式开放，可同时容纳三千名学生在馆内学习。",
    ],
    "de": [
        "Die Stadtverwaltung hat neue Regeln für den Verkehr in der Innenstadt beschlossen.",
        "Im Museum der Stadt beginnt am Freitag eine Ausstellung über alte Landkarten.",
        "Der Bahnhof wird im kommenden Jahr umgebaut und erhält zwei neue Bahnsteige.",
    ],
}
LANGID_ONLY_EN_ZH = ["--set", "langid.allowed_languages=[en,zh]"]


def crawl(root: Path) -> list[str]:
    """Three WARCs, each with an English, a Chinese and a German page and an image (not_html)."""
    root.mkdir()
    paths = []
    for number in range(3):
        records = [
            {
                "url": f"https://site{number}.example/{language}",
                "payload": html_page(f"<p>{PAGES[language][number]}</p>" * 4, title=language).encode(),
                "content_type": "text/html; charset=utf-8",
            }
            for language in PAGES
        ]
        records.append({"url": f"https://site{number}.example/logo.png", "payload": b"\x89PNG\x00"})
        paths.append(str(write_warc(root / f"crawl-{number}.warc.gz", records)))
    return paths


def stage_runs(inputs: list[str], run: Path) -> list[tuple[str, list[str]]]:
    """(verb, arguments) of extract then langid into `run`; `jobs/stage.py verb` takes the same arguments."""
    return [
        ("extract", ["--input", *inputs, "--output", str(stage_dir(run, "extract"))]),
        (
            "langid",
            ["--input", str(stage_dir(run, "extract")), "--output", str(stage_dir(run, "langid")), *LANGID_ONLY_EN_ZH],
        ),
    ]


def documents(directory: Path) -> list[tuple[str, str, str | None]]:
    table = pq.read_table(sorted(directory.glob("part-*.parquet")), columns=["id", "text", "language"])
    return sorted(zip(table["id"].to_pylist(), table["text"].to_pylist(), table["language"].to_pylist(), strict=True))


def counts(directory: Path) -> dict:
    stats = json.loads((directory / "_stats.json").read_text())
    return {key: stats[key] for key in ("docs_in", "kept", "dropped")}


def test_jobs_on_a_standalone_cluster_equal_one_machine(tmp_path):
    inputs = crawl(tmp_path / "crawl")
    local_run, cluster_run = tmp_path / "local", tmp_path / "cluster"
    with standalone_cluster(tmp_path / "spark") as cluster:
        # The reference, while the master and worker JVMs start: the CLI entry the jobs call.
        for verb, arguments in stage_runs(inputs, local_run):
            assert corpus_pipeline([verb, *arguments, "--runner", "local"]) == 0, verb
        worker = cluster.wait_for_worker()
        assert (worker["cores"], worker["memory"]) == (1, 1024)
        for verb, arguments in stage_runs(inputs, cluster_run):
            completed = cluster.submit(PROJECT_ROOT / "jobs" / "stage.py", [verb, *arguments], name=verb)
            assert completed.returncode == 0, log_tail(cluster.root / f"{verb}.log")

    for stage in ("extract", "langid"):
        assert documents(stage_dir(cluster_run, stage)) == documents(stage_dir(local_run, stage)), stage
        assert counts(stage_dir(cluster_run, stage)) == counts(stage_dir(local_run, stage)), stage
    assert counts(stage_dir(cluster_run, "extract")) == {"docs_in": 12, "kept": 9, "dropped": {"not_html": 3}}
    assert counts(stage_dir(cluster_run, "langid")) == {"docs_in": 9, "kept": 6, "dropped": {"language_not_allowed": 3}}
    assert {language for _, _, language in documents(stage_dir(cluster_run, "langid"))} == {"en", "zh"}
    # The tasks ran on the cluster: the worker launched one executor per submitted job.
    assert len(list((tmp_path / "spark" / "work").glob("*/app-*/0"))) == 2
