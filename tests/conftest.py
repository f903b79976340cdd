"""Shared fixtures: where the real data lives, one local[2] SparkSession, one loopback S3 server,
small WARC builders; and the test tiers.

Tiers: `make test` runs everything (CI). `make test-fast` (`pytest --fast`) leaves out the tests
marked `spark` (a JVM), `cluster` (a standalone master and worker) and `slow` (subprocess runs of
the CLI, real-data runs, trainings: registered in pyproject.toml). A test that asks for the `spark`
fixture, directly or through another fixture, is marked `spark` here, so a new Spark test needs no
marker. Under --fast, `java` is a stub that fails with a message naming the rule, so a test that
starts a JVM by any other way (a verb run with its default `--runner spark`, a child process)
fails there instead of slowing the inner loop: mark it `spark`.

`make test` runs two pytest-xdist workers, each with its own session fixtures (its own SparkSession and
S3 server): a session fixture or cache that two workers could share must write a temporary name and
rename it, as the tokenizer and decontamination-index caches do, never a fixed path in place.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# CORPUS_TEST_DATA overrides it: an empty folder runs the tests as a machine without the data would.
SHARED_DATA = Path(os.environ.get("CORPUS_TEST_DATA", PROJECT_ROOT.parent / "shared" / "data"))


def shared_data(relative: str) -> Path:
    """A path under ../shared/data, or a skip naming what is missing (CI may not have it)."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"real data not available: {path} is absent (see ../shared/data/README.md)")
    return path


# The real WARC files every reader path is held to (`shared_data` names): Common Crawl and ClueWeb09
# excerpts, a WET file, and warcio's broken and odd files.
REAL_WARC_FILES = (
    "warc/cc-main-2020-34-excerpt.warc.gz",
    "warc/clueweb09-ja-quirk.warc.gz",
    "warc/cc-main-2024-22-one-page.warc.wet.gz",
    "warc/edge/clipped.warc.gz",
    "warc/edge/example-wrong-chunks.warc.gz",
    "warc/edge/example-trunc.warc",
    "warc/edge/example-bad-non-chunked.warc.gz",
    "warc/edge/example-iana.org-chunked.warc",
    "warc/edge/post-test.warc.gz",
)

FAST_TIER_LEAVES_OUT = ("spark", "cluster", "slow")
_NO_JVM = """#!/bin/sh
echo "the fast test tier starts no JVM: mark this test @pytest.mark.spark, or give it the spark fixture" >&2
exit 97
"""
_NO_JVM_HOME = pytest.StashKey[Path]()


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help=f"the fast tier: leave out tests marked {', '.join(FAST_TIER_LEAVES_OUT)}; a JVM start fails the test",
    )


def pytest_configure(config):
    if config.getoption("--fast"):
        # Before any test: a JVM started later, in this process or a child, runs this `java`.
        home = Path(tempfile.mkdtemp(prefix="corpus-tests-no-jvm-"))
        (home / "bin").mkdir()
        (home / "bin" / "java").write_text(_NO_JVM, encoding="utf-8")
        (home / "bin" / "java").chmod(0o755)
        config.stash[_NO_JVM_HOME] = home
        os.environ["JAVA_HOME"] = str(home)


