"""The tokenize stage end to end with the local executor: round trip, counts, bad input, determinism."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import shards_fixtures
from conftest import PROJECT_ROOT
from shards_fixtures import real_documents, small_config, write_stage

from corpus_pipeline.document import document_id, empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.bpe import TokenizerError, load_tokenizer
from corpus_pipeline.tokenize.manifest import read_manifest
from corpus_pipeline.tokenize.reader import TokenShards
from corpus_pipeline.tokenize.verify import verify_shards

# Session fixtures shared by the tokenize tests (pytest finds them as module attributes).
corpus_dir = shards_fixtures.corpus_dir
tokenizer_path = shards_fixtures.tokenizer_path


def shard_bytes(directory: Path) -> dict[str, bytes]:
    names = ["manifest.json", *sorted(p.name for p in directory.glob("tokens_*"))]
    return {name: (directory / name).read_bytes() for name in names}


def decoded(directory: Path) -> list[str]:
    shards = TokenShards(directory)
    tokenizer = load_tokenizer(str(directory / "tokenizer.json"))
    return [tokenizer.decode(shards.document(i).tolist()) for i in range(len(shards))]


def test_round_trip_english_and_chinese_in_id_order(tmp_path, corpus_dir, tokenizer_path):
    docs = real_documents()
    # Shards small enough to roll: each bucket writes several.
    result = run_stage(
        "tokenize",
        corpus_dir,
        tmp_path / "tokens",
        small_config(shard_bytes=4_000),
        LocalExecutor(),
        tokenizer=tokenizer_path,
    )
    manifest = read_manifest(result.output, storage=Storage())
    assert len(manifest["shards"]) > 3 and manifest["documents"] == len(docs)
    assert all(shard["bin_bytes"] <= 4_000 or shard["documents"] == 1 for shard in manifest["shards"])
    texts = decoded(result.output)
    assert sorted(texts) == sorted(doc["text"] for doc in docs)
    assert {"en", "zh"} == set(result.stats.extra["tokens_by_language"])
    counts = pq.read_table(result.output / "token_counts").to_pylist()
    assert len(counts) == len(docs) and {row["id"] for row in counts} == {doc["id"] for doc in docs}
    assert sum(row["token_count"] for row in counts) == manifest["text_tokens"] == result.stats.extra["tokens"]["text"]
    assert verify_shards(result.output).ok
    assert (result.output / "_SUCCESS").exists() and result.stats.docs_in == result.stats.kept == len(docs)


def test_manifest_matches_its_json_schema(tmp_path, corpus_dir, tokenizer_path):
    result = run_stage(
        "tokenize", corpus_dir, tmp_path / "tokens", small_config(), LocalExecutor(), tokenizer=tokenizer_path
    )
    manifest = json.loads((result.output / "manifest.json").read_text())
    schema = json.loads((PROJECT_ROOT / "schemas" / "manifest.schema.json").read_text())
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (dev tool) validates the manifest schema")
    jsonschema.validate(manifest, schema)
    broken = {**manifest, "dtype": "float16"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_same_documents_in_other_parts_give_identical_bytes_and_rerun_is_skipped(tmp_path, tokenizer_path):
    docs = real_documents(english=15, chinese=15)
    config = small_config(shard_bytes=6_000)
    outputs = []
    for parts in (1, 5):
        source = write_stage(tmp_path / f"in{parts}", list(reversed(docs)) if parts == 5 else docs, parts=parts)
        outputs.append(
            run_stage("tokenize", source, tmp_path / f"out{parts}", config, LocalExecutor(), tokenizer=tokenizer_path)
        )
    assert shard_bytes(outputs[0].output) == shard_bytes(outputs[1].output)
    again = run_stage(
        "tokenize", tmp_path / "in1", tmp_path / "out1", config, LocalExecutor(), tokenizer=tokenizer_path
    )
    assert again.skipped


def test_empty_broken_and_control_character_documents(tmp_path, tokenizer_path):
    texts = ["", "   \n\t ", "plain text", "nul\x00 bell\x07 esc\x1b del\x7f", "bad bytes follow"]
    rows = [empty_document(id=document_id(f"https://x/{i}", t), text=t, language="en") for i, t in enumerate(texts)]
    source = write_stage(tmp_path / "in", rows, parts=1)
    part = next(source.glob("part-*.parquet"))
    # Invalid UTF-8 (a lone surrogate's bytes) written straight into a string column, as other tools may.
    table = pq.read_table(part)
    raw = [t.encode() for t in table.column("text").to_pylist()]
    raw[4] = b"bad bytes \xed\xa0\x80 follow"
    offsets = pa.array([0, *itertools.accumulate(len(r) for r in raw)], pa.int32())
    text = pa.StringArray.from_buffers(len(raw), offsets.buffers()[1], pa.py_buffer(b"".join(raw)))
    pq.write_table(table.set_column(table.schema.get_field_index("text"), "text", text), part)
    result = run_stage(
        "tokenize", source, tmp_path / "tokens", small_config(), LocalExecutor(), tokenizer=tokenizer_path
    )
    stats = result.stats
    assert stats.docs_in == 5 and stats.kept == 3 and dict(stats.dropped) == {"empty_text": 2}
    assert stats.extra["repairs"]["invalid_utf8"] == 1
    rejected = pq.read_table(result.output / "_rejected").to_pylist()
    assert sorted(r["reject_detail"] for r in rejected) == ["no text", "only whitespace (6 characters)"]
    assert sorted(decoded(result.output)) == sorted(["plain text", texts[3], "bad bytes \ufffd\ufffd\ufffd follow"])
    assert verify_shards(result.output).ok


def test_lone_surrogates_in_python_strings_are_replaced_not_fatal(tokenizer_path):
    import numpy as np

    from corpus_pipeline.tokenize.encode import DocumentEncoder

    encoder = DocumentEncoder(load_tokenizer(str(tokenizer_path)), np.dtype(np.uint16), 1_000, 100)
    [(_, arrays)] = list(encoder.encode([("d", "before \ud800 after")]))
    assert encoder.repairs["lone_surrogates"] == 1
    assert load_tokenizer(str(tokenizer_path)).decode(np.concatenate(arrays).tolist()) == "before \ufffd after"


def test_a_vocabulary_too_large_for_the_dtype_is_refused(tmp_path, corpus_dir, tokenizer_path):
    from tokenizers import Tokenizer

    big = Tokenizer.from_file(str(tokenizer_path))
    big.add_tokens([f"<extra_{i}>" for i in range(66_000)])
    big.save(str(tmp_path / "big.json"))
    with pytest.raises(TokenizerError, match="68,000 ids does not fit uint16"):
        run_stage(
            "tokenize",
            corpus_dir,
            tmp_path / "t16",
            small_config(dtype="uint16"),
            LocalExecutor(),
            tokenizer=tmp_path / "big.json",
        )
    result = run_stage(
        "tokenize", corpus_dir, tmp_path / "auto", small_config(), LocalExecutor(), tokenizer=tmp_path / "big.json"
    )
    assert read_manifest(result.output, storage=Storage())["dtype"] == "int32" and verify_shards(result.output).ok


def test_a_killed_run_resumes_its_unfinished_buckets_and_writes_the_same_bytes(tmp_path, monkeypatch, tokenizer_path):
    from corpus_pipeline.tokenize import shard_task

    source = write_stage(tmp_path / "in", real_documents(english=15, chinese=15), parts=2)
    config = small_config(shard_bytes=3_000, text_bytes_per_token=12.0)  # 2 buckets
    clean = run_stage("tokenize", source, tmp_path / "clean", config, LocalExecutor(), tokenizer=tokenizer_path)
    write_bucket, written = shard_task.write_bucket, []

    def dies_on_second_bucket(job, bucket, rows):
        if written:
            raise KeyboardInterrupt("killed")
        written.append(bucket)
        return write_bucket(job, bucket, rows)

    monkeypatch.setattr(shard_task, "write_bucket", dies_on_second_bucket)
    with pytest.raises(KeyboardInterrupt):
        run_stage("tokenize", source, tmp_path / "resumed", config, LocalExecutor(), tokenizer=tokenizer_path)
    assert not (tmp_path / "resumed").exists(), "nothing published before the stage finished"
    resumed_buckets = []

    def records(job, bucket, rows):
        resumed_buckets.append(bucket)
        return write_bucket(job, bucket, rows)

    monkeypatch.setattr(shard_task, "write_bucket", records)
    resumed = run_stage("tokenize", source, tmp_path / "resumed", config, LocalExecutor(), tokenizer=tokenizer_path)
    assert resumed_buckets == [1 - written[0]], "the finished bucket was kept"
    assert shard_bytes(resumed.output) == shard_bytes(clean.output)
    assert resumed.stats.to_dict()["kept"] == clean.stats.kept == 30
