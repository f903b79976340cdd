"""Real text as the datasets `ingest` reads, written by the tests: the shared data's extracted web
pages (dedup/web_docs.jsonl, 1,432 pages with id, url and text), People's Daily and ABC news
documents (stage_fixtures.real_documents), and the first pages of gensim's Wikipedia dump."""

from __future__ import annotations

import bz2
import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import shared_data

from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.demo.sources import WIKIPEDIA_DUMP, package_file
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.lifecycle import StageResult
from corpus_pipeline.stage_runner import run_stage


def web_docs() -> list[dict]:
    with shared_data("dedup/web_docs.jsonl").open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def wikipedia_dump(path: Path, pages: int) -> Path:
    """The first `pages` pages of gensim's dump (106 articles and 100 redirects in all), as a dump:
    the parse of all 206 takes ~8 s, most of it mwparserfromhell's."""
    with bz2.open(package_file(*WIKIPEDIA_DUMP), "rt", encoding="utf-8") as dump:
        markup = dump.read()
    head, _, rest = markup.partition("<page>")
    kept = rest.split("<page>")[:pages]
    kept[-1] = kept[-1].split("</page>")[0] + "</page>\n"
    with bz2.open(path, "wt", encoding="utf-8") as out:
        out.write(head + "".join("<page>" + page for page in kept) + "</mediawiki>\n")
    return path


def ingest(inputs: list[Path], output: Path, *overrides: str) -> StageResult:
    config = load_config(None, list(overrides)) if overrides else PipelineConfig()
    return run_stage("ingest", [str(p) for p in inputs], output, config, LocalExecutor())


def kept(result: StageResult, columns: list[str] | None = None) -> list[dict]:
    return pq.read_table(result.output, columns=columns).to_pylist()


def rejected(result: StageResult) -> list[dict]:
    """Every rejected row, with its `reason` and `reject_detail`."""
    if not (result.output / "_rejected").exists():
        return []
    return pq.read_table(result.output / "_rejected").to_pylist()


def reasons(result: StageResult) -> dict[str, int]:
    return dict(result.stats.dropped)
