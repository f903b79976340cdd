"""Reading from object storage: the filesystem layer alone, and extract, against local files, in one
sitting, on a loopback S3 API server (moto's server mode, a child process on 127.0.0.1).

    a  a local file read in 8 MiB blocks               the page cache: the floor of any read
    b  pyarrow's S3 input stream, 8 MiB reads         the raw library on the same object
    c  Storage.open: 8 MiB ranged GETs, each retried  the project's layer (what every task reads with)
    d  extract on WARC parts as local files           LocalExecutor, one task per part
    e  extract on the same parts as s3:// objects     the same run, listing and reads through the layer

(a)-(c) read a `--mb` MB object of random bytes (incompressible, as gzip WARCs are); (d)-(e) the
first `--records` records of the real pages (shared/data/web/pages.warc.gz) split into 4 parts.
Wall seconds, best of `--reps`, the columns alternating within each rep. moto serves from Python
on the same 2 cores as the reader, so (b) is what this machine's loopback store gives, not S3's.

    python benchmarks/bench_s3_read.py                  # 100 MB, all 1,432 pages, 2 reps: ~4 min
    python benchmarks/bench_s3_read.py --records 200 --mb 20 --reps 1
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from common import MB, PAGES_WARC, RESULTS, Column, Ratio, StageReport, Target, write_results
from inputs import split_warc

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.local import LocalExecutor
from corpus_pipeline.engine.run import run_stage
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.loopback_s3 import start_loopback_s3
from corpus_pipeline.storage.storage import s3_filesystem

GOAL = 0.8  # issue 15: extract from the store >= 0.8x extract on local files
BLOCK = 8 << 20  # StorageConfig.read_block_bytes' default: the same block on every side
BUCKET = "bench"
WARC_PARTS = 4


def log(message: str) -> None:
    print(message, flush=True)


def read_all(stream) -> int:
    total = 0
    while chunk := stream.read(BLOCK):
        total += len(chunk)
    return total


def raw_reads(local: Path, uri: str) -> dict:
    storage = Storage()
    key = uri.removeprefix("s3://")

    def local_file():
        with open(local, "rb") as stream:
            return read_all(stream)

    def pyarrow_stream():
        with s3_filesystem(storage.config).open_input_stream(key, compression=None) as stream:
            return read_all(stream)

    def layer():
        with storage.open(uri) as stream:
            return read_all(stream)

    return {"a": local_file, "b": pyarrow_stream, "c": layer}


def extract_runs(parts: list[str], uris: list[str], work: Path, records: int) -> dict:
    def run(inputs: list[str], name: str):
        def once():
            output = work / name
            shutil.rmtree(output, ignore_errors=True)
            result = run_stage("extract", inputs, output, PipelineConfig(), LocalExecutor())
            if result.skipped or result.stats.docs_in != records:
                raise RuntimeError(f"extract ({name}) read {result.stats.docs_in} records, not {records}")
            return result.stats.kept

        return once

    return {"d": run(parts, "local"), "e": run(uris, "s3")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="size of the object the raw reads read")
    parser.add_argument("--records", type=int, help="the first N records of pages.warc.gz (default: all 1,432)")
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="corpus_bench_s3_"))
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

        labels = {
            "a": "local file, 8 MiB reads",
            "b": "pyarrow S3 input stream, 8 MiB reads",
            "c": "Storage.open (ranged GETs, retried)",
            "d": "extract, local WARC files",
            "e": "extract, s3:// WARC objects",
        }
        functions = {
            **raw_reads(blob, f"s3://{BUCKET}/raw/random.bin"),
            **extract_runs(warc.parts, uris, work, warc.records),
        }
        seconds: dict[str, list[float]] = {key: [] for key in functions}
        for rep in range(args.reps):
            for key, function in functions.items():
                started = time.perf_counter()
                function()
                seconds[key].append(time.perf_counter() - started)
                log(f"  rep {rep + 1} ({key}) {labels[key]}: {seconds[key][-1]:.2f} s")

        report = StageReport("s3-read", "loopback moto server, LocalExecutor", log=log)
        for key, label in labels.items():
            raw = key in "abc"
            report.add(Column(key, label, seconds[key], 1 if raw else warc.records, args.mb if raw else warc_mb))
        a, b, c, d, e = (report.column(key) for key in "abcde")
        report.ratios.append(Ratio("layer / pyarrow's own stream (MB/s)", b.best / c.best, "(c) against (b)"))
        report.ratios.append(Ratio("loopback store / local file (MB/s)", a.best / b.best, "(b) against (a)"))
        report.targets.append(Target("extract from the store / extract on local files", d.best / e.best, GOAL))
        print(report.table())
        for key in "abc":
            log(f"  ({key}) {report.column(key).mb_per_s:,.0f} MB/s")
        path = write_results(RESULTS / "s3_read.json", {"s3_read": report.to_dict()})
        log(f"results: {path}")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
