"""Which quality rule drops how many of the real pages, with a few examples per rule.

Input: the 1,432 documents extracted from shared/data/web/pages.warc.gz (shared/data/dedup/
web_docs.jsonl holds their extracted text). Each goes through the stages that precede quality in
the pipeline, in this process: langid (lid.176) and normalize (default config), then the quality
stage with the default config. Printed: per language, kept and dropped; per drop reason, the count
and up to --examples examples (the rule's detail and the start of the text, truncated). The
examples are real page text: redact personal data before quoting them anywhere (they are printed,
not written to the results file).

    python benchmarks/run_all.py quality-drops [--examples 3] [--chars 160]
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict

import harness
from common import DATA
from harness import Results, Spec, option

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.langid.stage import LangIdStage
from corpus_pipeline.normalize.stage import NormalizeStage
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats

WEB_DOCS = DATA / "dedup" / "web_docs.jsonl"


def drop_report(docs: list[dict], config: PipelineConfig, examples: int, chars: int) -> dict:
    langid, normalize, quality = (
        LangIdStage(config.langid),
        NormalizeStage(config.normalize),
        QualityStage(config.quality),
    )
    for stage in (langid, normalize, quality):
        stage.setup()
    stats = {name: StageStats(name) for name in ("langid", "normalize", "quality")}
    by_reason: dict[str, list[dict]] = defaultdict(list)
    per_language: dict[str, Counter] = defaultdict(Counter)
    for source in docs:
        doc = {"id": source["id"], "url": source.get("url"), "text": source.get("text") or ""}
        for name, stage in (("langid", langid), ("normalize", normalize), ("quality", quality)):
            verdict = stage.process(doc, stats[name])
            if verdict is not None:
                break
        language = doc.get("language") or "unknown"
        if verdict is None:
            per_language[language]["kept"] += 1
            if doc.get("retained_noise"):
                per_language[language]["retained_noise"] += 1
            continue
        reason = verdict.reason if name == "quality" else f"{name}:{verdict.reason}"
        per_language[language]["dropped"] += 1
        snippet = " | ".join(doc["text"].split("\n"))[:chars]
        by_reason[reason].append({"id": doc["id"], "language": language, "detail": verdict.detail, "text": snippet})
    return {
        "documents": len(docs),
        "kept": sum(c["kept"] for c in per_language.values()),
        "per_language": {
            lang: dict(c) for lang, c in sorted(per_language.items(), key=lambda kv: -sum(kv[1].values()))
        },
        "dropped": {reason: len(rows) for reason, rows in sorted(by_reason.items(), key=lambda kv: -len(kv[1]))},
        "examples": {reason: rows[:examples] for reason, rows in by_reason.items()},
    }


def format_report(report: dict) -> str:
    lines = [f"quality on {report['documents']:,} real pages: kept {report['kept']:,}"]
    lines.append("per language (documents >= 10): " + ", ".join(
        f"{lang} {c.get('kept', 0)}/{c.get('kept', 0) + c.get('dropped', 0)}"
        for lang, c in report["per_language"].items()
        if c.get("kept", 0) + c.get("dropped", 0) >= 10
    ))  # fmt: skip
    lines.append("dropped, by reason:")
    for reason, count in report["dropped"].items():
        lines.append(f"  {count:>5}  {reason}")
        for example in report["examples"][reason]:
            lines.append(f"         [{example['language']}] {example['detail']}")
            lines.append(f"           {example['text']}")
    return "\n".join(lines)


def run(args, results: Results) -> int:
    if not WEB_DOCS.exists():
        print(f"no data: {WEB_DOCS} is missing (set CORPUS_BENCH_DATA)", file=sys.stderr)
        return 2
    with open(WEB_DOCS, encoding="utf-8") as lines:
        docs = [json.loads(line) for line in lines if line.strip()]
    report = drop_report(docs, PipelineConfig(), args.examples, args.chars)
    print(format_report(report))
    results.details.update({key: value for key, value in report.items() if key != "examples"})
    results.record("real pages", "kept_share", report["kept"] / report["documents"], "fraction")
    for reason, count in report["dropped"].items():
        results.record(f"dropped by {reason}", "documents", count, "documents")
    return 0


SPEC = Spec(
    "quality-drops",
    __doc__,
    run,
    options=(
        option("--examples", type=int, default=3, help="examples printed per drop reason"),
        option("--chars", type=int, default=160, help="characters of each example's text"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
