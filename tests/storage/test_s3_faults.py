"""What goes wrong with object storage, on the loopback server: a read that fails mid-object is
retried from where it stopped, then becomes a read fault naming the key; a missing bucket and
refused credentials stop the CLI with exit 2 naming the bucket, and never show the secret."""

from __future__ import annotations

import logging

import pyarrow.parquet as pq
import pytest
from conftest import shared_data
from s3_inputs import documents, run_source, upload

from corpus_pipeline.cli import EXIT_USAGE, main
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.storage import s3_filesystem

EXCERPT = "cc-main-2020-34-excerpt.warc.gz"  # 135,896 bytes, 16 responses
# Small blocks, so the excerpt is read in 3 ranged GETs and a fault can strike in the middle.
SMALL_BLOCKS = ("storage.read_block_bytes=65536", "storage.retry_backoff_seconds=0")
SECRET = "wJalrXUtnFEMI-never-print-this-K7MDENG"


class FlakyStore:
    """The real client, except that opening fails `open_failures` times, and reads past byte
    `from_byte` fail `failures` times in all (across reopens), as a connection reset in the middle
    of a GET does."""

    def __init__(self, real, from_byte: int, failures: float, message: str, open_failures: int = 0):
        self.real, self.from_byte, self.failures, self.message = real, from_byte, failures, message
        self.open_failures = open_failures

    def open_input_file(self, path):
        if self.open_failures > 0:
            self.open_failures -= 1
            raise OSError("AWS Error SLOW_DOWN during HeadObject operation: Please reduce your request rate.")
        return FlakyFile(self.real.open_input_file(path), self)

    def __getattr__(self, name):
        return getattr(self.real, name)


class FlakyFile:
    def __init__(self, real, store: FlakyStore):
        self.real, self.store = real, store

    def read_at(self, size: int, position: int) -> bytes:
        if position + size > self.store.from_byte and self.store.failures > 0:
            self.store.failures -= 1
            raise OSError(f"AWS Error NETWORK_CONNECTION during GetObject operation: {self.store.message}")
        return self.real.read_at(size, position)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.fixture
def excerpt_object(s3_server, bucket):
    return upload(s3_server, bucket, [shared_data(f"warc/{EXCERPT}")], "warc")[0]


def flaky(monkeypatch, failures: float, message: str = "connection reset by peer", open_failures: int = 0):
    """Every Storage of this test reads through one FlakyStore over its real client."""
    store = FlakyStore(None, 70_000, failures, message, open_failures)

    def client(storage: Storage) -> FlakyStore:
        store.real = s3_filesystem(storage.config)
        return store

    monkeypatch.setattr(Storage, "s3", client)
    return store


def test_a_read_that_fails_mid_object_is_retried_from_where_it_stopped(monkeypatch, excerpt_object, tmp_path):
    clean = run_source("extract", [excerpt_object], tmp_path / "clean", *SMALL_BLOCKS)
    store = flaky(monkeypatch, failures=2, open_failures=1)
    retried = run_source("extract", [excerpt_object], tmp_path / "retried", *SMALL_BLOCKS, "storage.read_retries=2")
    assert store.failures == store.open_failures == 0  # every failure happened, and each was retried
    # all 16 responses: the CJK recall pass (extract.cjk_recall_pass) finds text on the video page
    # favor_precision left empty
    assert retried.stats.kept == clean.stats.kept == 16
    assert documents(retried) == documents(clean)


def test_a_read_that_keeps_failing_becomes_a_read_fault_naming_the_key(
    s3_server, monkeypatch, excerpt_object, tmp_path
):
    clean = run_source("extract", [excerpt_object], tmp_path / "clean", *SMALL_BLOCKS)
    secret = s3_server.secret_access_key  # an error text that quotes it must not carry it on
    flaky(monkeypatch, failures=float("inf"), message=f"reset while signing with {secret}")
    result = run_source("extract", [excerpt_object], tmp_path / "faulty", *SMALL_BLOCKS, "storage.read_retries=2")
    assert 0 < result.stats.kept < clean.stats.kept  # the records before the fault are kept
    assert result.stats.dropped["read_error"] == 1
    assert result.stats.docs_in == result.stats.kept + sum(result.stats.dropped.values())
    fault = pq.read_table(tmp_path / "faulty" / "_rejected" / "reason=read_error").to_pylist()[0]
    assert fault["file_path"] == excerpt_object
    detail = fault["reject_detail"]
    assert excerpt_object in detail and "after 3 attempts" in detail and "reset while signing" in detail
    assert secret not in detail


def test_a_missing_bucket_exits_2_naming_it(bucket, tmp_path, capsys):
    argv = ["extract", "--input", "s3://no-such-bucket-here/crawl/", "--output", str(tmp_path / "o")]
    assert main([*argv, "--runner", "local"]) == EXIT_USAGE
    assert "s3://no-such-bucket-here: no such bucket" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("wrong", ["AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"])
def test_refused_credentials_exit_2_naming_the_bucket_and_not_the_secret(
    wrong, excerpt_object, bucket, monkeypatch, tmp_path, capsys, caplog
):
    monkeypatch.setenv(wrong, SECRET)
    caplog.set_level(logging.DEBUG)
    for target in (excerpt_object, f"s3://{bucket}/warc/"):  # one object (HEAD), a prefix (a listing)
        assert main(["extract", "--input", target, "--output", str(tmp_path / "o"), "--runner", "local"]) == EXIT_USAGE
        captured = capsys.readouterr()
        assert f"s3://{bucket}: access denied" in captured.err
        assert SECRET not in captured.err + captured.out + caplog.text
    assert not (tmp_path / "o").exists()
