"""The real labelled spam set, and what the default chain keeps of it, per language, on each
half split by site (the measure of the spam signals; spam_devset.py's generated set is not one:
it is made in the shapes of the rules).

    python benchmarks/run_all.py real-spam [--part heldout|dev|all] [--write FILE] [--output FILE]

Pages, all real, read from shared/data (its README gives the sources and licences; the pages
remain their sites', evaluation use only, never copied into the repository):
- warc/cc-main-2020-34-excerpt.warc.gz: 16 Common Crawl pages with text (chatnoir-resiliparse's
  tests, Apache-2.0), 8 of them spam (Chinese gambling, lottery and adult sites, a hijacked page);
- warc/clueweb09-ja-quirk.warc.gz: 29 Japanese shop pages of one site (ClueWeb09, same tests);
- dedup/web_docs.jsonl: the 1,432 pages of the trafilatura, scrapinghub and magic-html
  extraction benchmarks, as extract gives them.
Labels: benchmarks/data/real_spam_labels.tsv (its header: the rules; each listed page read).

Halves: a page's site is its host less `www.`; a hash of the site picks the half, so no site is
in both. The chain is langid -> normalize -> pii -> quality with the default config (domain
`web`), once with every rule and once with the spam rules off: "ordinary dropped" is compared
with the latter. `--write FILE` writes the chosen part as JSON lines for
`corpus-pipeline eval quality --labels FILE` (outside the repository).
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

import harness
import xxhash
from common import DATA
from harness import Results, Spec, option
from spam_devset import judge

from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.stats import StageStats

LABELS = Path(__file__).resolve().parent / "data" / "real_spam_labels.tsv"
WARCS = {
    "cc-2020-34": DATA / "warc" / "cc-main-2020-34-excerpt.warc.gz",
    "clueweb09-ja": DATA / "warc" / "clueweb09-ja-quirk.warc.gz",
}
WEB_DOCS = DATA / "dedup" / "web_docs.jsonl"
LANGUAGES = ("zh", "ja", "en")


def site(url: str | None) -> str:
    return (urlsplit(url or "").hostname or "").removeprefix("www.")


def half(url: str | None) -> str:
    return "dev" if xxhash.xxh64_intdigest(site(url).encode(), seed=36) % 2 == 0 else "heldout"


def read_labels(path: Path = LABELS) -> dict[str, str]:
    labels = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            page_id, label, _why = line.split("\t", 2)
            labels[page_id] = label
    return labels


def _warc_pages(prefix: str, path: Path) -> list[dict]:
    pages = []
    for row, _verdict in ExtractStage().read(str(path), StageStats("extract")):
        if row.get("text"):
            pages.append({"id": f"{prefix}:{row['url']}", "url": row["url"], "text": row["text"]})
    return pages


def real_documents() -> list[dict]:
    """Every page with its label, site and half; a listed page that is not found is an error."""
    labels = read_labels()
    pages = [page for prefix, path in WARCS.items() for page in _warc_pages(prefix, path)]
    with open(WEB_DOCS, encoding="utf-8") as lines:
        pages += [{"id": d["id"], "url": d.get("url"), "text": d["text"]} for d in map(json.loads, lines)]
    found = {page["id"] for page in pages}
    missing = set(labels) - found
    if missing:
        raise ValueError(f"{len(missing)} labelled pages not in the data, e.g. {sorted(missing)[:3]}")
    for page in pages:
        page.update(label=labels.get(page["id"], "ordinary"), site=site(page["url"]), half=half(page["url"]))
    return pages


def without_spam_rules(config: PipelineConfig) -> PipelineConfig:
    names = [name for name in config.quality.rules if name.startswith("spam_")]
    return load_config(None, [f"quality.rules.{name}.enabled=false" for name in names])


def measure(pages: list[dict], config: PipelineConfig) -> dict[str, Counter]:
    """Per language (langid's, 'other' outside LANGUAGES): spam, spam kept, ordinary, dropped."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for (doc, fate), page in zip(judge(pages, config), pages, strict=True):
        language = doc.get("language") if doc.get("language") in LANGUAGES else "other"
        kind = page["label"]
        for key in (language, "all"):
            counts[key][kind] += 1
            counts[key][f"{kind}_{'kept' if fate == 'kept' else 'dropped'}"] += 1
    return counts


def _share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.1f} %)" if total else "0/0"


def run(args, results: Results) -> int:
    if not WEB_DOCS.exists():
        print(f"no data: {WEB_DOCS} is missing (set CORPUS_BENCH_DATA)", file=sys.stderr)
        return 2
    pages = [p for p in real_documents() if args.part in ("all", p["half"])]
    if args.write:
        if args.write.exists():
            print(f"{args.write} exists: not overwritten", file=sys.stderr)
            return 2
        with open(args.write, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(p, ensure_ascii=False) + "\n" for p in pages)
    config = PipelineConfig()
    with_spam, without = measure(pages, config), measure(pages, without_spam_rules(config))
    sites = {p["site"] for p in pages}
    print(f"real spam set, part {args.part}: {len(pages)} pages of {len(sites)} sites")
    report = results.details
    report.update(part=args.part, pages=len(pages), by_language={})
    for language in (*LANGUAGES, "other", "all"):
        c, before = with_spam[language], without[language]
        if not c:
            continue
        report["by_language"][language] = {"with_spam_rules": dict(c), "without_spam_rules": dict(before)}
        print(
            f"[{language}] spam kept {_share(c['spam_kept'], c['spam'])} (without the spam rules "
            f"{_share(before['spam_kept'], before['spam'])}); ordinary dropped "
            f"{_share(c['ordinary_dropped'], c['ordinary'])} "
            f"(without {_share(before['ordinary_dropped'], before['ordinary'])})"
        )
        case = f"real spam set {args.part}, {language}"
        for kind, fate in (("spam", "kept"), ("ordinary", "dropped")):
            if c[kind]:
                share, share_before = c[f"{kind}_{fate}"] / c[kind], before[f"{kind}_{fate}"] / before[kind]
                ratio = share / share_before if share_before else None
                against = "without the spam rules" if ratio is not None else None
                results.record(case, f"{kind}_{fate}_share", share, "fraction", ratio, against)
    return 0


SPEC = Spec(
    "real-spam",
    __doc__,
    run,
    options=(
        option("--part", choices=["heldout", "dev", "all"], default="heldout"),
        option("--write", type=Path, help="write the part as JSON lines (text, label, url, site)"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
