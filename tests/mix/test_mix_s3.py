"""mix with an `s3://` output (the loopback S3 server): its tasks share the scratch directory
(storage.scratch_dir) while it runs, and the finished stage is uploaded under its manifest, byte for
byte what a local mix writes."""

from __future__ import annotations

import mix_fixtures
from mix_fixtures import labelled_documents, mix_config, write_labelled

from corpus_pipeline.config import StorageConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

tokenizer_path = mix_fixtures.tokenizer_path  # the session fixture, found as a module attribute


def test_a_mix_to_a_bucket_writes_the_files_of_a_local_mix(s3_server, bucket, tmp_path, tokenizer_path):
    corpus = write_labelled(tmp_path / "docs", labelled_documents())
    config = mix_config(targets={"news": 0.5, "web": 0.2, "daily": 0.3}).model_copy(
        update={"storage": StorageConfig(scratch_dir=str(tmp_path / "scratch"))}
    )
    local = run_stage("mix", [corpus], tmp_path / "mix", config, LocalExecutor(), tokenizer=tokenizer_path)
    remote = run_stage("mix", [corpus], f"s3://{bucket}/mix", config, LocalExecutor(), tokenizer=tokenizer_path)
    assert remote.stats.kept == local.stats.kept
    storage = Storage()
    uploaded = {
        name: storage.read_bytes(str(uri)) for name, uri in stage_files(remote.output, storage=Storage()).items()
    }
    written = {name: path.read_bytes() for name, path in stage_files(local.output, storage=Storage()).items()}
    timed = ("_SUCCESS", "_stats.json", "_tasks/mix.json")  # the marker, and the counters' seconds

    def untimed(files):
        return {name: data for name, data in files.items() if name not in timed}

    assert untimed(uploaded) == untimed(written)
    assert any(name.endswith(".bin") for name in uploaded) and "manifest.json" in uploaded
    assert not any((tmp_path / "scratch").iterdir())
