"""datatrove's PIIFormatter, timed INSIDE the benchmark venv (see peer_env.py); never imported by
the project. One measurement per invocation; the last stdout line is one JSON object.

    peer_pii.py pipeline --input DIR --work DIR   JsonlReader -> PIIFormatter() (defaults)
    peer_pii.py raw --input DIR                   PIIFormatter().format(text) per document, timed alone
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from importlib import metadata


def read_texts(folder: str) -> list[str]:
    texts = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as lines:
            texts.extend(json.loads(line)["text"] for line in lines)
    return texts


def pipeline(args) -> dict:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.formatters import PIIFormatter
    from datatrove.pipeline.readers import JsonlReader

    logs = os.path.join(args.work, "logs")
    shutil.rmtree(logs, ignore_errors=True)
    executor = LocalPipelineExecutor(
        pipeline=[JsonlReader(args.input, glob_pattern="*.jsonl"), PIIFormatter()],
        tasks=1,
        workers=1,
        logging_dir=logs,
        skip_completed=False,
    )
    started = time.perf_counter()
    stats = executor.run()
    wall = time.perf_counter() - started
    blocks = [{"name": b.name, "seconds": b.time_stats.total, "stats": b.stats.to_dict()} for b in stats.stats]
    return {"wall_s": wall, "blocks": blocks}


def raw(args) -> dict:
    from datatrove.pipeline.formatters import PIIFormatter

    formatter = PIIFormatter()
    texts = read_texts(args.input)
    started = time.perf_counter()
    for text in texts:
        formatter.format(text)
    return {"seconds": time.perf_counter() - started, "docs": len(texts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sub = commands.add_parser("pipeline")
    sub.add_argument("--input", required=True)
    sub.add_argument("--work", required=True)
    sub.set_defaults(fn=pipeline)
    sub = commands.add_parser("raw")
    sub.add_argument("--input", required=True)
    sub.set_defaults(fn=raw)
    args = parser.parse_args()
    result = args.fn(args)
    result["versions"] = {"datatrove": metadata.version("datatrove")}
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
