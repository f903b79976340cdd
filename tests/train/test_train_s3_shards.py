"""`train --shards s3://...` on the loopback S3 server: the shards are copied to a local cache once,
checked against the token manifest, and trained on exactly as the same shards on local disk."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import train_fixtures
from conftest import PROJECT_ROOT, html_page, write_warc

from corpus_pipeline.cli import main
from corpus_pipeline.config import load_config
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import read_success, stage_files
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.shard_cache import ShardCacheError, cached_shards, is_complete
from corpus_pipeline.train.logs import read_metrics

SMALL = ["model.seq_len=64", "tensorboard=false", "max_steps=4", "log_every=1", "eval_every=4", "micro_batch_size=4"]
WORDS = "harbour council town works river bridge market school road winter summer report budget vote".split()
one_thread = train_fixtures.one_thread


@pytest.fixture(scope="module")
def tokens(s3_server, tmp_path_factory):
    """One corpus tokenized twice, to `s3://<bucket>/tokens` and to a local directory:
    (the URI, the local directory); this module's process has AWS variables for the bucket."""
    work = tmp_path_factory.mktemp("s3_shards")
    rng = random.Random(7)
    warcs = []
    for number in range(4):
        records = []
        for page in range(8):
            words = " ".join(rng.choice(WORDS) for _ in range(160))
            records.append(
                {"url": f"https://n{number}.example/{page}", "payload": html_page(f"<p>{words}.</p>").encode()}
            )
        warcs.append(write_warc(work / f"crawl-{number}.warc.gz", records))
    # 300 ids, the smallest vocabulary train-tokenizer allows; 4,000-byte shards: 2,000 uint16 tokens
    # each, so the ~8,000 tokens make several shards and windows that cross shard boundaries.
    config = load_config(None, ["train_tokenizer.vocab_size=300", "tokenize.shard_bytes=4000"])
    executor = LocalExecutor()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in s3_server.environment().items():
            patch.setenv(name, value)
        patch.delenv("AWS_PROFILE", raising=False)
        s3_server.client().create_bucket(Bucket="corpus-train-shards")
        run_stage("extract", [str(p) for p in warcs], work / "extract", config, executor)
        run_stage("train-tokenizer", work / "extract", work / "tokenizer", config, executor)
        uri = "s3://corpus-train-shards/tokens"
        run_stage("tokenize", work / "extract", uri, config, executor, tokenizer=work / "tokenizer")
        local = run_stage("tokenize", work / "extract", work / "tokens", config, executor, tokenizer=work / "tokenizer")
        yield uri, local.output


@pytest.fixture
def downloads(monkeypatch) -> list[str]:
    """The objects Storage.get_file fetched during the test."""
    fetched: list[str] = []
    get_file = Storage.get_file

    def counting(self, uri, local):
        fetched.append(uri)
        return get_file(self, uri, local)

    monkeypatch.setattr(Storage, "get_file", counting)
    return fetched


def train(shards, out, cache, *overrides: str) -> int:
    settings = [arg for item in (*SMALL, *overrides) for arg in ("--set", item)]
    return main(["train", "--shards", str(shards), "--out", str(out), "--cache", str(cache), *settings])


def losses(out) -> list[float]:
    return [entry["loss"] for entry in read_metrics(out) if "loss" in entry]


def shard_object(uri: str, name: str) -> str:
    return str(stage_files(uri, storage=Storage())[name])


