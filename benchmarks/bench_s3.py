"""Object storage, both ways: the filesystem layer alone, then extract and tokenize on a loopback S3
API server (moto's server mode, a child process on 127.0.0.1) against the same runs on local files,
in one sitting.

layer (a `--mb` MB object of random bytes: incompressible, as gzip WARCs and token shards are)
    a  a local file read in 8 MiB blocks               the page cache: the floor of any read
    b  pyarrow's S3 input stream, 8 MiB reads         the raw library on the same object
    c  Storage.open: 8 MiB ranged GETs, each retried  the project's layer (what every task reads with)
    w  a local file copied (shutil.copyfile)          the page cache again: what a local stage's write costs
    x  pyarrow's S3 output stream, 8 MiB writes       the raw library (multipart upload)
    y  Storage.put_file                               the layer (what every task uploads its files with)
extract (the first `--records` records of shared/data/web/pages.warc.gz in 4 parts, LocalExecutor)
    d  local WARC files -> a local stage directory
    e  s3:// WARC objects -> a local stage directory   the read side alone
    f  s3:// WARC objects -> an s3:// stage            attempt uploads, commit records, manifest, cleanup
tokenize (the documents (d) and (f) wrote, one BPE trained here, LocalExecutor)
    t  local documents -> local shards
    u  s3:// documents -> s3:// shards, the tokenizer an object

Wall seconds, best of `--reps`, the columns alternating within each rep; an output is removed
(untimed) before each run. moto serves from Python on the same 2 cores as the stage, so the store's
side of every request competes with the work: this is what this machine's loopback store gives,
not S3's.

    python benchmarks/run_all.py s3                  # 100 MB, all 1,432 pages, 2 reps: ~10-13 min
    python benchmarks/run_all.py s3 --records 200 --mb 20 --reps 1
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import harness
import pyarrow.parquet as pq
from common import MB, PAGES_WARC, Column, Ratio, StageReport, Target, tree_clocks
from cpu_monitor import CpuMonitor
from harness import Results, Spec, option
from inputs import split_warc

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import input_parts
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.loopback_s3 import start_loopback_s3
from corpus_pipeline.storage.storage import s3_filesystem
from corpus_pipeline.tokenize.bpe import save_tokenizer, train_bpe
from corpus_pipeline.tokenize.config import TrainTokenizerConfig

GOAL = 0.8  # issue 15: extract and tokenize on the store >= 0.8x the same stage on local files
BLOCK = 8 << 20  # StorageConfig.read_block_bytes' default: the same block on every side
BUCKET = "bench"
WARC_PARTS = 4
VOCAB = 8_000  # a small BPE: trained in seconds, and tokenize's cost per byte barely depends on it

LAYER = {
    "a": "local file, 8 MiB reads",
    "b": "pyarrow S3 input stream, 8 MiB reads",
    "c": "Storage.open (ranged GETs, retried)",
    "w": "local file copy (shutil.copyfile)",
    "x": "pyarrow S3 output stream, 8 MiB writes",
    "y": "Storage.put_file (multipart upload)",
}
EXTRACT = {
    "d": "extract, local WARC -> local stage",
    "e": "extract, s3:// WARC -> local stage",
    "f": "extract, s3:// WARC -> s3:// stage",
}
TOKENIZE = {
    "t": "tokenize, local docs -> local shards",
    "u": "tokenize, s3:// docs -> s3:// shards",
}


def log(message: str) -> None:
    print(message, flush=True)


def read_all(stream) -> int:
    total = 0
    while chunk := stream.read(BLOCK):
        total += len(chunk)
    return total


def layer_runs(local: Path, uri: str, work: Path) -> dict[str, Callable]:
    storage = Storage()
    key = uri.removeprefix("s3://")
    copy_key = key + ".copy"

    def local_read():
        with open(local, "rb") as stream:
            return read_all(stream)

    def pyarrow_read():
        with s3_filesystem(storage.config).open_input_stream(key, compression=None) as stream:
            return read_all(stream)

    def layer_read():
        with storage.open(uri) as stream:
            return read_all(stream)

    def local_copy():
        shutil.copyfile(local, work / "copy.bin")

    def pyarrow_write():
        with open(local, "rb") as source, s3_filesystem(storage.config).open_output_stream(copy_key) as target:
            while block := source.read(BLOCK):
                target.write(block)

    def layer_write():
        storage.put_file(str(local), f"s3://{copy_key}")

    return {"a": local_read, "b": pyarrow_read, "c": layer_read, "w": local_copy, "x": pyarrow_write, "y": layer_write}


def fresh_run(stage: str, inputs, output: str | Path, expected_docs: int | None, **options) -> Callable:
    """One timed call: the output removed first (untimed: a rerun would be skipped as done)."""

    def prepare():
        if str(output).startswith("s3://"):
            Storage().delete_prefix(str(output))
        else:
            shutil.rmtree(output, ignore_errors=True)

    def once():
        result = run_stage(stage, inputs, output, PipelineConfig(), LocalExecutor(), **options)
        docs = expected_docs if expected_docs is not None else result.stats.docs_in
        if result.skipped or result.stats.docs_in != docs or docs == 0:
            raise RuntimeError(f"{stage} into {output}: skipped={result.skipped}, {result.stats.docs_in} in")
        return result

    once.prepare = prepare
    return once


def train_tokenizer(documents: Path, path: Path) -> None:
    texts = [
        text
        for part in input_parts(documents, storage=Storage())
        for text in pq.read_table(part, columns=["text"])["text"].to_pylist()
    ]
    save_tokenizer(
        train_bpe((texts[i : i + 1_000] for i in range(0, len(texts), 1_000)), TrainTokenizerConfig(vocab_size=VOCAB)),
        path,
    )


def timed(functions: dict[str, Callable], labels: dict[str, str], seconds: dict, cpu: dict, results: dict) -> None:
    """Wall seconds, and CPU seconds of this process and its children: moto's server is one, so a
    column's CPU holds both sides of every request, and barely moves when others load the machine."""
    for key, function in functions.items():
        if hasattr(function, "prepare"):
            function.prepare()
        wall, busy = tree_clocks()
        results[key] = function()
        wall_end, busy_end = tree_clocks()
        seconds.setdefault(key, []).append(wall_end - wall)
        cpu.setdefault(key, []).append(busy_end - busy)
        log(f"  ({key}) {labels[key]}: {seconds[key][-1]:.2f} s, {cpu[key][-1]:.2f} CPU s")


