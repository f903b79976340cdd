"""The extraction engines side by side on the 1,432 gold pages: F1 (P / R) overall, on each half of a
fixed split of the pages by url hash (the hybrid's thresholds were fitted on half A, B is the check),
on each source benchmark and on the Chinese pages, with the CPU seconds of each engine's calls and
the machine's load before and after.

The engines run on the same page one after another, in an order that rotates from page to page, so
a machine whose load changes during the run charges them alike (CPU seconds still read higher on a
loaded machine: compare the engines of one run, not runs of different days).

    PYTHONPATH=. python benchmarks/run_all.py extract-engines [--engines trafilatura,resiliparse,hybrid]
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import harness
from common import DATA, PAGES_WARC
from harness import Results, Spec, UsageError, option

from corpus_pipeline.evaluation.commands import gold_ids_by_record
from corpus_pipeline.evaluation.engine_choice import F1_TOLERANCE, EngineFigures, default_engine
from corpus_pipeline.evaluation.extraction import load_gold, score_extraction
from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.extract.engines import ENGINES, main_text_engine
from corpus_pipeline.readers.html_decode import decode_html
from corpus_pipeline.readers.warc import WarcRecord, read_warc
from corpus_pipeline.storage import Storage
from corpus_pipeline.urls import canonical_url

GOLD = DATA / "web" / "gold.jsonl"
# The figures the default engine is chosen from (tests/evaluation/test_engine_choice.py reads them).
RECORD = Path(__file__).parent / "data" / "extract_engines.json"


def url_half(url: str) -> str:
    """Half "A" or "B" by the parity of the url's sha1: the hybrid's thresholds were fitted on half A."""
    return "AB"[int(hashlib.sha1(url.encode()).hexdigest(), 16) % 2]


def gold_pages() -> list[tuple[str, str, str | None]]:
    """(gold id, decoded HTML, url) of every gold page, as the extract stage decodes it."""
    gold = load_gold(GOLD)
    ids = gold_ids_by_record(str(PAGES_WARC), "WARC-Bench-Id", {canonical_url(p.url): p.id for p in gold if p.url})
    pages = []
    for record in read_warc(str(PAGES_WARC), ExtractConfig().max_payload_bytes, Storage()):
        if isinstance(record, WarcRecord) and record.record_id in ids:
            html, _ = decode_html(record.payload, record.http_content_type)
            pages.append((ids[record.record_id], html, record.target_uri))
    return pages


def run(args, results: Results) -> None:
    names = args.engines.split(",")
    unknown = sorted(set(names) - set(ENGINES))
    if unknown:
        raise UsageError(f"--engines: no engine {unknown}; choose from {', '.join(ENGINES)}")
    engines = {name: main_text_engine(ExtractConfig(engine=name)) for name in names}
    gold = load_gold(GOLD)
    pages = gold_pages()
    texts: dict[str, dict[str, str | None]] = {name: {} for name in names}
    cpu = dict.fromkeys(names, 0.0)
    for engine in engines.values():  # imports and trafilatura's first-call set-up, untimed
        engine(pages[0][1], pages[0][2])
    print(f"load before: {os.getloadavg()[0]:.1f}")
    for number, (page_id, html, url) in enumerate(pages):
        for name in names[number % len(names) :] + names[: number % len(names)]:
            started = time.process_time()
            try:
                text = engines[name](html, url)
            except Exception:  # the stage's rejected extract_error row: the page scores as missing
                text = None
            cpu[name] += time.process_time() - started
            texts[name][page_id] = text or None  # an empty text is a dropped page (no_main_text)
    groups = {
        "all": gold,
        "half A": [page for page in gold if url_half(page.url) == "A"],
        "half B": [page for page in gold if url_half(page.url) == "B"],
        **{source: [page for page in gold if page.source == source] for source in sorted({p.source for p in gold})},
    }
    print(f"load after: {os.getloadavg()[0]:.1f}")
    print(f"{'engine':<13}{'CPU s':>8}" + "".join(f"{group + ' F1 (P / R)':>24}" for group in [*groups, "Chinese"]))
    figures = {}
    for name in names:
        cells = []
        results.record(f"{name}, all pages", "cpu_s", cpu[name], "s")
        for group, pages_of_group in groups.items():
            overall = score_extraction(pages_of_group, texts[name]).overall
            cells.append(f"{overall.f1:.4f} ({overall.precision:.3f} / {overall.recall:.3f})")
            results.record(f"{name}, {group}", "f1", overall.f1, "fraction")
        chinese = score_extraction(gold, texts[name]).chinese
        cells.append(f"{chinese.f1:.4f} ({chinese.precision:.3f} / {chinese.recall:.3f})")
        results.record(f"{name}, Chinese", "f1", chinese.f1, "fraction")
        print(f"{name:<13}{cpu[name]:>8.1f}" + "".join(f"{cell:>24}" for cell in cells))
        all_pages = score_extraction(gold, texts[name])
        figures[name] = EngineFigures(round(all_pages.overall.f1, 4), round(chinese.f1, 4), round(cpu[name], 1))
    chosen = default_engine(figures)
    print(f"the cheapest engine within {F1_TOLERANCE} F1 of the best: {chosen} (the default: {ExtractConfig().engine})")
    if set(names) == set(ENGINES):
        record = {"measured": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "pages": len(gold)}
        record["engines"] = {name: vars(each) for name, each in figures.items()}
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"recorded in {RECORD}")


SPEC = Spec(
    "extract-engines",
    __doc__,
    run,
    options=(option("--engines", default=",".join(ENGINES), help="comma-separated"),),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