def test_training_on_s3_shards_equals_training_on_the_same_local_shards_and_a_rerun_downloads_nothing(
    tokens, tmp_path, capsys, downloads
):
    uri, local = tokens
    manifest = json.loads((local / "manifest.json").read_text())
    assert len(manifest["shards"]) >= 3
    cache = tmp_path / "cache"
    assert main(["train", "--shards", uri, "--cache", str(cache)]) == 2  # no default --out beside a bucket
    assert "--out is required with s3:// shards" in capsys.readouterr().err
    assert train(uri, tmp_path / "remote", cache) == 0
    copy = cache / read_success(uri, storage=Storage())["fingerprint"][:16]
    assert f"{uri} -> local copy {copy}" in capsys.readouterr().out
    # manifest.json, tokenizer.json and a .bin and .idx per shard; the stage's _stats.json is not needed.
    assert len(downloads) == 2 + 2 * len(manifest["shards"])
    for name in [
        "manifest.json",
        "tokenizer.json",
        *(f"{s['name']}{x}" for s in manifest["shards"] for x in (".bin", ".idx")),
    ]:
        assert (copy / name).read_bytes() == (local / name).read_bytes(), name
    assert train(local, tmp_path / "local", cache) == 0
    assert len(losses(tmp_path / "remote")) == 4
    assert losses(tmp_path / "remote") == losses(tmp_path / "local")

    downloads.clear()
    assert train(uri, tmp_path / "again", cache, "verify_shards=checksums") == 0
    assert downloads == []
    assert "0 file(s), 0 bytes downloaded" in capsys.readouterr().out
    assert losses(tmp_path / "again") == losses(tmp_path / "local")


def test_a_cached_shard_whose_bytes_changed_is_downloaded_again(tokens, tmp_path, downloads):
    uri, local = tokens
    storage = Storage()
    copy = cached_shards(uri, tmp_path, storage).directory
    shard = copy / "tokens_00001.bin"
    flipped = bytearray(shard.read_bytes())
    flipped[10] ^= 0xFF
    shard.write_bytes(bytes(flipped))
    downloads.clear()
    # Sizes only: the same size passes (that mode reads no bytes); checksums: the flip is found.
    assert cached_shards(uri, tmp_path, storage, checksums=False).downloaded == 0
    again = cached_shards(uri, tmp_path, storage, checksums=True)
    assert (again.downloaded, downloads) == (1, [shard_object(uri, "tokens_00001.bin")])
    assert shard.read_bytes() == (local / "tokens_00001.bin").read_bytes()

    shard.write_bytes(shard.read_bytes()[:-2])  # truncated: found even without checksums
    assert cached_shards(uri, tmp_path, storage, checksums=False).downloaded == 1
    assert shard.read_bytes() == (local / "tokens_00001.bin").read_bytes()


def test_an_object_changed_in_the_bucket_after_its_stage_committed_is_refused_by_name(
    tokens, tmp_path, capsys, s3_server
):
    uri, local = tokens
    storage = Storage()
    copy = cached_shards(uri, tmp_path, storage).directory
    target = shard_object(uri, "tokens_00000.bin")
    original = storage.read_bytes(target)
    changed = bytearray(original)
    changed[0] ^= 0xFF
    try:
        storage.put_bytes(target, bytes(changed))
        with pytest.raises(ShardCacheError, match="the object changed after its stage committed"):
            cached_shards(uri, tmp_path, Storage())
        assert train(uri, tmp_path / "out", tmp_path) == 1  # the next run too: the file keeps its record
        message = capsys.readouterr().err
        assert target in message and "manifest.json says" in message
        # The checked copy was kept, and nothing half-checked was left beside it.
        assert (copy / "tokens_00000.bin").read_bytes() == (local / "tokens_00000.bin").read_bytes()
        assert not is_complete(copy) and not list(copy.glob(".*"))
        assert not (tmp_path / "out" / "metrics.jsonl").exists()
    finally:
        storage.put_bytes(target, original)
    assert cached_shards(uri, tmp_path, Storage()).downloaded == 1  # the same bytes again: accepted


# A child that copies the stage one file at a time and is killed (SIGKILL: no `finally` runs) while
# writing its fourth file.
KILLED_CHILD = """
import os, signal, sys
from pathlib import Path
import corpus_pipeline.tokenize.shard_cache as shard_cache
from corpus_pipeline.storage import Storage

shard_cache.DOWNLOADS = 1
get_file, calls = Storage.get_file, []

def dies_on_the_fourth(self, uri, target):
    calls.append(uri)
    if len(calls) == 4:
        Path(target).write_bytes(b"half")
        os.kill(os.getpid(), signal.SIGKILL)
    return get_file(self, uri, target)

Storage.get_file = dies_on_the_fourth
shard_cache.cached_shards(sys.argv[1], Path(sys.argv[2]), Storage())
"""


