"""The driver's share of mix at sizes this 2-core machine cannot tokenize in one sitting: synthetic
encoded tables (what mix's encode tasks write: id, labels, weight, token count, offset, key; no
tokens, no text) for N documents, then what MixStage.run does on the driver with them:
read_documents (sort by id, groups), plan_mix, documents.parquet and the plan arrays. Run in a
child process of its own; its peak RSS is the kernel's VmHWM at the end.

Token counts are drawn from a log-normal of mean ~1,120 tokens and a long tail (bench_mix's generated
documents average 1,175 shard tokens), sources by a hash of the id in bench_mix's proportions.
"""

from __future__ import annotations

import hashlib
import time
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.task_plan import Task, part_name
from corpus_pipeline.mix.corpus import DOCUMENTS_FILE, read_documents, write_documents
from corpus_pipeline.mix.encode_part import ENCODED_DIR, META_SCHEMA
from corpus_pipeline.mix.plan import plan_mix
from corpus_pipeline.mix.stage import write_plan

PARTS = 20


def synthetic_encoded(work: Path, count: int, sources: list[str], seed: int = 0) -> list[Task]:
    rng = np.random.default_rng(seed)
    (work / ENCODED_DIR).mkdir(parents=True, exist_ok=True)
    tasks = []
    for number, positions in enumerate(np.array_split(np.arange(count), PARTS)):
        ids = [hashlib.blake2b(str(p).encode(), digest_size=16).hexdigest() for p in positions]
        labels = [sources[zlib.crc32(i.encode()) % len(sources)] for i in ids]
        tokens = np.maximum(1, rng.lognormal(6.7, 0.8, len(ids))).astype(np.int64)
        columns = {
            "id": ids,
            "source": labels,
            "domain": labels,
            "language": ["en"] * len(ids),
            "weight": np.ones(len(ids), np.int64),
            "text_tokens": tokens,
            "offset": np.cumsum(tokens) - tokens,
            "text_bytes": tokens * 4,
            "key": rng.integers(0, 2**63, len(ids)).astype(np.uint64),
        }
        name = part_name(number)
        pq.write_table(pa.table(columns, schema=META_SCHEMA), work / ENCODED_DIR / f"{name}.parquet")
        tasks.append(Task(name, f"synthetic {number}", ""))
    return tasks


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(work: Path, count: int, config: PipelineConfig, sources: list[str]) -> dict:
    tasks = synthetic_encoded(work, count, sources)
    before = peak_rss_mb()
    started = time.perf_counter()
    table, docs = read_documents(work, tasks, config.mix.by)
    read_s = time.perf_counter() - started
    plan = plan_mix(config.mix, docs, 2, config.tokenize.shard_bytes)
    plan_s = time.perf_counter() - started - read_s
    write_documents(work / DOCUMENTS_FILE, table, plan)
    shards = write_plan(work, table, plan, config.tokenize.prefix)
    return {
        "docs": count,
        "entries": sum(len(phase.entries) for phase in plan.phases),
        "shards": len(shards),
        "read_s": read_s,
        "plan_s": plan_s,
        "driver_s": time.perf_counter() - started,
        "peak_rss_mb_before": before,
        "peak_rss_mb": peak_rss_mb(),
    }
