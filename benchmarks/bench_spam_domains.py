"""Rules by domain: Wikipedia articles judged as `encyclopedia` against the same articles judged as
web pages, and the real web pages' verdicts, which the domain rule sets must leave unchanged.

    python benchmarks/run_all.py spam-domains [--save-web FILE] [--compare-web FILE]

- Wikipedia: gensim's English dump (gensim/test/test_data/enwiki-latest-pages-articles1.xml-
  p000000010p000030302-shortened.bz2, 106 articles; text CC BY-SA) read by the ingest stage
  (format wikipedia), then langid -> normalize -> pii -> quality, once with domain `web` and
  once with `encyclopedia`; per language, dropped share and reasons. No Vietnamese, Japanese or
  Chinese dump is reachable here (no registry package ships one).
- Web: the 1,432 documents of shared/data/dedup/web_docs.jsonl through the same chain with domain
  `web`; --save-web writes each document's fate, --compare-web counts the documents whose fate
  differs from a saved file (run it once with PYTHONPATH at a checkout before the change).
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import harness
from harness import Results, Spec, option
from spam_devset import WEB_DOCS, judge, web_pages

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.demo.sources import WIKIPEDIA_DUMP, package_file
from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.stage import IngestStage
from corpus_pipeline.stats import StageStats


def wikipedia_articles() -> list[dict]:
    path = str(package_file(*WIKIPEDIA_DUMP))
    stage = IngestStage(IngestConfig(format="wikipedia", domain="encyclopedia"))
    return [row for row, verdict in stage.read(path, StageStats("ingest")) if verdict is None]


def fates_by_language(documents: list[dict], domain: str) -> dict[str, Counter]:
    fates: dict[str, Counter] = defaultdict(Counter)
    for doc, fate in judge(documents, PipelineConfig(), domain=domain):
        fates[doc.get("language") or "unknown"][fate] += 1
    return fates


def record_fates(results: Results, case: str, fates: dict[str, Counter]) -> None:
    """The share dropped per language, and every fate's count under details[case]."""
    for language, counts in fates.items():
        dropped = sum(counts.values()) - counts.get("kept", 0)
        results.record(f"{case}, {language}", "dropped_share", dropped / sum(counts.values()), "fraction")
    results.details[case] = {language: dict(counts) for language, counts in fates.items()}


def print_fates(title: str, fates: dict[str, Counter]) -> None:
    print(title)
    for language, counts in sorted(fates.items(), key=lambda kv: -sum(kv[1].values())):
        n = sum(counts.values())
        dropped = n - counts.get("kept", 0)
        reasons = ", ".join(f"{r} {c}" for r, c in counts.most_common() if r != "kept")
        print(f"  {language:<8} {n:>5} documents, dropped {dropped:>4} ({100 * dropped / n:5.1f} %)  {reasons}")


def run(args, results: Results) -> int:
    if not WEB_DOCS.exists():
        print(f"no data: {WEB_DOCS} is missing (set CORPUS_BENCH_DATA)", file=sys.stderr)
        return 2
    articles = [{"id": a["id"], "text": a["text"], "url": a["url"]} for a in wikipedia_articles()]
    print(f"Wikipedia: {len(articles)} articles of gensim's English dump")
    for domain, title in (("web", "as web pages"), ("encyclopedia", "as encyclopedia")):
        fates = fates_by_language(articles, domain)
        print_fates(f"  {title} (domain {domain}):", fates)
        record_fates(results, f"Wikipedia articles, domain {domain}", fates)

    pages = web_pages()
    web_fates = {doc["id"]: fate for doc, fate in judge(pages, PipelineConfig(), domain="web")}
    counts = Counter(web_fates.values())
    print(f"web pages: {len(pages)}, kept {counts['kept']}, dropped {len(pages) - counts['kept']}")
    record_fates(results, "real web pages, domain web", {"all": counts})
    if args.save_web:
        args.save_web.write_text(json.dumps(web_fates, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    if args.compare_web:
        before = json.loads(args.compare_web.read_text(encoding="utf-8"))
        changed = {i: (before.get(i), fate) for i, fate in web_fates.items() if before.get(i) != fate}
        kept_before = sum(fate == "kept" for fate in before.values())
        print(f"  against {args.compare_web}: kept {kept_before} before, {counts['kept']} now; "
              f"{len(changed)} documents changed fate")  # fmt: skip
        for doc_id, (old, new) in sorted(changed.items())[:20]:
            print(f"    {doc_id}: {old} -> {new}")
    return 0


SPEC = Spec(
    "spam-domains",
    __doc__,
    run,
    options=(
        option("--save-web", type=Path, help="write each web page's fate here"),
        option("--compare-web", type=Path, help="count the web pages whose fate differs from this saved file"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