def run(args, figures: Results) -> int:
    work = Path(tempfile.mkdtemp(prefix="corpus_bench_s3_"))
    monitor = CpuMonitor(work / "cpu-monitor.txt").start()
    server = start_loopback_s3()
    os.environ.update(server.environment())
    try:
        client = server.client()
        client.create_bucket(Bucket=BUCKET)
        blob = work / "random.bin"
        blob.write_bytes(os.urandom(args.mb * 1_000_000))
        client.upload_file(str(blob), BUCKET, "raw/random.bin")
        warc = split_warc(PAGES_WARC, work / "warc", parts=WARC_PARTS, limit=args.records)
        uris = []
        for part in warc.parts:
            client.upload_file(part, BUCKET, f"warc/{Path(part).name}")
            uris.append(f"s3://{BUCKET}/warc/{Path(part).name}")
        warc_mb = sum(Path(part).stat().st_size for part in warc.parts) / MB
        log(f"{args.mb} MB object; {warc.records:,} WARC records in {WARC_PARTS} parts, {warc_mb:.1f} MB gzip")

        docs_local, docs_s3 = work / "extract-local", f"s3://{BUCKET}/runs/extract"
        extract = {
            "d": fresh_run("extract", warc.parts, docs_local, warc.records),
            "e": fresh_run("extract", uris, work / "extract-from-s3", warc.records),
            "f": fresh_run("extract", uris, docs_s3, warc.records),
        }
        tokenizer = work / "tokenizer.json"
        tokenizer_uri = f"s3://{BUCKET}/tokenizer.json"
        tokenize = {
            "t": fresh_run("tokenize", docs_local, work / "tokens", None, tokenizer=tokenizer),
            "u": fresh_run("tokenize", docs_s3, f"s3://{BUCKET}/runs/tokens", None, tokenizer=tokenizer_uri),
        }
        labels = {**LAYER, **EXTRACT, **TOKENIZE}
        seconds: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        results: dict = {}
        for rep in range(args.reps):
            timed(layer_runs(blob, f"s3://{BUCKET}/raw/random.bin", work), labels, seconds, cpu, results)
            timed(extract, labels, seconds, cpu, results)
            if rep == 0:  # on the documents (d) wrote: both tokenize columns read the same ones
                train_tokenizer(docs_local, tokenizer)
                Storage().put_file(str(tokenizer), tokenizer_uri)
            timed(tokenize, labels, seconds, cpu, results)
        if results["t"].stats.extra["tokens"] != results["u"].stats.extra["tokens"]:
            raise RuntimeError("tokenize wrote other tokens from the bucket than from local files")

        layer = StageReport("s3-layer", f"{args.mb} MB of random bytes, loopback moto server", log=log)
        for key, label in LAYER.items():
            layer.add(Column(key, label, seconds[key], 1, args.mb, cpu_seconds=cpu[key]))
        a, b, c, w, x, y = (layer.column(key) for key in "abcwxy")
        layer.ratios += [
            Ratio("read: layer / pyarrow's own stream (MB/s)", b.best / c.best, "(c) against (b)"),
            Ratio("read: loopback store / local file (MB/s)", a.best / b.best, "(b) against (a)"),
            Ratio("write: layer / pyarrow's own stream (MB/s)", x.best / y.best, "(y) against (x)"),
            Ratio("write: loopback store / local copy (MB/s)", w.best / x.best, "(x) against (w)"),
        ]

        stages = StageReport("s3-stages", "extract and tokenize on a loopback moto server, LocalExecutor", log=log)
        for key, label in EXTRACT.items():
            stages.add(Column(key, label, seconds[key], warc.records, warc_mb, cpu_seconds=cpu[key]))
        text_mb = results["t"].stats.bytes_in / MB
        for key, label in TOKENIZE.items():
            tokens = results[key].stats.extra["tokens"]["text"]
            docs = results[key].stats.docs_in
            stages.add(Column(key, label, seconds[key], docs, text_mb, f"{tokens:,} tokens", cpu_seconds=cpu[key]))
        d, e, f, t, u = (stages.column(key) for key in "deftu")
        stages.ratios.append(Ratio.of("extract, store read only / local", e, d, "(e) against (d)"))
        stages.targets += [
            Target("extract s3 -> s3 / local -> local", d.best / f.best, GOAL, cpu_value=d.best_cpu / f.best_cpu),
            Target("tokenize s3 -> s3 / local -> local", t.best / u.best, GOAL, cpu_value=t.best_cpu / u.best_cpu),
        ]
        others_s, steal_s = monitor.snapshot()
        stages.notes.append(
            f"CPU seconds include moto's server (a child of this process); other processes used {others_s:,.0f} "
            f"core-seconds during the run (steal {steal_s:,.0f})"
        )
        for report in (layer, stages):
            print(report.table())
        for key in "abcwxy":
            log(f"  ({key}) {layer.column(key).mb_per_s:,.0f} MB/s")
        figures.add_report(layer)
        figures.add_report(stages)
    finally:
        server.stop()
        monitor.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


SPEC = Spec(
    "s3",
    __doc__,
    run,
    shared=("reps",),
    options=(
        option("--mb", type=int, default=100, help="size of the object the layer reads and writes"),
        option("--records", type=int, help="the first N records of pages.warc.gz (default: all 1,432)"),
    ),
    defaults={"reps": 2},
)

if __name__ == "__main__":
    raise SystemExit(harness.main(SPEC))
