"""Stages writing `s3://` outputs on a real S3 API server (moto, loopback): the commit protocol of
schemas/stage_dir.md ("On an object store"). A stage appears only complete, through its manifest;
what an attempt, a failed run or a replaced output left is never named and is deleted after a commit."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from conftest import html_page, object_keys, write_warc
from s3_inputs import logical_bytes, task_uploads

from corpus_pipeline.cli import EXIT_OK, main
from corpus_pipeline.config import load_config
from corpus_pipeline.engine import lifecycle
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import MissingInputError, input_parts, read_success
from corpus_pipeline.stage_runner import run_fused, run_stage
from corpus_pipeline.storage import Storage


def _warcs(tmp_path, files: int = 3, pages: int = 4):
    paths = []
    for number in range(files):
        records = []
        for page in range(pages):
            words = f"Report {number}-{page} on the harbour works of the town, read in full by the council. "
            records.append(
                {"url": f"https://n{number}.example/{page}", "payload": html_page(f"<p>{words * 12}</p>").encode()}
            )
        paths.append(write_warc(tmp_path / f"crawl-{number}.warc.gz", records))
    return paths


def _rows(parts) -> list[dict]:
    storage = Storage()
    rows = []
    for part in parts:
        rows += pq.read_table(storage.parquet_source(str(part))).to_pylist()
    return rows


def test_a_fused_pass_to_a_bucket_gives_the_local_documents_and_leaves_only_what_its_manifest_names(
    s3_server, bucket, tmp_path
):
    warcs = _warcs(tmp_path)
    config = load_config(None, [])
    names = ["extract", "langid", "normalize"]
    local = run_fused(names, [str(p) for p in warcs], [tmp_path / n for n in names], config, LocalExecutor())
    outputs = [f"s3://{bucket}/runs/r1/{n}" for n in names]
    remote = run_fused(names, [str(p) for p in warcs], outputs, config, LocalExecutor())
    assert [r.stats.kept for r in remote] == [r.stats.kept for r in local] == [12, 12, 12]
    assert [r.stats.dropped for r in remote] == [r.stats.dropped for r in local]

    parts = input_parts(outputs[-1], storage=Storage())
    assert len(parts) == 3
    expected = pq.read_table(tmp_path / "normalize").to_pylist()
    assert sorted(_rows(parts), key=lambda r: r["id"]) == sorted(expected, key=lambda r: r["id"])
    # Only the manifest, the stats and the parts the manifest names: no _work/, no attempt left over.
    manifest = read_success(outputs[-1], storage=Storage())
    assert manifest["fused_with"] == names and manifest["kept"] == "here"
    assert object_keys(s3_server, bucket, "runs/r1/normalize/") == {"_SUCCESS", *manifest["files"].values()}
    assert (
        read_success(outputs[0], storage=Storage())["kept"] == "normalize"
    )  # fused: its documents are kept downstream
    with pytest.raises(MissingInputError, match="ran fused"):
        input_parts(outputs[0], storage=Storage())

    again = run_fused(names, [str(p) for p in warcs], outputs, config, LocalExecutor())
    assert all(result.skipped for result in again)


def test_document_stages_read_and_write_a_bucket_and_a_rerun_with_other_settings_replaces_the_output(
    s3_server, bucket, tmp_path
):
    warcs = _warcs(tmp_path, files=2)
    config = load_config(None, [])
    source = f"s3://{bucket}/extract"
    run_stage("extract", [str(p) for p in warcs], source, config, LocalExecutor())
    first = run_stage("langid", source, f"s3://{bucket}/langid", config, LocalExecutor())
    old_manifest = read_success(f"s3://{bucket}/langid", storage=Storage())
    assert first.stats.kept == 8

    stricter = load_config(None, ["langid.min_score=0.999"])
    second = run_stage("langid", source, f"s3://{bucket}/langid", stricter, LocalExecutor())
    manifest = read_success(f"s3://{bucket}/langid", storage=Storage())
    assert manifest["fingerprint"] != old_manifest["fingerprint"]
    assert second.stats.kept + sum(second.stats.dropped.values()) == 8
    # The replaced output's objects are gone; only the new manifest's remain.
    assert object_keys(s3_server, bucket, "langid/") == {"_SUCCESS", *manifest["files"].values()}
    assert not set(old_manifest["files"].values()) & set(manifest["files"].values())


def test_a_failed_run_leaves_the_previous_output_readable_and_the_next_one_resumes(
    s3_server, bucket, tmp_path, monkeypatch
):
    warcs = _warcs(tmp_path, files=3)
    config = load_config(None, [])
    output = f"s3://{bucket}/extract"
    inputs = [str(p) for p in warcs]
    run_stage("extract", inputs[:2], output, config, LocalExecutor())
    previous = read_success(output, storage=Storage())
    before = logical_bytes(output)

    # The third task fails after the first two committed: the run stops before its manifest.
    real = lifecycle.run_chain_task

    def fail_third(chain, task):
        if task.name == "part-00002":
            raise RuntimeError("executor lost")
        return real(chain, task)

    monkeypatch.setattr(lifecycle, "run_chain_task", fail_third)
    with pytest.raises(RuntimeError, match="executor lost"):
        run_stage("extract", inputs, output, config, LocalExecutor())
    # A reader still sees the previous output, whole; the new attempts' objects are not named by it.
    assert read_success(output, storage=Storage()) == previous
    assert logical_bytes(output) == before
    records = {key for key in object_keys(s3_server, bucket, "extract/_work/") if "/tasks/" in key}
    assert len(records) == 2 and all("/tasks/part-0000" in key for key in records)
    # Every object the failed run uploaded is named by an intent of its commit area (the guard's ours).
    intents = {key for key in object_keys(s3_server, bucket, "extract/_work/") if "/attempts/" in key}
    assert len(intents) == 2

    monkeypatch.setattr(lifecycle, "run_chain_task", real)
    commits = task_uploads(monkeypatch)
    resumed = run_stage("extract", inputs, output, config, LocalExecutor())
    assert commits == ["part-00002"]  # the two committed tasks were reused
    assert resumed.stats.kept == 12
    fresh = f"s3://{bucket}/fresh"
    run_stage("extract", inputs, fresh, config, LocalExecutor())
    assert logical_bytes(output) == logical_bytes(fresh)
    assert object_keys(s3_server, bucket, "extract/") == {
        "_SUCCESS",
        *read_success(output, storage=Storage())["files"].values(),
    }


def test_tokenize_and_train_tokenizer_write_a_bucket_byte_for_byte_as_locally(s3_server, bucket, tmp_path):
    warcs = _warcs(tmp_path, files=2, pages=6)
    config = load_config(None, ["train_tokenizer.vocab_size=400", "tokenize.shard_bytes=2000"])
    executor = LocalExecutor()
    docs = f"s3://{bucket}/extract"
    run_stage("extract", [str(p) for p in warcs], docs, config, executor)
    run_stage("extract", [str(p) for p in warcs], tmp_path / "extract", config, executor)
    run_stage("train-tokenizer", docs, f"s3://{bucket}/tokenizer", config, executor)
    run_stage("train-tokenizer", tmp_path / "extract", tmp_path / "tokenizer", config, executor)
    remote_tokenizer = logical_bytes(f"s3://{bucket}/tokenizer")["tokenizer.json"]
    assert remote_tokenizer == (tmp_path / "tokenizer" / "tokenizer.json").read_bytes()

    remote = run_stage(
        "tokenize", docs, f"s3://{bucket}/tokens", config, executor, tokenizer=f"s3://{bucket}/tokenizer"
    )
    local = run_stage(
        "tokenize", tmp_path / "extract", tmp_path / "tokens", config, executor, tokenizer=tmp_path / "tokenizer"
    )
    assert remote.stats.kept == local.stats.kept == 12
    files = logical_bytes(f"s3://{bucket}/tokens")
    manifest = json.loads(files["manifest.json"])
    assert len(manifest["shards"]) > 1
    for shard in manifest["shards"]:
        for suffix in (".bin", ".idx"):
            assert files[shard["name"] + suffix] == (tmp_path / "tokens" / f"{shard['name']}{suffix}").read_bytes()
    assert files["manifest.json"] == (tmp_path / "tokens" / "manifest.json").read_bytes()
    assert not any(name.startswith("_shards/bucket") for name in files)  # renamed, not copied


def test_an_endpoint_set_only_in_the_config_reaches_every_reader_of_a_cli_run(s3_server, bucket, tmp_path, monkeypatch):
    endpoint = s3_server.environment()["AWS_ENDPOINT_URL"]
    monkeypatch.delenv("AWS_ENDPOINT_URL")  # the store is known from the config alone
    warcs = [str(p) for p in _warcs(tmp_path, files=1)]
    store = ["--set", f"storage.endpoint_url={endpoint}", "--runner", "local"]
    assert main(["extract", "--input", *warcs, "--output", f"s3://{bucket}/extract", *store]) == EXIT_OK
    # train-tokenizer and tokenize read their inputs' manifests, fetch the tokenizer object and
    # print their summaries (read from the outputs' manifests) through the config's endpoint.
    docs, tokenizer = f"s3://{bucket}/extract", f"s3://{bucket}/tokenizer"
    vocabulary = ["--set", "train_tokenizer.vocab_size=300"]
    assert main(["train-tokenizer", "--input", docs, "--output", tokenizer, *store, *vocabulary]) == EXIT_OK
    tokens = ["--output", f"s3://{bucket}/tokens", "--tokenizer", tokenizer]
    assert main(["tokenize", "--input", docs, *tokens, *store]) == EXIT_OK


def test_another_scheme_is_refused_by_name_not_taken_for_a_local_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["langid", "--input", str(tmp_path), "--output", "s3a://team-corpus/langid"])
    assert exited.value.code == 2
    assert "s3a:// is not supported; give s3://bucket/key" in capsys.readouterr().err
    assert not (tmp_path / "s3a:").exists()
