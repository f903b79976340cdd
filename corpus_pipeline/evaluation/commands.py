"""`corpus-pipeline eval ...`: run the pipeline's own stage code on labelled data and score it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.lifecycle import Executor
from corpus_pipeline.evaluation.extraction import ExtractionReport, GoldPage, gold_text, load_gold, score_extraction
from corpus_pipeline.evaluation.langid import LangIdReport, load_sentences, read_fasttext_labels, score_langid
from corpus_pipeline.langid.stage import LangIdStage, bundled_model_path
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.urls import canonical_url


def gold_ids_by_record(warc: str, id_header: str, gold_ids_by_url: dict[str, str]) -> dict[str, str]:
    """WARC-Record-ID -> gold page id: from `id_header` when the WARC carries one (benchmark files
    do), else by canonical URL."""
    mapping = {}
    with open(warc, "rb") as stream:
        for record in ArchiveIterator(stream, arc2warc=True):
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            page_id = record.rec_headers.get_header(id_header) or gold_ids_by_url.get(
                canonical_url(record.rec_headers.get_header("WARC-Target-URI") or "")
            )
            if record_id and page_id:
                mapping[record_id] = page_id
    return mapping


def evaluate_extraction(
    warc: str, gold_path: str, config: PipelineConfig, executor: Executor, id_header: str = "WARC-Bench-Id"
) -> ExtractionReport:
    gold = load_gold(gold_path)
    page_ids = gold_ids_by_record(warc, id_header, {canonical_url(p.url): p.id for p in gold if p.url})
    with tempfile.TemporaryDirectory(prefix="eval-extract-") as work:
        result = run_stage("extract", [warc], Path(work) / "extract", config, executor)
        extracted = {}
        for part in sorted(result.output.glob("part-*.parquet")):
            for row in pq.read_table(part, columns=["warc_record_id", "text"]).to_pylist():
                page_id = page_ids.get(row["warc_record_id"])
                if page_id is not None:
                    extracted[page_id] = row["text"]
    return score_extraction(gold, extracted, gold_languages(gold, config))


def gold_languages(gold: list[GoldPage], config: PipelineConfig) -> dict[str, str]:
    """Page id -> the language the langid stage gives its gold text (``unknown`` when it says none),
    so extraction is scored per language."""
    stage = LangIdStage(config.langid)
    stage.setup()
    return {page.id: (stage.predict(gold_text(page)) or [("unknown", 0.0)])[0][0] for page in gold}


def evaluate_langid(sentences_dir: str, config: PipelineConfig, max_per_language: int | None = None) -> LangIdReport:
    """Accuracy of the langid stage's own prediction path (sampling, cleaning, label mapping)."""
    stage = LangIdStage(config.langid)
    stage.setup()

    def predict(texts: list[str]) -> list[str]:
        return [(stage.predict(text) or [("", 0.0)])[0][0] for text in texts]

    labels = read_fasttext_labels(config.langid.model_path or bundled_model_path())
    return score_langid(load_sentences(sentences_dir, max_per_language), predict, labels)
