"""Semantic dedup against MinHash on planted paraphrases of real documents: recall per kind of
paraphrase, precision, at several cosine thresholds.

    python benchmarks/run_all.py semantic-dedup [--documents 300] [--model all-MiniLM-L6-v2]
        [--thresholds 0.8,0.85,0.9,0.95] [--seed 1] [--output FILE]

A seeded sample of shared/data/dedup/web_docs.jsonl (pages of at least 3 sentences), a paraphrase
(dedup/paraphrase.py: sentences reordered, dropped, synonyms swapped, or all three) planted for half
of them; the embed stage embeds everything once; the dedup stage then runs each method alone under
the local runner, and MinHash then semantic at its default threshold. Scored by `eval dedup`'s
score_method: a paraphrase is found when it and its original are represented by the same kept
document; a drop is correct when the two are one family or their word 5-gram Jaccard is >= 0.8 (a
real copy in the pages). Two pages that report one event in other words count as a wrong drop
here, so precision is a lower bound.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import harness
from common import DATA, clocks
from harness import Results, Spec, option

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.evaluate import load_jsonl, representatives, score_method
from corpus_pipeline.dedup.paraphrase import KINDS, plant_paraphrases, sentences
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.embeddings.stage import EmbeddingsStage
from corpus_pipeline.embeddings.vectors import EMBEDDED_SCHEMA
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stats import StageStats


def sample(path: Path, documents: int, seed: int) -> list[dict]:
    docs = [{"id": d["id"], "text": d["text"]} for d in load_jsonl(str(path)) if len(sentences(d["text"])) >= 3]
    return sorted(random.Random(seed).sample(docs, min(documents, len(docs))), key=lambda d: d["id"])


def embedded(rows: list[dict], config: PipelineConfig) -> tuple[list[dict], dict]:
    stage = EmbeddingsStage(config.embeddings)
    stage.setup()
    rows = [dict(row) for row in rows]
    wall, cpu = clocks()
    stage.process_batch(rows, StageStats("embed"))
    wall_end, cpu_end = clocks()
    seconds = {"wall_s": round(wall_end - wall, 1), "cpu_s": round(cpu_end - cpu, 1)}
    return rows, seconds


def recall_by_kind(rep: dict[str, str], family: dict[str, str], kinds: dict[str, str]) -> dict:
    found, planted = Counter(), Counter()
    for copy_id, kind in kinds.items():
        planted[kind] += 1
        found[kind] += rep[copy_id] == rep[family[copy_id]]
    return {kind: f"{found[kind]}/{planted[kind]}" for kind in KINDS if planted[kind]}


def run(args, figures: Results) -> int:
    docs = sample(args.data, args.documents, args.seed)
    planted = plant_paraphrases(docs, args.seed)
    family = {doc["id"]: doc["id"] for doc in docs} | {p.copy["id"]: p.original_id for p in planted}
    kinds = {p.copy["id"]: p.kind for p in planted}
    rows = docs + [p.copy for p in planted]
    config = PipelineConfig.model_validate(
        {"embeddings": {"enabled": True, "model": args.model, "max_tokens": args.max_tokens, "device": "cpu"}}
    )
    rows, embed_seconds = embedded(rows, config)
    print(f"{len(docs)} documents, {len(planted)} paraphrases; embedded with {args.model} in {embed_seconds}")

    runs = [("minhash", ["minhash"], None)]
    runs += [(f"semantic@{t}", ["semantic"], float(t)) for t in args.thresholds.split(",")]
    runs.append(("minhash+semantic", ["minhash", "semantic"], None))  # at the default threshold
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-semantic-") as work:
        source = write_documents_stage(rows, Path(work) / "input", parts=2, schema=EMBEDDED_SCHEMA)
        for name, methods, threshold in runs:
            dedup = config.dedup.model_copy(update={"methods": methods})
            if threshold is not None:
                dedup = dedup.model_copy(
                    update={"semantic": dedup.semantic.model_copy(update={"threshold": threshold})}
                )
            run_config = config.model_copy(update={"dedup": dedup})
            cpu = time.process_time()
            result = run_stage("dedup", source, Path(work) / name, run_config, LocalExecutor(run_config.spark))
            cpu = round(time.process_time() - cpu, 2)
            rep = representatives(result.output)
            score = score_method(name, rows, family, rep, run_config).to_dict()
            score.pop("recall_by_true_jaccard")
            score |= {"recall_by_kind": recall_by_kind(rep, family, kinds), "dedup_cpu_s": cpu}
            results.append(score)
            print(
                f"{name:<16} precision {score['precision']:.3f} recall {score['recall']:.3f} "
                f"dropped {score['dropped']:>3}  by kind {score['recall_by_kind']}  ({cpu} CPU s)"
            )
    figures.details.update(
        documents=len(docs),
        paraphrases=len(planted),
        model=args.model,
        max_tokens=args.max_tokens,
        seed=args.seed,
        embed=embed_seconds,
        methods=results,
    )
    for score in results:
        figures.record(score["method"], "precision", score["precision"], "fraction")
        figures.record(score["method"], "recall", score["recall"], "fraction")
    print(json.dumps({r["method"]: (r["precision"], r["recall"]) for r in results}))
    return 0


SPEC = Spec(
    "semantic-dedup",
    __doc__,
    run,
    options=(
        option("--documents", type=int, default=300),
        option("--model", default="all-MiniLM-L6-v2"),
        option("--max-tokens", type=int, default=256),
        option("--thresholds", default="0.8,0.85,0.9,0.95", help="cosine thresholds, comma-separated"),
        option("--seed", type=int, default=1),
        option("--data", type=Path, default=DATA / "dedup" / "web_docs.jsonl", help="the documents, JSON lines"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