def pytest_unconfigure(config):
    home = config.stash.get(_NO_JVM_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
    if not config.getoption("--fast"):
        return
    kept, left_out = [], []
    for item in items:
        (left_out if any(item.get_closest_marker(name) for name in FAST_TIER_LEAVES_OUT) else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(scope="session")
def spark():
    """One local[2] session for every Spark test: starting a JVM costs ~4 s with the class archive,
    ~8 s without."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from corpus_pipeline.config import SparkConfig
    from corpus_pipeline.engine.exec.session import get_spark

    config = SparkConfig(
        master="local[2]",
        app_name="corpus_pipeline-tests",
        conf={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4"},
    )
    _class_archive_written(config)
    session = get_spark(config)
    yield session
    session.stop()


def _class_archive_written(config) -> None:
    """The driver JVM's class archive (engine/exec/jvm_archive.py) written by a short session in a child
    process, before this session starts: the session that writes it does so at its process's exit, which
    for this one is the end of the run, so every JVM of the suite (this one, the CLI runs in child
    processes) would start without it. With it written, each maps it (a fresh machine: CI)."""
    code = "import sys; from corpus_pipeline.config import SparkConfig; from corpus_pipeline.engine.exec.session "
    code += "import get_spark; get_spark(SparkConfig.model_validate_json(sys.argv[1])).stop()"
    subprocess.run([sys.executable, "-c", code, config.model_dump_json()], capture_output=True, timeout=600)


@pytest.fixture(scope="session")
def s3_server():
    """One S3 API server on 127.0.0.1 (moto) for every test that reads or writes `s3://`."""
    pytest.importorskip("moto.server", reason="moto[server] is not installed (make setup installs the dev extra)")
    from corpus_pipeline.storage.loopback_s3 import start_loopback_s3

    server = start_loopback_s3()
    yield server
    server.stop()


_bucket_numbers = itertools.count()


@pytest.fixture
def bucket(s3_server, monkeypatch) -> str:
    """An empty bucket on the loopback server, with this process's AWS variables pointed at it."""
    for name, value in s3_server.environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    name = f"corpus-test-{next(_bucket_numbers)}"
    s3_server.client().create_bucket(Bucket=name)
    return name


def html_page(body: str, title: str = "t", head_extra: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title>{head_extra}</head><body>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><article>{body}</article>"
        "<footer>Contact us</footer></body></html>"
    )


def word_pages(count: int, seed: int = 7) -> list[dict]:
    """Pages of random words (so gzip keeps them apart in size: 0.3 to 6 KB a member)."""
    rng = random.Random(seed)
    words = ["river", "council", "plan", "vote", "bridge", "market", "school", "rain", "road", "night"]
    return [
        {
            "url": f"https://news.example/{i}",
            "payload": html_page("<p>" + " ".join(rng.choices(words, k=rng.randint(50, 3000))) + "</p>").encode(),
            "content_type": "text/html",
        }
        for i in range(count)
    ]


def write_warc(path: Path, records: list[dict]) -> Path:
    """Write a gzip WARC; each record dict: url, payload (bytes), and optional content_type, status,
    rec_type ('response' default, or 'request', 'resource', 'metadata')."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for rec in records:
            rec_type = rec.get("rec_type", "response")
            http = None
            if rec_type == "response":
                headers = [("Content-Type", rec["content_type"])] if rec.get("content_type") else []
                http = StatusAndHeaders(f"{rec.get('status', 200)} OK", headers, protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(rec["url"], rec_type, payload=io.BytesIO(rec["payload"]), http_headers=http)
            )
    return path


# The run before the kill point: a JVM start and a few stages, ~15-20 s idle, minutes on a busy box.
KILL_POINT_TIMEOUT_S = 300


def run_and_kill_when(arguments: list[str], ready: Callable[[], bool], what: str, log: Path) -> None:
    """`corpus-pipeline ARGUMENTS` in a child process, killed with SIGKILL as soon as `ready()` is
    true (`what` says what it waits for: a stage's work directory, a first commit record)."""
    command = [sys.executable, "-m", "corpus_pipeline.cli", *arguments]
    with log.open("wb") as out:
        # Its own process group: SIGKILL takes the Python driver and its JVM down together, as a
        # lost driver machine would.
        driver = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + KILL_POINT_TIMEOUT_S
        while not ready():
            assert driver.poll() is None, f"the run ended (exit {driver.returncode}) first: {log.read_text()}"
            assert time.monotonic() < deadline, f"{what} did not appear in {KILL_POINT_TIMEOUT_S} s"
            time.sleep(0.02)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()


@contextlib.contextmanager
def executor_environment(spark, variables: dict[str, str]) -> Iterator[None]:
    """What `--conf spark.executorEnv.NAME=...` sets, for the session's JVM that started before the
    bucket fixture set the variables here; a running context takes it for its next job."""
    environment = spark.sparkContext.environment
    saved = dict(environment)
    environment.update(variables)
    try:
        yield
    finally:
        environment.clear()
        environment.update(saved)


def object_keys(s3_server, bucket: str, prefix: str) -> set[str]:
    """Every object under `prefix` (relative to it) but pyarrow's empty folder markers (`a/b/`,
    0 bytes, written where it deleted a folder's last object: they hold nothing)."""
    pages = s3_server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return {o["Key"][len(prefix) :] for page in pages for o in page.get("Contents", []) if not o["Key"].endswith("/")}
