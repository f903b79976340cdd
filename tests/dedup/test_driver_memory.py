"""Dedup decided in this process holds hashes and ids, not the text: its Python objects peak far below
the text it reads, and whether it decides here at all is a question of bytes (engine.memory_mb)."""

from __future__ import annotations

import random
import tracemalloc

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup import driver_budget
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.driver_budget import driver_bytes, fits_driver, input_size, quicker_on_driver
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.engine.store.stage_dir import input_parts
from corpus_pipeline.storage import Storage
from tests.dedup.dedup_runs import run_dedup_without_spark

WORDS_PER_DOC, DOCS_PER_PART = 4_000, 30


def _long_documents(count: int) -> list[dict]:
    """Distinct pages of ~20 kB each, every tenth a copy of the one before."""
    rng = random.Random(7)
    vocabulary = [f"w{n}" for n in range(5_000)]
    docs = []
    for number in range(count):
        text = " ".join(rng.choices(vocabulary, k=WORDS_PER_DOC))
        if number % 10 == 9:
            text = docs[-1]["text"]
        docs.append({"id": f"d{number:04d}", "text": text, "language": "en"})
    return docs


def _python_peak(tmp_path, count: int) -> tuple[int, int]:
    """(the peak of Python objects while dedup decides and writes `count` documents, their text bytes)."""
    docs = _long_documents(count)
    text_bytes = sum(len(doc["text"]) for doc in docs)
    source = write_documents_stage(docs, tmp_path / f"in{count}", parts=count // DOCS_PER_PART)
    del docs
    tracemalloc.start()
    try:
        result = run_dedup_without_spark(source, tmp_path / f"out{count}", PipelineConfig())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.stats.dropped == {"exact_duplicate": count // 10}
    return peak, text_bytes


def test_the_driver_holds_hashes_and_ids_not_the_text(tmp_path):
    small, text_bytes = _python_peak(tmp_path, 60)
    large, _ = _python_peak(tmp_path, 120)
    # Twice the documents in twice the parts: what a batch needs stays, and what grows is ~2 kB of
    # hashes and ids a document. Holding every text as Python strings (as the driver did) grows by
    # the 60 documents' text, 1.4 MB (+1.2 MB measured before this change).
    assert large - small < 0.25 * text_bytes, f"+{(large - small) / 1e6:.2f} MB for +{text_bytes / 1e6:.2f} MB of text"


def test_the_choice_counts_bytes_not_rows(tmp_path):
    dedup = DedupConfig()
    rows = 10_000
    short, long = driver_bytes(rows, rows * 5_000, 2, dedup), driver_bytes(rows, rows * 500_000, 2, dedup)
    assert short < 1_536 << 20 < long  # the same rows: 50 MB of text fit a 2 GB worker, 5 GB do not
    source = write_documents_stage(_long_documents(60), tmp_path / "in", parts=2)
    parts = input_parts(source, Storage())
    size = input_size(parts, Storage())
    assert fits_driver(size, [], dedup, (PipelineConfig().engine.memory_mb, 1), 2, Storage())
    assert not fits_driver(size, [], dedup, (256, 1), 2, Storage())  # less than the process itself


def test_on_several_cores_the_driver_decides_only_what_it_decides_quicker_than_the_jobs():
    """One core: the driver's pass whatever the rows (the budget alone decides). On 2 or 16 cores the
    jobs' fixed cost is worth paying past ~63k or ~28k documents."""
    assert all(quicker_on_driver(rows, 1) for rows in (1, 86_147, 10**9))
    assert quicker_on_driver(1_423, 16) and quicker_on_driver(60_000, 2)
    assert not quicker_on_driver(70_000, 2) and not quicker_on_driver(30_000, 16)
    size = (70_000, 70_000 * 6_000)
    assert fits_driver(size, [], DedupConfig(), (1_536, 1), 14, Storage())
    assert not fits_driver(size, [], DedupConfig(), (1_536, 2), 14, Storage())


def test_an_input_part_of_much_text_is_written_as_several_parts_and_decided_here(tmp_path, monkeypatch):
    """One input part of 1.2 MB of text, parts capped at 0.3 MB: written as 5 parts (one would put
    4x the part in the budget and send dedup to Spark); output_parts, when set, decides alone."""
    monkeypatch.setattr(driver_budget, "PART_TEXT_BYTES", 300_000)
    source = write_documents_stage(_long_documents(60), tmp_path / "in", parts=1)
    _, text_bytes = input_size(input_parts(source, Storage()), Storage())
    assert driver_budget.output_part_count(1, text_bytes, DedupConfig()) == -(-text_bytes // 300_000) == 5
    assert driver_budget.output_part_count(1, text_bytes, DedupConfig(output_parts=2)) == 2
    result = run_dedup_without_spark(source, tmp_path / "out", PipelineConfig())  # fails if Spark is asked
    assert result.stats.dropped == {"exact_duplicate": 6}
    assert len(list((tmp_path / "out").glob("part-*.parquet"))) == 5


def test_paragraph_removal_counts_its_hashes_which_grow_with_the_text():
    """Paragraph removal on 86,147 documents of 498 MB of text raised the peak by 190 MB (17,197 of
    996 MB: 400): the estimate adds that, not a cost a document; the 858,219 documents of 4.9 GB
    that the default methods decide in the process go to Spark jobs with it."""
    with_paragraphs = DedupConfig(methods=["exact", "minhash", "paragraph"])
    size = (86_147, 498_000_000)
    added = driver_bytes(*size, 4, with_paragraphs) - driver_bytes(*size, 4, DedupConfig())
    assert 190 << 20 < added < 250 << 20
    million = (858_219, 4_933_600_000)
    assert fits_driver(million, [], DedupConfig(), (1_536, 1), 410, Storage())
    assert not fits_driver(million, [], with_paragraphs, (1_536, 1), 410, Storage())
