"""Wikitext residue per language: real MediaWiki dumps read by the ingest stage (format wikipedia),
and per language the articles whose text still holds markup, before (mwparserfromhell's own
`strip_code` of each article's wikitext) and after (`wikitext.plain_text`, what ingest keeps), the
characters kept, the pages ingest rejects and why, and the share of articles the quality chain
(langid -> normalize -> pii -> quality, domain `encyclopedia`) drops, by reason; the stubs
(`gopher_word_count`: under 50 words, a disambiguation page, an empty year or a one-line article)
are also counted apart, as drops any encyclopedia corpus makes.

    python benchmarks/run_all.py wiki-residue                      # gensim's English dump (106 articles)
    python benchmarks/run_all.py wiki-residue vi=/tmp/viwiki-truncated-100k.xml.xz ja=... zh=...
    python benchmarks/run_all.py wiki-residue --no-quality ...     # residue only (~1 min a dump at load 8)

Residue is any of `{|`, `|}`, `thumb|`, `{{`, `}}`, `[[File:` (and the `[[`+namespace forms of
images, files and categories in the dump's own language), and for Chinese the language-variant
markup `-{...}-`, in the text outside code (`<code>`, `<pre>`...: ingest drops or keeps those, and
braces there are text). Prints one table and, with --show N, the first N lines with residue.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import harness
from harness import Results, Spec, UsageError, option
from spam_devset import judge

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.demo.sources import WIKIPEDIA_DUMP, package_file
from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.stage import IngestStage
from corpus_pipeline.ingest.streams import open_stream
from corpus_pipeline.ingest.wikitext import non_text_prefixes
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

MARKERS = ("{|", "|}", "thumb|", "{{", "}}", "[[File:", "-{")
_CODE = re.compile(r"<(code|pre|syntaxhighlight|source|nowiki|math)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def residue(text: str, link_prefixes: tuple[str, ...]) -> list[str]:
    """The lines of `text` that hold wikitext markup."""
    text = _CODE.sub(" ", text)
    lowered = text.lower()
    found = [m for m in MARKERS if m in text] + [f"[[{p}" for p in link_prefixes if f"[[{p}" in lowered]
    if "-{" in found and "}-" not in text:
        found.remove("-{")  # a lone "-{" is text, not a variant block
    if not found:
        return []
    return [line for line in text.splitlines() if any(m in line or m in line.lower() for m in found)]


def articles_markup(path: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """Each article's wikitext by its id (`<dbname>:<page id>`), and the dump's image, file and
    category link prefixes; a truncated dump gives the pages before the cut."""
    import mwxml

    markup, prefixes = {}, ()
    with open_stream(path, Storage()) as stream:
        dump = mwxml.Dump.from_file(stream)
        prefixes = non_text_prefixes(dump.site_info.namespaces)
        try:
            for page in dump:
                text = None
                for revision in page:
                    text = revision.text
                if page.namespace == 0 and not page.redirect and text:
                    markup[f"{dump.site_info.dbname or 'wiki'}:{page.id}"] = text
        except Exception as error:  # noqa: BLE001 - a truncated dump: what was read is measured
            print(f"  {Path(path).name}: read stops at {type(error).__name__}", file=sys.stderr)
    return markup, prefixes


def measure(language: str, path: str, quality: bool, show: int) -> dict:
    import mwparserfromhell

    markup, prefixes = articles_markup(path)
    stats = StageStats("ingest")
    stage = IngestStage(IngestConfig(format="wikipedia", domain="encyclopedia"))
    kept, rejected = [], Counter()
    for row, verdict in stage.read(path, stats):
        if verdict is None:
            kept.append(row)
        else:
            rejected[verdict.reason] += 1
    before = [doc for doc in kept if residue(mwparserfromhell.parse(markup[doc["id"]]).strip_code(), prefixes)]
    after = {doc["id"]: residue(doc["text"], prefixes) for doc in kept}
    for doc_id, lines in [(k, v) for k, v in after.items() if v][:show]:
        print(f"  {language} {doc_id}: {lines[0][:160]!r}")
    plain = sum(len(mwparserfromhell.parse(markup[doc["id"]]).strip_code()) for doc in kept)
    row = {
        "language": language,
        "pages": len(kept) + sum(rejected.values()),
        "articles": len(kept),
        "rejected": dict(rejected),
        "residue_before": len(before),
        "residue_after": sum(1 for lines in after.values() if lines),
        "chars_kept": sum(len(doc["text"]) for doc in kept) / plain if plain else 0.0,
    }
    if quality:
        fates = Counter(fate for _, fate in judge(kept, PipelineConfig(), domain="encyclopedia"))
        row["quality_dropped"] = 1 - fates["kept"] / len(kept) if kept else 0.0
        row["stubs"] = fates["gopher_word_count"] / len(kept) if kept else 0.0
        row["quality_reasons"] = {reason: n for reason, n in fates.items() if reason != "kept"}
    return row


def run(args, results: Results) -> int:
    malformed = [d for d in args.dumps if "=" not in d]
    if malformed:
        raise UsageError(f"{malformed}: give each dump as LANGUAGE=PATH")
    dumps = [("en", str(package_file(*WIKIPEDIA_DUMP)))] + [tuple(d.split("=", 1)) for d in args.dumps]
    rows = [measure(language, path, not args.no_quality, args.show) for language, path in dumps]
    print(f"{'lang':5} {'pages':>6} {'articles':>8} {'residue before':>15} {'after':>6} {'chars kept':>11}"
          f" {'quality dropped':>16} {'of it stubs':>12}  rejected")  # fmt: skip
    for row in rows:
        dropped = f"{row['quality_dropped']:.1%}" if "quality_dropped" in row else "-"
        stubs = f"{row['stubs']:.1%}" if "stubs" in row else "-"
        print(
            f"{row['language']:5} {row['pages']:>6} {row['articles']:>8} {row['residue_before']:>15}"
            f" {row['residue_after']:>6} {row['chars_kept']:>11.1%} {dropped:>16} {stubs:>12}"
            f"  {', '.join(f'{k} {v}' for k, v in sorted(row['rejected'].items()))}"
        )
    for row in rows:
        if row.get("quality_reasons"):
            reasons = sorted(row["quality_reasons"].items(), key=lambda kv: -kv[1])
            print(f"  {row['language']} quality drops: {', '.join(f'{r} {n}' for r, n in reasons)}")
    results.details["languages"] = rows
    for row in rows:
        case = f"Wikipedia {row['language']}"
        results.record(case, "residue_before", row["residue_before"], "articles")
        results.record(case, "residue_after", row["residue_after"], "articles")
        results.record(case, "chars_kept", row["chars_kept"], "fraction")
        if "quality_dropped" in row:
            results.record(case, "quality_dropped", row["quality_dropped"], "fraction")
    return 0


SPEC = Spec(
    "wiki-residue",
    __doc__,
    run,
    options=(
        option("dumps", nargs="*", help="LANGUAGE=PATH of a MediaWiki XML dump (any compression)"),
        option("--no-quality", action="store_true", help="residue only, no quality chain"),
        option("--show", type=int, default=0, help="print the first N residue lines a language"),
    ),
)

if __name__ == "__main__":
    raise SystemExit(harness.main(SPEC))
