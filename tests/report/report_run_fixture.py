"""A small, complete run directory for the report tests, built once per session.

Real text (the demo's Wikipedia and People's Daily articles, from installed packages) goes through
the real langid, normalize, pii, quality, train-tokenizer and tokenize stages on the local
executor. Extract and dedup are written by hand (extract needs WARC files, dedup a Spark session),
the way those stages write them: a kept part, `_rejected/reason=<r>/`, `_stats.json`, `_SUCCESS`.

Planted for the tests: a French page (rejected by langid) and an English page that both carry an
email address and a phone number, an exact duplicate of one article (rejected by dedup, cluster of
2), and a bulleted list page that the quality rules reject.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from stage_fixtures import final_corpus, stage_dir

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.demo.sources import load_peoples_daily, load_wikipedia
from corpus_pipeline.document import DOCUMENT_SCHEMA, document_id, empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.registry import STAGES
from corpus_pipeline.engine.stage_order import opted_out
from corpus_pipeline.engine.store.stage_dir import input_parts
from corpus_pipeline.report.run_dir import read_columns
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stages.base import Drop
from corpus_pipeline.storage import Storage

EMAIL = "jane.doe.planted@example.org"
PHONE = "+1 415 555 0134"
FRENCH = (
    "Bonjour, je m'appelle Claire et j'habite à Lyon depuis dix ans. Écrivez-moi à "
    f"{EMAIL} ou appelez le {PHONE} pour toute question sur la réunion de demain matin. "
    "Nous parlerons du budget de l'association et des projets pour l'année prochaine."
)
LIST_PAGE = "\n".join(f"\u2022 Item number {n} on sale today" for n in range(40))
ENGLISH_ARTICLES = 12
CHINESE_ARTICLES = 8


def config() -> PipelineConfig:
    return PipelineConfig.model_validate(
        {
            "langid": {"allowed_languages": ["en", "zh"]},
            "train_tokenizer": {"vocab_size": 600},
            "report": {"examples_per_rule": 2, "example_chars": 2000},
        }
    )


def source_documents() -> list[dict]:
    docs = []
    for number, article in enumerate(load_wikipedia(limit=ENGLISH_ARTICLES * 2)[:ENGLISH_ARTICLES]):
        text = article.title + "\n\n" + "\n\n".join(article.paragraphs)
        if number == 0:  # at the start, so it is inside every example's shown text
            text = f"Contact the editor at {EMAIL} or call {PHONE}.\n\n" + text
        docs.append((f"https://www.en.example.org/wiki/{number}", text))
    for number, article in enumerate(load_peoples_daily()[:CHINESE_ARTICLES]):
        docs.append(
            (f"https://news.example.cn/{number}.html", article.title + "\n\n" + "\n\n".join(article.paragraphs))
        )
    docs.append(("https://www.example.fr/contact", FRENCH))
    docs.append(("https://shop.example.com/list", LIST_PAGE))
    docs.append(("https://mirror.example.net/copy", docs[1][1]))  # an exact copy of the second article
    return [empty_document(id=document_id(url, text), text=text, url=url, dump="fixture") for url, text in docs]


def write_stage(directory: Path, name: str, schema: pa.Schema, kept: list[dict], rejected: list[tuple[dict, Drop]]):
    """A finished stage directory with one task, as the engine writes it."""
    publish_rows(directory, [kept], schema, stage=name, rejected=rejected)


def write_extract(run_dir: Path) -> None:
    requests = [empty_document(id=f"<urn:uuid:request-{n}>", text="") for n in range(2)]
    rejected = [(row, Drop("not_a_document", "request")) for row in requests]
    write_stage(stage_dir(run_dir, "extract"), "extract", DOCUMENT_SCHEMA, source_documents(), rejected)


def write_dedup(run_dir: Path, documents: Path) -> None:
    """Exact duplicates by text: the smallest id of a group is kept and stands for the cluster."""
    parts = input_parts(documents, storage=Storage())
    schema = pq.read_schema(parts[0])
    rows = read_columns(parts, schema.names).to_pylist()
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["text"], []).append(row)
    kept, rejected = [], []
    for group in groups.values():
        group.sort(key=lambda row: row["id"])
        first = group[0]
        kept.append({**first, "dup_cluster_id": first["id"], "dup_cluster_size": len(group)})
        for row in group[1:]:
            rejected.append(
                ({**row, "dup_cluster_id": None, "dup_cluster_size": None}, Drop("exact_duplicate", first["id"]))
            )
    schema = schema.append(pa.field("dup_cluster_id", pa.string())).append(pa.field("dup_cluster_size", pa.int64()))
    write_stage(stage_dir(run_dir, "dedup"), "dedup", schema, kept, rejected)


def build_run(run_dir: Path) -> Path:
    """Extract written by hand, then every document stage of the registry in its order (a stage
    added there runs here too), dedup written by hand, then the tokenizer and the shards."""
    settings, executor = config(), LocalExecutor()
    write_extract(run_dir)
    documents = stage_dir(run_dir, "extract")
    for spec in STAGES:
        if spec.name == "dedup":
            write_dedup(run_dir, documents)
            documents = stage_dir(run_dir, "dedup")
        elif spec.kind == "document" and spec.name not in opted_out(settings):
            documents = run_stage(spec.name, documents, stage_dir(run_dir, spec.name), settings, executor).output
    corpus = final_corpus(run_dir)
    trained = run_stage("train-tokenizer", corpus, stage_dir(run_dir, "train-tokenizer"), settings, executor)
    run_stage("tokenize", corpus, stage_dir(run_dir, "tokenize"), settings, executor, tokenizer=trained.output)
    return run_dir


def copy_run(run_dir: Path, target: Path, stages: tuple[str, ...] | None = None) -> Path:
    """A copy of the run, or of only the directories of the named stages (a run that stopped early)."""
    target.mkdir(parents=True)
    kept = None if stages is None else {stage_dir(run_dir, name) for name in stages}
    for child in run_dir.iterdir():
        if child.is_dir() and (kept is None or child in kept):
            shutil.copytree(child, target / child.name)
    return target


_BUILT: dict[str, Path] = {}


@pytest.fixture(scope="session")
def report_run(tmp_path_factory) -> Path:
    """The run, built once however many test modules import this fixture (~20 s)."""
    if "run" not in _BUILT:
        _BUILT["run"] = build_run(tmp_path_factory.mktemp("report") / "run")
    return _BUILT["run"]
