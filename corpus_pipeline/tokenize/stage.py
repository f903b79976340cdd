"""tokenize: documents -> Megatron .bin/.idx token shards, through the engine's lifecycle.

The stage directory holds tokenizer.json, <prefix>_<NNNNN>.bin/.idx, manifest.json (after every
shard), token_counts/ (id, token_count: joinable on id), _rejected/, _stats.json, _tasks/ and
_shards/ (per-bucket bookkeeping). A bucket is identified by hash(id) mod the bucket count, which the
input's text bytes and the config fix: a resumed run under any runner or core count finds the same
buckets, and a finished bucket (its stats file written last) is not redone.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.config import TokenizeConfig
from corpus_pipeline.engine.lifecycle import Executor, GlobalStage
from corpus_pipeline.engine.stage_dir import STATS_FILE, input_parts
from corpus_pipeline.stats import StageStats
from corpus_pipeline.tokenize import local_jobs
from corpus_pipeline.tokenize.bpe import choose_dtype, file_sha256, load_tokenizer, token_id, vocab_size
from corpus_pipeline.tokenize.indexed_dataset import ShardFile
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE, build_manifest, read_manifest, write_manifest
from corpus_pipeline.tokenize.shard_task import SHARDS_DIR, STAGE, TokenizeJob, bucket_summary_path
from corpus_pipeline.tokenize.sharding import bucket_count, shard_name
from corpus_pipeline.tokenize.train_stage import tokenizer_file


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


class TokenizeStage(GlobalStage):
    name = STAGE

    def __init__(self, config: TokenizeConfig | None = None, tokenizer: Path | None = None):
        if tokenizer is None:
            raise ValueError("tokenize needs a tokenizer (--tokenizer FILE or a train-tokenizer directory)")
        self.config = config or TokenizeConfig()
        self.tokenizer = tokenizer_file(tokenizer)
        if not self.tokenizer.exists():
            raise FileNotFoundError(f"tokenizer not found: {self.tokenizer}")
        self.tokenizer_sha = file_sha256(self.tokenizer)

    def config_fingerprint(self) -> str:
        return f"{self.config!r} tokenizer={self.tokenizer_sha}"

    @staticmethod
    def describe(output: Path) -> str:
        manifest = read_manifest(output)
        return (
            f"{output}: {len(manifest['shards'])} shards, {manifest['documents']:,} documents, "
            f"{manifest['tokens']:,} tokens ({manifest['dtype']})"
        )

    def inputs(self) -> list[Path]:
        return [self.tokenizer]

    def run(self, input_dir: Path, work: Path, executor: Executor) -> dict:
        settings = self.config
        parts = input_parts(input_dir)
        tokenizer = load_tokenizer(str(self.tokenizer), self.tokenizer_sha)  # the hash keys the per-process cache
        vocab = vocab_size(tokenizer)
        dtype = choose_dtype(vocab, settings.dtype)
        eod_id = token_id(tokenizer, settings.eod_token, str(self.tokenizer))
        local_tokenizer = work / TOKENIZER_FILE
        if not local_tokenizer.exists() or file_sha256(local_tokenizer) != self.tokenizer_sha:
            shutil.copyfile(self.tokenizer, local_tokenizer)
        buckets = bucket_count(
            _input_text_bytes(input_dir), settings.text_bytes_per_token, dtype.itemsize, settings.shard_bytes
        )
        job = TokenizeJob(
            work=str(work),
            tokenizer_path=str(local_tokenizer),
            tokenizer_sha256=self.tokenizer_sha,
            dtype=dtype.name,
            eod_id=eod_id,
            shard_bytes=settings.shard_bytes,
            max_chunk_chars=settings.max_chunk_chars,
            batch_chars=settings.batch_chars,
            buckets=buckets,
        )
        if parts:
            schema = pq.read_schema(parts[0])
            if executor.distributed:
                from corpus_pipeline.tokenize import spark_jobs

                spark_jobs.tokenize_buckets(executor.session(), parts, schema, job, buckets, settings.threads_per_task)
            else:
                local_jobs.tokenize_buckets(parts, schema, job, buckets)
        self._manifest = (buckets, dtype, vocab, eod_id)
        return {}

    def finish(self, work: Path) -> None:
        """Number the shards in bucket order and write the manifest, once every bucket is in place."""
        buckets, dtype, vocab, eod_id = self._manifest
        settings = self.config
        shards = _finalize_shards(work, buckets, settings.prefix)
        manifest = build_manifest(settings.prefix, dtype, self.tokenizer_sha, vocab, settings.eod_token, eod_id, shards)
        write_manifest(work, manifest)
