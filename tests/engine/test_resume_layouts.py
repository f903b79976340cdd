"""A run interrupted on Spark local[2] and resumed under another layout (the local runner, local[1],
local[3]) gives the bytes of an unbroken run, for every kind of stage: source (extract, of whole files
and of byte spans of one), document (langid), dedup and tokenize; and with `spark.speculation` on,
copies of a task never mix.

The interruption is a fault in one task: the commit of the last task fails (fault_injection/
sitecustomize.py, in the driver and every Spark Python worker), so Spark aborts the stage after the
tasks before it finished and committed (on two cores the last task starts only once two are done).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, word_pages, write_warc
from stage_fixtures import real_documents, write_stage
from stage_plans import planned_dirs
from test_spark_runner import make_warcs

from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import SUCCESS
from corpus_pipeline.engine.store.task_output import COMMITTED_DIR, STATS_DIR
from corpus_pipeline.stage_runner import run_stage

pytestmark = pytest.mark.spark

SPANS = "engine.task_bytes=65536"
SPARK_UI_OFF = 'spark.conf={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "3"}'


FAULT_INJECTION = Path(__file__).parent / "fault_injection"


def cli(stage: str, source, output: Path, overrides: list[str], options: dict, master: str, *conf: str, env=None):
    """`corpus-pipeline STAGE` on Spark `master` in a process of its own (one SparkContext each)."""
    inputs = [str(p) for p in source] if isinstance(source, list) else [str(source)]
    argv = [sys.executable, "-m", "corpus_pipeline.cli", stage, "--input", *inputs, "--output", str(output)]
    for flag, value in options.items():
        argv += [f"--{flag}", str(value)]
    for override in [*overrides, f"spark.master={master}", SPARK_UI_OFF, *conf]:
        argv += ["--set", override]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1", **(env or {})}
    return subprocess.run(argv + ["--runner", "spark"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)


def published(directory: Path) -> dict[str, bytes]:
    """Every file of a stage directory, `_stats.json` without its clock readings."""
    files = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "_stats.json" or path.parent.name == STATS_DIR:
            counters = json.loads(data)
            data = json.dumps({k: v for k, v in counters.items() if k not in ("seconds", "task_seconds")}).encode()
        files[str(path.relative_to(directory))] = data
    return files


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("resume-inputs")
    docs = write_stage(root / "docs", real_documents(english=40, chinese=40), parts=4)
    small = PipelineConfig.model_validate({"train_tokenizer": {"vocab_size": 600}})
    tokenizer = run_stage("train-tokenizer", docs, root / "tokenizer", small, LocalExecutor()).output
    return {
        "source": ("extract", make_warcs(root, files=4, pages=3), [], {}),
        # One WARC of 4 byte spans (engine.task_bytes): tasks named by the file and the span.
        "spans": ("extract", [str(write_warc(root / "one.warc.gz", word_pages(120, seed=5)))], [SPANS], {}),
        "document": ("langid", docs, [], {}),
        "dedup": ("dedup", docs, [], {}),
        "tokenize": ("tokenize", docs, ["tokenize.shard_bytes=4000"], {"tokenizer": tokenizer}),
    }


@pytest.mark.parametrize("kind", ["source", "spans", "document", "dedup", "tokenize"])
def test_an_interrupted_stage_resumes_under_any_layout_to_the_same_bytes(kind, inputs, tmp_path, spark):
    stage, source, overrides, options = inputs[kind]
    config = load_config(None, overrides)
    reference = run_stage(stage, source, tmp_path / "unbroken", config, LocalExecutor(config.spark), **options)
    assert reference.stats.tasks >= 3, "enough tasks for some to finish and one to fail"

    interrupted = tmp_path / "resumed-local"
    work = planned_dirs([stage], source, [interrupted], config, LocalExecutor(), **options)[0].work
    last = max(path.stem for path in (reference.output / STATS_DIR).glob("part-*.json"))
    fault = tmp_path / f"disk-refuses-{last}"
    fault.touch()
    pythonpath = os.pathsep.join([str(FAULT_INJECTION), *sys.path[1:]])
    injected = {"FAIL_COMMIT_OF": last, "FAIL_COMMIT_WHILE": str(fault), "PYTHONPATH": pythonpath}
    failed = cli(stage, source, interrupted, overrides, options, "local[2]", env=injected)
    assert failed.returncode != 0 and "injected fault" in failed.stderr, failed.stdout[-2000:]
    assert not (interrupted / SUCCESS).exists(), "nothing is published"
    finished = sorted(p.name for p in (work / COMMITTED_DIR).iterdir())
    assert finished and last not in finished, finished
    fault.unlink()

    # The same interrupted state, resumed three ways.
    copies = {}
    for master in ("local[1]", "local[3]"):
        copy = tmp_path / f"resumed-{master[6]}"
        shutil.copytree(work, work.with_name(f".{copy.name}{work.name.removeprefix('.' + interrupted.name)}"))
        copies[master] = copy
    with ThreadPoolExecutor(2) as pool:
        runs = {m: pool.submit(cli, stage, source, out, overrides, options, m) for m, out in copies.items()}
        resumed = run_stage(stage, source, interrupted, config, LocalExecutor(config.spark), **options)
        for run in runs.values():
            assert run.result().returncode == 0, run.result().stderr[-3000:]
    assert resumed.stats.docs_in == reference.stats.docs_in
    expected = published(reference.output)
    for output in (interrupted, *copies.values()):
        assert published(output) == expected, output.name
        assert not list(output.parent.glob(f".{output.name}.inprogress-*")), "work directories are gone"


def test_speculative_copies_of_tasks_never_mix(inputs, tmp_path):
    """With speculation on and every running task a candidate, the output is the unbroken one."""
    stage, source, overrides, options = inputs["source"]
    reference = run_stage(stage, source, tmp_path / "reference", PipelineConfig(), LocalExecutor())
    speculation = [
        'spark.conf={"spark.ui.enabled": "false", "spark.speculation": "true", "spark.speculation.interval": "10ms",'
        ' "spark.speculation.multiplier": "1.0", "spark.speculation.quantile": "0.1",'
        ' "spark.speculation.minTaskRuntime": "1ms"}'
    ]
    run = cli(stage, source, tmp_path / "speculated", [], {}, "local[2]", *speculation)
    assert run.returncode == 0, run.stderr[-3000:]
    assert published(tmp_path / "speculated") == published(reference.output)
