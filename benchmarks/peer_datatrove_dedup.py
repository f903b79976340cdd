"""datatrove's four MinHash dedup steps on a JSONL file, each timed, run INSIDE the benchmark venv
(benchmarks/peer_env.py); never imported by the project. The last stdout line is one JSON object:
per step wall, datatrove's own block time and CPU seconds, and which documents it removed and
which cluster each clustered document fell in, so the caller scores it with its own labels.

Settings: datatrove's default MinhashConfig (word 5-grams after its simplify_text and spaCy word
tokenizer, 14 buckets x 8 hashes, 64-bit xxhash, seed 1), nothing changed. Every step is
LocalPipelineExecutor(workers=1) with tasks=1, except MinhashDedupBuckets, which asserts
tasks % num_buckets == 0: it runs its 14 bucket tasks one after another in this process.
Step 3 saves cluster ids and step 4 loads them (two small binary files) only so the caller can
tell which kept document stands for each removed one; the dedup decisions are the same. Step 4
writes kept and removed documents with datatrove's default JsonlWriter (gzip), as a real run does.

    peer_datatrove_dedup.py --input docs.jsonl --work DIR
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import resource
import shutil
import sys
import time
from importlib import metadata


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run_step(pipeline: list, logs: str, tasks: int = 1) -> dict:
    from datatrove.executor import LocalPipelineExecutor

    executor = LocalPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=1, logging_dir=logs, skip_completed=False)
    started, cpu = time.perf_counter(), _cpu_seconds()
    stats = executor.run()
    wall, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    blocks = {block.name: block.time_stats.total for block in stats.stats}
    return {"wall_s": wall, "cpu_s": cpu, "block_s": blocks}


def _ids_and_clusters(folder: str) -> tuple[list[str], dict[str, int]]:
    ids, clusters = [], {}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl.gz"))):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                doc = json.loads(line)
                ids.append(doc["id"])
                cluster = doc.get("metadata", {}).get("minhash_cluster_id", -1)
                if cluster != -1:
                    clusters[doc["id"]] = cluster
    return ids, clusters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, help="JSON lines with `id` and `text`")
    parser.add_argument("--work", required=True, help="folder for datatrove's files (emptied first)")
    args = parser.parse_args()
    from datatrove.pipeline.dedup import (
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupFilter,
        MinhashDedupSignature,
    )
    from datatrove.pipeline.dedup.minhash import MinhashConfig
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    shutil.rmtree(args.work, ignore_errors=True)
    folder = {name: os.path.join(args.work, name) for name in ("signatures", "buckets", "remove", "kept", "removed")}
    config = MinhashConfig()

    def reader():
        return JsonlReader(os.path.dirname(os.path.abspath(args.input)), glob_pattern=os.path.basename(args.input))

    def logs(step: str) -> str:
        return os.path.join(args.work, "logs", step)

    steps = {}
    steps["signature"] = _run_step([reader(), MinhashDedupSignature(folder["signatures"], config=config)], logs("1"))
    steps["buckets"] = _run_step(
        [MinhashDedupBuckets(folder["signatures"], folder["buckets"], config=config)], logs("2"), config.num_buckets
    )
    steps["cluster"] = _run_step(
        [MinhashDedupCluster(folder["buckets"], folder["remove"], config=config, save_cluster_id=True)], logs("3")
    )
    steps["filter"] = _run_step(
        [
            reader(),
            MinhashDedupFilter(
                folder["remove"], exclusion_writer=JsonlWriter(folder["removed"]), load_cluster_ids=True
            ),
            JsonlWriter(folder["kept"]),
        ],
        logs("4"),
    )
    kept, kept_clusters = _ids_and_clusters(folder["kept"])
    removed, removed_clusters = _ids_and_clusters(folder["removed"])
    result = {
        "config": str(config),
        "docs": len(kept) + len(removed),
        "steps": steps,
        "total_wall_s": sum(step["wall_s"] for step in steps.values()),
        "total_cpu_s": sum(step["cpu_s"] for step in steps.values()),
        "removed": removed,
        "clusters": kept_clusters | removed_clusters,
        "versions": {name: metadata.version(name) for name in ("datatrove", "numpy", "xxhash", "spacy")},
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
