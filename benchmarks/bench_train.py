"""Training throughput: the data reader's tokens/s on CPU, a gpt-124m step's tokens/s and MFU, and
the cost of the health monitor (steps/s with `health` on against off; goal >= 0.97x).

    python benchmarks/run_all.py train                 # reader and health on CPU (+ the GPU step with CUDA)
    python benchmarks/run_all.py train --gpu-only      # the GPU step and its health cost: one short command

Both run through the trainer's own code on synthetic shards (random ids, real file format): a
WordLevel tokenizer of 50,304 ids, so the model has GPT-2's padded vocabulary. The GPU step is
`Trainer.train_step` of the gpt-124m preset at sequence length 1,024, bf16 autocast, torch.compile,
fused AdamW; MFU counts 6 x parameters + 12 x layers x width x sequence FLOPs per token against
the device's dense bf16 peak (corpus_pipeline/train/monitor.py). Targets (issue 7): MFU >= 45% on
H100/H200, >= 40% on A100; the reader at >= 10x what the GPU consumes.

Health cost: the same Trainer built twice (health.enabled false / true), stepped as `run()` steps it
(train_step, then the health check of the step before), in alternating rounds so that a neighbour's
load on a shared machine hits both alike; the ratio of the median rates. On CPU the tiny preset at
sequence length 128 (the demo's); on a GPU gpt-124m as above.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import harness
import numpy as np
import torch
from harness import Results, Spec, option
from tokenizers import Tokenizer, models

from corpus_pipeline.tokenize.bpe import file_sha256
from corpus_pipeline.tokenize.indexed_dataset import ShardWriter
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE, build_manifest, write_manifest
from corpus_pipeline.tokenize.reader import TokenShards
from corpus_pipeline.train.config import load_train_config
from corpus_pipeline.train.data import BatchLoader, TokenRange, WindowSampler
from corpus_pipeline.train.distributed import Distributed
from corpus_pipeline.train.model import flops_per_token
from corpus_pipeline.train.train import Trainer

VOCAB = 50_304


def synthetic_shards(directory: Path, tokens: int, shards: int = 4, seed: int = 0) -> Path:
    """`shards` shards of documents with web-like lengths (log-normal, median ~600 tokens)."""
    rng = np.random.default_rng(seed)
    tokenizer = Tokenizer(models.WordLevel({f"t{i}": i for i in range(VOCAB)}, unk_token="t1"))
    tokenizer.save(str(directory / TOKENIZER_FILE))
    files, per_shard = [], tokens // shards
    for number in range(shards):
        writer = ShardWriter(directory / f"tokens_{number:05d}", np.dtype(np.uint16), 0)
        written = 0
        while written < per_shard:
            length = int(min(per_shard - written, max(1, rng.lognormal(6.4, 1.0))))
            writer.add_document([rng.integers(1, VOCAB, length, dtype=np.uint16)])
            written += length + 1
        files.append(writer.close())
    sha = file_sha256(directory / TOKENIZER_FILE)
    write_manifest(directory, build_manifest("tokens", np.dtype(np.uint16), sha, VOCAB, "t0", 0, files))
    return directory


def reader_rate(shards_dir: Path, seconds: float = 5.0) -> float:
    """Tokens/s of BatchLoader.next_step for one rank, gpt-124m shapes (16 x 1,025-token windows)."""
    shards = TokenShards(shards_dir)
    sampler = WindowSampler(TokenRange(0, shards.num_tokens), 1_025, seed=0)
    loader = BatchLoader(shards, sampler, 16, 1, 0, 1, torch.device("cpu"))
    loader.next_step()  # first touch of the pages
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        loader.next_step()
        steps += 1
    return steps * 16 * 1_024 / (time.perf_counter() - started)


def gpu_step(shards_dir: Path, out_dir: Path, steps: int, warmup: int) -> dict:
    overrides = [
        "preset=gpt-124m",
        "micro_batch_size=16",
        "grad_accum_steps=1",
        "precision=bf16",
        "compile=true",
        "tensorboard=false",
        "verify_shards=sizes",
        "device=cuda",
        f"max_steps={warmup + steps}",
        "eval_every=100000",
        "checkpoint_every=100000",
    ]
    config = load_train_config(None, overrides)
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    trainer = Trainer(shards_dir, out_dir, config, Distributed(0, 0, 1, device), resume=False)
    for _ in range(warmup):  # compilation and allocator warm-up
        trainer.train_step()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(steps):
        loss, _, _ = trainer.train_step()
    loss.item()
    elapsed = time.perf_counter() - started
    tokens_per_s = steps * config.tokens_per_step / elapsed
    flops = flops_per_token(trainer.model_config, trainer.parameters)
    return {
        "device": torch.cuda.get_device_name(device),
        "parameters": trainer.parameters,
        "tokens_per_s": tokens_per_s,
        "mfu": flops * tokens_per_s / trainer.peak_flops if trainer.peak_flops else None,
        "step_ms": 1000 * elapsed / steps,
        "peak_memory_gb": torch.cuda.max_memory_allocated(device) / 1e9,
    }


def steps_per_second(trainer: Trainer, steps: int) -> float:
    started = time.perf_counter()
    for _ in range(steps):
        loss, _, _ = trainer.train_step()
        if trainer.health:
            trainer.health.check(trainer.step)
    loss.item()  # waits for the device: the time covers every step
    return steps / (time.perf_counter() - started)


def health_cost(shards_dir: Path, out_dir: Path, overrides: list[str], device: torch.device, steps: int, rounds: int):
    """(rate off, rate on, on / off): median steps/s of `rounds` alternating rounds of `steps` steps."""
    trainers = {}
    for enabled in (False, True):
        config = load_train_config(None, [*overrides, f"health.enabled={str(enabled).lower()}", "max_steps=1000000"])
        (out_dir / str(enabled)).mkdir(parents=True)
        trainer = Trainer(shards_dir, out_dir / str(enabled), config, Distributed(0, 0, 1, device), resume=False)
        steps_per_second(trainer, 5)  # warm-up (and compilation where on)
        trainers[enabled] = trainer
    rates: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(rounds):
        for enabled in (False, True):
            rates[enabled].append(steps_per_second(trainers[enabled], steps))
    off, on = (sorted(rates[enabled])[rounds // 2] for enabled in (False, True))
    return off, on, on / off


def report_health(label: str, cost: tuple[float, float, float]) -> dict:
    off, on, ratio = cost
    print(f"health on / off, {label}: {on:.2f} / {off:.2f} steps/s = {ratio:.3f}x (goal >= 0.97x)")
    return {"off_steps_per_s": off, "on_steps_per_s": on, "ratio": ratio}


def run(args, out: Results) -> None:
    results: dict = out.details
    with tempfile.TemporaryDirectory(prefix="bench_train_") as work:
        shards_dir = synthetic_shards(Path(work), args.tokens)
        if not args.gpu_only:
            results["reader_tokens_per_s"] = reader_rate(shards_dir)
            print(f"reader (one rank, 16 x 1,025-token windows, CPU): {results['reader_tokens_per_s']:,.0f} tokens/s")
            tiny = ["preset=tiny", "tensorboard=false", "verify_shards=sizes", "device=cpu", "micro_batch_size=16"]
            cost = health_cost(
                shards_dir, Path(work) / "health", tiny, torch.device("cpu"), args.health_steps, args.health_rounds
            )
            results["health_cpu"] = report_health(f"tiny preset, CPU, {torch.get_num_threads()} threads", cost)
        if torch.cuda.is_available():
            results["gpu"] = gpu_step(shards_dir, Path(work) / "train", args.steps, args.warmup)
            gpu = results["gpu"]
            step = ["preset=gpt-124m", "micro_batch_size=16", "precision=bf16", "compile=true", "tensorboard=false"]
            step += ["verify_shards=sizes", "device=cuda"]
            cost = health_cost(
                shards_dir, Path(work) / "health", step, torch.device("cuda", 0), args.steps, args.health_rounds
            )
            results["health_gpu"] = report_health(f"gpt-124m, {gpu['device']}", cost)
            mfu = f"{gpu['mfu']:.1%}" if gpu["mfu"] is not None else "n/a (unknown peak: --set peak_flops)"
            print(
                f"gpt-124m, seq 1024, bf16, compile on {gpu['device']}: {gpu['tokens_per_s']:,.0f} tokens/s, "
                f"MFU {mfu}, {gpu['step_ms']:.0f} ms/step, peak memory {gpu['peak_memory_gb']:.1f} GB"
            )
            if "reader_tokens_per_s" in results:
                ratio = results["reader_tokens_per_s"] / gpu["tokens_per_s"]
                print(f"reader / GPU consumption: {ratio:,.0f}x (target >= 10x)")
        else:
            print("no CUDA device: the gpt-124m step was not measured (run this script on a GPU machine)")
    if "reader_tokens_per_s" in results:
        out.record("shard reader, one rank, CPU", "tokens_per_s", results["reader_tokens_per_s"], "tokens/s")
    for key, label in (("health_cpu", "tiny preset, CPU"), ("health_gpu", "gpt-124m, GPU")):
        if key in results:
            on, ratio = results[key]["on_steps_per_s"], results[key]["ratio"]
            out.record(f"{label}, health on", "steps_per_s", on, "steps/s", ratio, "health off")
    if "gpu" in results:
        out.record("gpt-124m step, GPU", "tokens_per_s", results["gpu"]["tokens_per_s"], "tokens/s")
        if results["gpu"]["mfu"] is not None:
            out.record("gpt-124m step, GPU", "mfu", results["gpu"]["mfu"], "fraction")


SPEC = Spec(
    "train",
    __doc__,
    run,
    options=(
        option("--gpu-only", action="store_true", help="skip the CPU reader measurement"),
        option("--tokens", type=int, default=100_000_000, help="synthetic shard tokens (default 100 M)"),
        option("--steps", type=int, default=30, help="timed GPU steps after the warm-up"),
        option("--warmup", type=int, default=10, help="untimed GPU steps (torch.compile)"),
        option("--health-steps", type=int, default=100, help="steps per round of the health cost"),
        option("--health-rounds", type=int, default=5, help="alternating rounds of the health cost"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
