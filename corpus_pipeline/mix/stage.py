"""mix: documents of one or more stage directories -> token shards built to target shares of groups.

Three steps, through the engine's lifecycle (a GlobalStage: fingerprint, work directory, resume):
1. encode (tasks, encode_part.py): every document encoded once into flat token files;
2. plan (driver, plan.py): from (id, group, weight, token count) alone, which documents and repeats
   go in which order into which shard; targets the data cannot meet are refused here, before any
   shard is written, and the work directory is removed;
3. write (one task per shard, write_shard.py): token ranges copied into Megatron .bin/.idx shards.
The stage directory holds what tokenize's does (tokenizer.json, <prefix>_<NNNNN>.bin/.idx,
manifest.json, with a `mix` section: targets, achieved shares, repeat factors, phases), plus
documents.parquet (one row per document in shard order), _rejected/, _stats.json.
The output depends on the documents and the config only: not on how the inputs are partitioned,
the task count or the runner (the plan sorts by id and hashes; the shards are cut by the plan).
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from corpus_pipeline.config import EngineConfig, StorageConfig
from corpus_pipeline.engine.whole_corpus import STATS_DIR, Executor, GlobalStage, settle_committed
from corpus_pipeline.mix import encoded_cache
from corpus_pipeline.mix.config import MixConfig
from corpus_pipeline.mix.corpus import DOCUMENTS_FILE, encode_tasks, read_documents, write_documents, write_left_out
from corpus_pipeline.mix.encode_part import ENCODED_DIR, EncodeJob, encode_part, encoded_summary
from corpus_pipeline.mix.plan import MixPlan, percent, plan_mix
from corpus_pipeline.mix.write_shard import PLAN_DIR, ShardJob, ShardTask, read_shard_file, shard_summary, write_shard
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location
from corpus_pipeline.tokenize.config import TokenizeConfig
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE, build_manifest, read_manifest, write_manifest
from corpus_pipeline.tokenize.shard_task import EMPTY_TEXT
from corpus_pipeline.tokenize.shard_vocabulary import install_tokenizer, resolve_tokenizer
from corpus_pipeline.tokenize.sharding import shard_name, threads_per_task

STAGE = "mix"
_WEIGHT_OPTIONS = {"dup_cluster_size": "mix.rehydration"}


class MixStage(GlobalStage):
    name = STAGE
    uses_local_dir = True

    def __init__(
        self,
        config: MixConfig | None = None,
        tokenize: TokenizeConfig | None = None,
        engine: EngineConfig | None = None,
        storage: StorageConfig | None = None,
        tokenizer: Path | None = None,
        encoded_cache: Location | None = None,
    ):
        self.config = config or MixConfig()
        self.tokenize = tokenize or TokenizeConfig()
        self.engine = engine or EngineConfig()
        self.tokenizer, self.tokenizer_sha = resolve_tokenizer(STAGE, tokenizer, Storage(storage))
        # Encoded tasks kept across runs (encoded_cache.py): not in the fingerprint, since the
        # output is the same with or without it.
        self.encoded_cache = encoded_cache

    def config_fingerprint(self) -> str:
        # engine.task_rows only cuts the first pass into tasks: the output does not depend on it.
        return f"{self.config!r} {self.tokenize!r} tokenizer={self.tokenizer_sha}"

    def inputs(self) -> list[Path]:
        return [self.tokenizer]

    @staticmethod
    def describe(output: Path, storage: Storage) -> str:
        manifest = read_manifest(output, storage)
        mix = manifest["mix"]
        shares = ", ".join(
            f"{group} {percent(facts['achieved'])} (target {percent(facts['target'])}, x{facts['repeat_factor']:.2f})"
            for group, facts in mix["groups"].items()
        )
        return f"{output}: {len(manifest['shards'])} shards, {mix['tokens']:,} tokens: {shares}"

    def run(self, input_dir: list[Path], work, executor: Executor) -> dict:
        # Its shard tasks read the token files the encode tasks wrote (np.memmap): a directory they
        # share (on a store, the scratch one).
        storage, work = work.storage, work.local_dir(self.name)
        inputs = input_dir if isinstance(input_dir, list) else [input_dir]
        vocabulary = install_tokenizer(self.tokenizer, self.tokenizer_sha, self.tokenize, work / TOKENIZER_FILE)
        weights = self.config.weight_columns()
        options = {c: _WEIGHT_OPTIONS.get(c, "mix.quality_tiers") for c in weights}
        tasks = encode_tasks(inputs, self.engine.task_rows, options, storage)
        settle_committed(STAGE, work)
        job = EncodeJob(
            work=str(work),
            tokenizer_path=str(vocabulary.path),
            tokenizer_sha256=self.tokenizer_sha,
            dtype=vocabulary.dtype.name,
            max_chunk_chars=self.tokenize.max_chunk_chars,
            batch_chars=self.tokenize.batch_chars,
            seed=self.config.seed,
            weights=tuple(weights.items()),
            threads=None,
        )
        todo = [t for t in tasks if (encoded_summary(work, t.name) or {}).get("identity") != t.identity]
        if self.encoded_cache is not None:
            todo = [t for t in todo if not encoded_cache.restore(self.encoded_cache, storage, job, t, work)]
        if executor.distributed:
            cores = executor.session().sparkContext.defaultParallelism
            job = replace(job, threads=self.tokenize.threads_per_task or threads_per_task(cores, len(todo)))
        executor.map_tasks(partial(encode_part, job), todo, "mix: encode")
        settle_committed(STAGE, work)
        cached = {t.name for t in tasks if encoded_cache.restored(work, t.name)}
        if self.encoded_cache is not None:
            for task in tasks:
                if task.name not in cached:
                    encoded_cache.keep(self.encoded_cache, storage, job, task, work)
            encoded_cache.prune(self.encoded_cache, storage, job, tasks)
        table, docs = read_documents(work, tasks, self.config.by)
        # MixTargetsError, a refusal: the lifecycle removes the work, leaving nothing behind.
        plan = plan_mix(self.config, docs, vocabulary.dtype.itemsize, self.tokenize.shard_bytes)
        write_documents(work / DOCUMENTS_FILE, table, plan)
        self._write_stats(work, tasks, cached, table, plan)
        shard_tasks = write_plan(work, table, plan, self.tokenize.prefix)
        todo = [t for t in shard_tasks if (shard_summary(work, t.name) or {}).get("identity") != t.identity]
        shard_job = ShardJob(str(work), vocabulary.dtype.name, vocabulary.eod_id, tuple(t.name for t in tasks))
        executor.map_tasks(partial(write_shard, shard_job), todo, "mix: write shards")
        settle_committed(STAGE, work)
        self._finishing = (vocabulary, plan, [t.name for t in shard_tasks])
        return {"inputs": [str(path) for path in inputs]}

    def _write_stats(self, work: Path, tasks, cached: set[str], table, plan: MixPlan) -> None:
        stats = StageStats(STAGE, tasks=len(tasks))
        for task in tasks:
            summary = encoded_summary(work, task.name)
            stats.add_in(summary["docs_in"], summary["bytes_in"])
            # Which documents this stage encoded and which it took encoded from mix's cache.
            stats.count(
                "encoding", "cached_documents" if task.name in cached else "encoded_documents", summary["docs_in"]
            )
            if summary[EMPTY_TEXT]:
                stats.count_dropped(EMPTY_TEXT, summary[EMPTY_TEXT])
            if task.name not in cached:  # (a cached task's seconds were spent the night it was encoded)
                stats.task_seconds += summary["seconds"]
            for repair, count in summary["repairs"].items():
                stats.count("repairs", repair, count)
        write_left_out(work, table, plan, stats)
        languages = pc.fill_null(table.column("language"), "unknown").combine_chunks().dictionary_encode()
        language_of = languages.indices.to_numpy(zero_copy_only=False)
        text_tokens = table.column("text_tokens").to_numpy()
        # Text tokens of one pass over every document mix read: the report's funnel measures the
        # corpus's bytes per token by it, as by tokenize's `tokens.text` in a run without a mix.
        stats.count("input_tokens", "text", int(text_tokens.sum()))
        for phase in plan.phases:
            # Text tokens per language of what the shards hold, repeats counted: tokenize's counter,
            # which the report's "tokens per language" chart reads.
            by_language = np.bincount(
                language_of[phase.entries], weights=text_tokens[phase.entries], minlength=len(languages.dictionary)
            )
            for language, tokens in zip(languages.dictionary.to_pylist(), by_language, strict=True):
                if tokens:
                    stats.count("tokens_by_language", language, int(tokens))
            for group, tokens in phase.group_tokens.items():
                stats.count("tokens_by_group", group, tokens)
            stats.count("tokens", "shard", sum(phase.group_tokens.values()))
            stats.count("tokens", "end_of_document", len(phase.entries))
            for repeat, count in zip(*np.unique(phase.repeats, return_counts=True), strict=True):
                stats.count("entries_by_repeat", str(int(repeat)), int(count))
        stats.check_balanced()
        (work / STATS_DIR).mkdir(exist_ok=True)
        stats.write(work / STATS_DIR / f"{STAGE}.json")

    def finish(self, work) -> None:
        """The manifest (tokenize's, with a `mix` section), once every shard is in place; then the
        encoded tokens and the plan, which only the shard tasks needed, are removed."""
        work = work.local_dir(self.name)
        vocabulary, plan, names = self._finishing
        shards = [read_shard_file(work, name) for name in names]
        manifest = build_manifest(
            self.tokenize.prefix,
            vocabulary.dtype,
            self.tokenizer_sha,
            vocabulary.vocab,
            self.tokenize.eod_token,
            vocabulary.eod_id,
            shards,
        )
        manifest["mix"] = mix_section(self.config, plan, names)
        write_manifest(work, manifest)
        for scratch in (ENCODED_DIR, PLAN_DIR):
            shutil.rmtree(work / scratch, ignore_errors=True)


def write_plan(work: Path, table, plan: MixPlan, prefix: str) -> list[ShardTask]:
    """The plan arrays the shard tasks read, and one task per shard (numbered across phases)."""
    entries = np.concatenate([phase.entries for phase in plan.phases]) if plan.phases else np.zeros(0, np.int64)
    columns = {"part": "part", "offset": "offset", "length": "text_tokens"}  # (an empty input has none)
    arrays = {
        name: table.column(column).to_numpy()[entries] if len(entries) else np.zeros(0, np.int64)
        for name, column in columns.items()
    }
    (work / PLAN_DIR).mkdir(exist_ok=True)
    digest = hashlib.sha256()
    for name, values in arrays.items():
        np.save(work / PLAN_DIR / f"{name}.npy", values)
        digest.update(np.ascontiguousarray(values).tobytes())
    tasks, base = [], 0
    for phase in plan.phases:
        for start, stop in phase.shards:
            name = shard_name(prefix, len(tasks))
            identity = f"{name}: plan rows {base + start}-{base + stop} of {digest.hexdigest()[:16]}"
            tasks.append(ShardTask(name, base + start, base + stop, identity))
        base += len(phase.entries)
    return tasks


def mix_section(config: MixConfig, plan: MixPlan, names: list[str]) -> dict:
    """The manifest's record of the mix: per group its target and achieved shares of the shard
    tokens and its repeat factor (tokens taken / one pass), and per phase the same and its shards."""
    total = sum(plan.taken(group) for group in plan.pass_tokens) or 1
    groups = {
        group: {
            "target": round(plan.asked.get(group, 0.0), 6),
            "achieved": round(plan.taken(group) / total, 6),
            "tokens": plan.taken(group),
            "pass_tokens": tokens,
            "repeat_factor": round(plan.taken(group) / tokens, 6) if tokens else 0.0,
        }
        for group, tokens in sorted(plan.pass_tokens.items())
    }
    phases, first = [], 0
    for phase in plan.phases:
        tokens = sum(phase.group_tokens.values()) or 1
        phases.append(
            {
                "name": phase.name,
                "share": phase.share,
                "shards": names[first : first + len(phase.shards)],
                "documents": len(phase.entries),
                "tokens": sum(phase.group_tokens.values()),
                "targets": dict(sorted(phase.targets.items())),
                "achieved": {g: round(t / tokens, 6) for g, t in sorted(phase.group_tokens.items())},
            }
        )
        first += len(phase.shards)
    return {
        "by": list(config.by),
        "seed": config.seed,
        "max_repeats": config.max_repeats,
        "weights": {column: [list(tier) for tier in tiers] for column, tiers in config.weight_columns().items()},
        "budget_tokens": round(plan.total_tokens),
        "tokens": sum(plan.taken(group) for group in plan.pass_tokens),
        "groups": groups,
        "phases": phases,
        "documents_file": DOCUMENTS_FILE,
    }