def test_a_download_killed_mid_file_is_never_taken_for_complete_and_the_next_run_fetches_only_the_rest(
    tokens, tmp_path
):
    uri, local = tokens
    killed = subprocess.run([sys.executable, "-c", KILLED_CHILD, uri, str(tmp_path)], capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    copy = tmp_path / read_success(uri, storage=Storage())["fingerprint"][:16]
    assert not is_complete(copy) and not (copy / "tokens_00000.idx").exists()
    assert (copy / ".tokens_00000.idx.download").read_bytes() == b"half"
    resumed = cached_shards(uri, tmp_path, Storage())
    # Of the three files renamed into place before the kill, tokenizer.json and tokens_00000.bin match
    # the manifest's sha256 and are kept; manifest.json has no sha256 of its own, so it is fetched again.
    files = 2 + len(list(local.glob("tokens_*")))
    assert (resumed.downloaded, resumed.reused) == (files - 2, 2)
    assert is_complete(copy) and not list(copy.glob(".*"))
    for path in local.glob("tokens_*"):
        assert (copy / path.name).read_bytes() == path.read_bytes()


def test_only_local_rank_0_downloads_and_the_other_ranks_wait_for_its_copy(tokens, tmp_path, downloads):
    uri, _ = tokens
    barrier = threading.Barrier(3)
    results: dict[int, object] = {}

    def rank(number: int) -> None:
        try:
            results[number] = cached_shards(uri, tmp_path, Storage(), local_rank=number, barrier=barrier.wait)
        except Exception as error:  # noqa: BLE001 - asserted below, in the test's thread
            results[number] = error

    # Ranks 1 and 2 start first: they still take the lock only after rank 0 holds it.
    threads = [threading.Thread(target=rank, args=(number,)) for number in (2, 1, 0)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not [error for error in results.values() if isinstance(error, Exception)]
    assert [results[n].downloaded for n in (0, 1, 2)] == [len(downloads), 0, 0]
    assert len({results[n].directory for n in (0, 1, 2)}) == 1
    assert is_complete(results[0].directory)


@pytest.mark.slow  # torchrun children: ~12 s
def test_two_ranks_under_torchrun_train_on_one_copy_as_one_process_does(tokens, tmp_path):
    uri, local = tokens
    command = [str(Path(sys.executable).parent / "torchrun"), "--standalone", "--nproc_per_node=2", "-m"]
    command += ["corpus_pipeline.cli", "train", "--shards", uri, "--out", str(tmp_path / "two")]
    command += ["--cache", str(tmp_path / "cache")]
    # Two ranks of 2 windows: the global batch of the one-process run of 4 (train/data.py).
    for item in (*SMALL, "micro_batch_size=2"):
        command += ["--set", item]
    # One thread per process: two ranks x two threads on two cores would spin-wait each other.
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    pair = subprocess.run(command, env=environment, capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300)
    assert pair.returncode == 0, pair.stderr[-3000:]
    copy = tmp_path / "cache" / read_success(uri, storage=Storage())["fingerprint"][:16]
    assert pair.stdout.count(f"local copy {copy}") == 1  # printed by rank 0 alone
    assert is_complete(copy)
    assert train(local, tmp_path / "one", tmp_path / "cache") == 0
    assert losses(tmp_path / "two") == pytest.approx(losses(tmp_path / "one"), rel=1e-4)


def test_shards_verify_and_inspect_take_a_stage_in_the_bucket(tokens, tmp_path, capsys, monkeypatch):
    uri, local = tokens
    monkeypatch.setenv("CORPUS_PIPELINE_CACHE", str(tmp_path))
    assert main(["shards", "verify", uri]) == 0
    assert main(["shards", "inspect", uri, "--documents", "1"]) == 0
    printed = capsys.readouterr().out
    assert f"{uri} -> local copy {tmp_path}" in printed
    storage = Storage()
    target = shard_object(uri, "tokens_00001.idx")
    original = storage.read_bytes(target)
    try:
        storage.put_bytes(target, original[:-1])  # an object cut short after its stage committed
        assert main(["shards", "verify", uri]) == 1
        assert target in capsys.readouterr().out
    finally:
        storage.put_bytes(target, original)
