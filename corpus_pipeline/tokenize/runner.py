"""The two stage functions that the CLI verbs, make targets and spark-submit jobs call.

run_train_tokenizer: language totals -> seeded sample plan -> sample streamed into the BPE trainer
-> tokenizer.json, with tokenizer.training.json beside it (what it was trained on, and the
fingerprint that makes a rerun with the same input and config do nothing).

run_tokenize: the stage directory of DESIGN.md (`_SUCCESS` last, atomic, skip on rerun, resume),
holding tokenizer.json, <prefix>_<NNNNN>.bin/.idx, manifest.json (after every shard), token_counts/
(id, token_count: the documents' token counts, joinable on id), _rejected/, _stats.json, _tasks/,
_shards/ (per-bucket bookkeeping).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.runner import Executor, StageResult
from corpus_pipeline.engine.stage_dir import STATS_FILE, StageDir, fingerprint, input_parts, stage_input_identity
from corpus_pipeline.stats import StageStats
from corpus_pipeline.tokenize import local_jobs
from corpus_pipeline.tokenize.bpe import (
    choose_dtype,
    file_sha256,
    load_tokenizer,
    save_tokenizer,
    token_id,
    train_bpe,
    vocab_size,
)
from corpus_pipeline.tokenize.indexed_dataset import ShardFile
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE, build_manifest, write_manifest
from corpus_pipeline.tokenize.pretokenize import split_long_text
from corpus_pipeline.tokenize.sample import SamplePlan, plan_sample
from corpus_pipeline.tokenize.shard_task import SHARDS_DIR, STAGE, TokenizeJob, bucket_summary_path
from corpus_pipeline.tokenize.sharding import bucket_count, shard_name

_TRAIN_BATCH = 1_000  # texts per batch handed to the trainer


@dataclass
class TrainResult:
    tokenizer: Path
    sha256: str
    vocab_size: int
    sample: dict
    seconds: float
    skipped: bool


def _spark(executor: Executor):
    return executor.spark if executor.name == "spark" else None


def _language_totals(spark, parts: list[Path], schema) -> dict[str, tuple[int, int]]:
    if schema is None:
        return {}
    if spark is None:
        return local_jobs.language_totals(parts, schema)
    from corpus_pipeline.tokenize import spark_jobs

    return spark_jobs.language_totals(spark, parts, schema)


def _training_texts(spark, parts: list[Path], schema, plan: SamplePlan) -> Iterator[tuple[str, str]]:
    if spark is None:
        return local_jobs.training_texts(parts, schema, plan)
    from corpus_pipeline.tokenize import spark_jobs

    return spark_jobs.training_texts(spark, parts, schema, plan)


def training_record_path(tokenizer_path: Path) -> Path:
    return tokenizer_path.with_name(tokenizer_path.name.removesuffix(".json") + ".training.json")


def _sample_batches(texts: Iterator[tuple[str, str]], plan: SamplePlan, max_chars: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for language, text in texts:
        text = next(split_long_text(text, max_chars))[0]
        share = plan.languages[language]
        share.sample_docs += 1
        share.sample_bytes += len(text.encode("utf-8", "surrogatepass"))
        batch.append(text)
        if len(batch) >= _TRAIN_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def run_train_tokenizer(input_dir: Path, output: Path, config: PipelineConfig, executor: Executor) -> TrainResult:
    settings = config.train_tokenizer
    parts = input_parts(input_dir)
    key = fingerprint("train_tokenizer", repr(settings), stage_input_identity(input_dir))
    record_path = training_record_path(output)
    if record_path.exists() and output.exists():
        record = json.loads(record_path.read_text(encoding="utf-8"))
        if record["fingerprint"] == key and record["sha256"] == file_sha256(output):
            return TrainResult(output, record["sha256"], record["vocab_size"], record["sample"], 0.0, skipped=True)
    started = time.perf_counter()
    schema = pq.read_schema(parts[0]) if parts else None
    totals = _language_totals(_spark(executor), parts, schema)
    plan = plan_sample(totals, settings)
    if not plan.thresholds:
        raise ValueError(f"{input_dir}: no documents to train a tokenizer on (languages: {sorted(totals)})")
    texts = _training_texts(_spark(executor), parts, schema, plan)
    tokenizer = train_bpe(_sample_batches(texts, plan, settings.max_document_chars), settings)
    sha = save_tokenizer(tokenizer, output)
    seconds = time.perf_counter() - started
    record = {
        "fingerprint": key,
        "sha256": sha,
        "vocab_size": vocab_size(tokenizer),
        "sample": plan.to_dict(),
        "seconds": round(seconds, 3),
    }
    tmp = record_path.with_name(f".{record_path.name}.inprogress")
    tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, record_path)
    return TrainResult(output, sha, record["vocab_size"], record["sample"], seconds, skipped=False)


def _finalize_shards(work: Path, buckets: int, prefix: str) -> list[ShardFile]:
    """Give the buckets' shards their final numbers, in bucket order then roll order. Idempotent: a
    rerun after a kill in the middle finds some files renamed already."""
    shards: list[ShardFile] = []
    for bucket in range(buckets):
        summary = bucket_summary_path(work, bucket)
        if not summary.exists():
            continue  # no document hashed to this bucket
        for entry in json.loads(summary.read_text(encoding="utf-8"))["shards"]:
            final = shard_name(prefix, len(shards))
            for suffix in (".bin", ".idx"):
                source, target = work / SHARDS_DIR / f"{entry['name']}{suffix}", work / f"{final}{suffix}"
                if source.exists():
                    os.replace(source, target)
                elif not target.exists():
                    raise FileNotFoundError(f"{source} is missing: bucket {bucket} is incomplete")
            shards.append(replace(ShardFile(**entry), name=final))
    return shards


def _input_text_bytes(input_dir: Path) -> int:
    """The upstream stage counted the text bytes it kept: the same number however it was partitioned."""
    path = input_dir / STATS_FILE
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the input is not a finished stage directory")
    return StageStats.read(path).bytes_kept


def run_tokenize(
    input_dir: Path, tokenizer_path: Path, output: Path, config: PipelineConfig, executor: Executor
) -> StageResult:
    settings = config.tokenize
    parts = input_parts(input_dir)
    if not tokenizer_path.exists():
        raise FileNotFoundError(f"tokenizer not found: {tokenizer_path}")
    tokenizer_sha = file_sha256(tokenizer_path)
    tokenizer = load_tokenizer(str(tokenizer_path), tokenizer_sha)  # the hash keys the per-process cache
    vocab = vocab_size(tokenizer)
    dtype = choose_dtype(vocab, settings.dtype)
    eod_id = token_id(tokenizer, settings.eod_token, str(tokenizer_path))
    key = fingerprint(STAGE, f"{settings!r} tokenizer={tokenizer_sha}", stage_input_identity(input_dir))
    stage_dir = StageDir(output, key)
    if stage_dir.is_done():
        return StageResult(output, stage_dir.done_stats(), skipped=True)
    started = time.perf_counter()
    work = stage_dir.begin()
    local_tokenizer = work / TOKENIZER_FILE
    if not local_tokenizer.exists() or file_sha256(local_tokenizer) != tokenizer_sha:
        shutil.copyfile(tokenizer_path, local_tokenizer)
    buckets = bucket_count(
        _input_text_bytes(input_dir), settings.text_bytes_per_token, dtype.itemsize, settings.shard_bytes
    )
    job = TokenizeJob(
        work=str(work),
        tokenizer_path=str(local_tokenizer),
        tokenizer_sha256=tokenizer_sha,
        dtype=dtype.name,
        eod_id=eod_id,
        shard_bytes=settings.shard_bytes,
        max_chunk_chars=settings.max_chunk_chars,
        batch_chars=settings.batch_chars,
    )
    if parts:
        schema = pq.read_schema(parts[0])
        spark = _spark(executor)
        if spark is not None:
            from corpus_pipeline.tokenize import spark_jobs

            spark_jobs.tokenize_buckets(spark, parts, schema, job, buckets, settings.threads_per_task)
        else:
            local_jobs.tokenize_buckets(parts, schema, job, buckets)
    shards = _finalize_shards(work, buckets, settings.prefix)
    manifest = build_manifest(settings.prefix, dtype, tokenizer_sha, vocab, settings.eod_token, eod_id, shards)
    write_manifest(work, manifest)
    return StageResult(output, stage_dir.finish(STAGE, time.perf_counter() - started), skipped=False)
