"""Spam kept and ordinary documents dropped, per kind, on the generated spam development set
(spam_devset.py says what it holds and where it comes from). The spam is generated in the shapes
the rules were written for, so this checks those shapes and is no measure of real spam (issue 36):
real_spam_set.py measures the rules on real pages.

    python benchmarks/run_all.py spam [--part dev|heldout] [--write-heldout DIR] [--output FILE]

The chain is langid -> normalize -> pii -> quality with the default config, documents of domain
`web`. Today's figures: the same command with PYTHONPATH pointing at a checkout without the spam
signals (the set is built from this checkout's files either way). Goal (issue 24): at most 10 % of
the spam kept, at most 5 points more ordinary documents dropped than before the spam signals.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import harness
from harness import Results, Spec, option
from spam_devset import PEOPLES_DAILY, judge, labelled_documents

from corpus_pipeline.config import PipelineConfig


def _out_of_bounds(doc: dict, rules: dict) -> list[str]:
    """The spam rules this document's signals break, whatever rule dropped it first."""
    broken = []
    for name, rule in rules.items():
        value = doc.get(rule.signal)
        if name.startswith("spam_") and value is not None:
            if (rule.min is not None and value < rule.min) or (rule.max is not None and value > rule.max):
                broken.append(name)
    return broken


def measure(documents: list[dict]) -> tuple[dict, dict]:
    """(fates per label, per label the documents each spam rule alone would drop)."""
    config = PipelineConfig()
    rules = config.quality.rules
    fates: dict[str, Counter] = defaultdict(Counter)
    alone: dict[str, Counter] = defaultdict(Counter)
    for (doc, fate), source in zip(judge(documents, config), documents, strict=True):
        label = source["label"] if source["label"] != "ordinary" else f"ordinary/{source['source']}/{source['lang']}"
        fates[label][fate] += 1
        alone[label].update(_out_of_bounds(doc, rules))
    return (
        {label: dict(c.most_common()) for label, c in sorted(fates.items())},
        {label: dict(c.most_common()) for label, c in sorted(alone.items())},
    )


def summary(fates: dict) -> dict:
    def total(labels, kept: bool) -> tuple[int, int]:
        n = sum(sum(fates[label].values()) for label in labels)
        hit = sum(fates[label].get("kept", 0) for label in labels)
        return (hit if kept else n - hit), n

    ordinary = [label for label in fates if "ordinary/" in label]
    spam = [label for label in fates if label not in ordinary]
    spam_kept, spam_n = total(spam, kept=True)
    ordinary_dropped, ordinary_n = total(ordinary, kept=False)
    return {
        "spam_kept": spam_kept,
        "spam": spam_n,
        "spam_kept_share": spam_kept / max(spam_n, 1),
        "ordinary_dropped": ordinary_dropped,
        "ordinary": ordinary_n,
        "ordinary_dropped_share": ordinary_dropped / max(ordinary_n, 1),
    }


def run(args, results: Results) -> int:
    if not PEOPLES_DAILY.exists():
        print(f"no data: {PEOPLES_DAILY} is missing (set CORPUS_BENCH_DATA)", file=sys.stderr)
        return 2
    documents = labelled_documents(args.part, args.seed, args.ordinary, args.spam)
    if args.write_heldout:
        held = labelled_documents("heldout", args.seed, args.ordinary, args.spam)
        args.write_heldout.mkdir(parents=True, exist_ok=True)
        with open(args.write_heldout / "spam_heldout.jsonl", "w", encoding="utf-8") as out:
            out.writelines(json.dumps(d, ensure_ascii=False) + "\n" for d in held)
    by_kind, alone_by_kind = {}, {}
    for lang in ("zh", "en"):
        by_kind[lang], alone_by_kind[lang] = measure([d for d in documents if d["lang"] == lang])
    print(f"spam development set, part {args.part}, seed {args.seed}")
    report = results.details
    report.update(part=args.part, seed=args.seed, by_language={})
    for lang, fates in by_kind.items():
        s = summary(fates)
        alone = alone_by_kind[lang]
        report["by_language"][lang] = {"summary": s, "fates": fates, "spam_rule_alone": alone}
        print(
            f"[{lang}] spam kept {s['spam_kept']}/{s['spam']} ({100 * s['spam_kept_share']:.1f} %), "
            f"ordinary dropped {s['ordinary_dropped']}/{s['ordinary']} ({100 * s['ordinary_dropped_share']:.1f} %)"
        )
        for label, fate in fates.items():
            n = sum(fate.values())
            print(f"    {label:<28} {n:>4}  kept {fate.get('kept', 0):>4}  " + ", ".join(
                f"{reason} {count}" for reason, count in fate.items() if reason != "kept"
            ))  # fmt: skip
            if alone.get(label):
                print(f"    {'':<28}       each spam rule alone would drop: {alone[label]}")
    both = summary({f"{lang}/{k}": v for lang, f in by_kind.items() for k, v in f.items()})
    print(
        f"all: spam kept {both['spam_kept']}/{both['spam']} ({100 * both['spam_kept_share']:.1f} %), "
        f"ordinary dropped {both['ordinary_dropped']}/{both['ordinary']} ({100 * both['ordinary_dropped_share']:.1f} %)"
    )
    report["all"] = both
    for name, figures in (*((lang, r["summary"]) for lang, r in report["by_language"].items()), ("all", both)):
        case = f"spam set {args.part}, seed {args.seed}, {name}"
        results.record(case, "spam_kept_share", figures["spam_kept_share"], "fraction")
        results.record(case, "ordinary_dropped_share", figures["ordinary_dropped_share"], "fraction")
    return 0


SPEC = Spec(
    "spam",
    __doc__,
    run,
    options=(
        option("--part", choices=["dev", "heldout"], default="dev"),
        option("--seed", type=int, default=0),
        option("--ordinary", type=int, default=150, help="ordinary documents per news source and half"),
        option("--spam", type=int, default=15, help="spam documents per kind, language and half"),
        option("--write-heldout", type=Path, help="write the held-out half as JSON lines in this folder"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
