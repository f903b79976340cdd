"""`corpus-pipeline eval quality --labels FILE`: what each keep rule drops on a user's labelled
documents, per language, so the rules can be checked on one's own data before a run.

The file is JSON lines: `text`, `label` (`spam` or `ordinary`; `bad` and `good` are read as the
same), and optionally `language` (else the langid stage's model names it), `url` (for the domain
blocklists) and `domain` (picks the domain's rule set). Every document's signals are computed once
with the run's config, as the stage computes them; then each rule is applied alone (how much spam
it catches, how many ordinary documents it costs) and the whole chain as the stage applies it
(blocklists, then the rules; noise retention is left out: it keeps drops on purpose).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from corpus_pipeline.config import PipelineConfig

LABELS = {"spam": True, "bad": True, "ordinary": False, "good": False}
CHAIN = "all rules"
ALL_LANGUAGES = "all"


@dataclass
class LabelledDocument:
    text: str
    spam: bool
    language: str | None
    url: str | None
    domain: str | None


@dataclass
class Tally:
    spam: int = 0
    ordinary: int = 0
    spam_dropped: int = 0
    ordinary_dropped: int = 0

    @property
    def spam_kept(self) -> int:
        return self.spam - self.spam_dropped

    def add(self, spam: bool, dropped: bool) -> None:
        if spam:
            self.spam += 1
            self.spam_dropped += dropped
        else:
            self.ordinary += 1
            self.ordinary_dropped += dropped


def _share(count: int, total: int) -> str:
    return f"{count:>5} {100.0 * count / total:5.1f}%" if total else f"{count:>5}     -"


@dataclass
class QualityEvalReport:
    """tallies[rule][language]: the rule alone (CHAIN: the stage's whole verdict)."""

    documents: int
    tallies: dict[str, dict[str, Tally]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        rules = {
            rule: {lang: {**asdict(t), "spam_kept": t.spam_kept} for lang, t in by_language.items()}
            for rule, by_language in self.tallies.items()
        }
        return {"documents": self.documents, "rules": rules}

    def format_table(self) -> str:
        lines = [
            f"{self.documents} labelled documents; each rule alone, then {CHAIN!r} as the stage applies them",
            "(counts are of the documents a rule applies to; rules that drop none of them are not listed)",
            f"{'rule':<34}{'lang':<6}{'spam':>6}{'spam kept':>13}{'ordinary':>10}{'ord. dropped':>14}",
        ]
        names = sorted(r for r in self.tallies if r != CHAIN) + [CHAIN]
        for rule in names:
            for language, t in sorted(self.tallies.get(rule, {}).items()):
                if rule != CHAIN and not (t.spam_dropped or t.ordinary_dropped):
                    continue
                lines.append(
                    f"{rule:<34}{language:<6}{t.spam:>6}{_share(t.spam_kept, t.spam):>13}"
                    f"{t.ordinary:>10}{_share(t.ordinary_dropped, t.ordinary):>14}"
                )
        return "\n".join(lines)


def read_labelled(path: str | Path) -> list[LabelledDocument]:
    documents = []
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not JSON ({error.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                raise ValueError(f"{path}:{number}: needs a string `text`")
            label = record.get("label")
            if label not in LABELS:
                raise ValueError(f"{path}:{number}: label {label!r} is none of {sorted(LABELS)}")
            documents.append(
                LabelledDocument(
                    record["text"], LABELS[label], record.get("language"), record.get("url"), record.get("domain")
                )
            )
    if not documents:
        raise ValueError(f"{path}: no labelled documents")
    return documents


def _fill_languages(documents: list[LabelledDocument], config: PipelineConfig) -> None:
    missing = [doc for doc in documents if not doc.language]
    if not missing:
        return
    from corpus_pipeline.langid.stage import LangIdStage

    langid = LangIdStage(config.langid)
    langid.setup()
    for doc in missing:
        top = langid.predict(doc.text)
        doc.language = top[0][0] if top else None


def _out_of_bounds(value, low, high) -> bool:
    return value is not None and ((low is not None and value < low) or (high is not None and value > high))


def evaluate_quality(labels_path: str | Path, config: PipelineConfig) -> QualityEvalReport:
    from corpus_pipeline.quality.stage import QualityStage

    documents = read_labelled(labels_path)
    _fill_languages(documents, config)
    stage = QualityStage(config.quality)
    stage.setup()
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    names = stage.blocklists.column_names
    for doc in documents:
        language = doc.language or "none"
        signals = stage.signals(doc.text, doc.language, doc.url)
        counts = [signals[name] for name in names]
        drops = {CHAIN: stage.verdict(signals, doc.language, len(doc.text), doc.domain) is not None}
        for index, name in enumerate(names):  # each list alone: the others' counts set to 0
            alone = [count if i == index else 0 for i, count in enumerate(counts)]
            drops[name] = stage.blocklists.verdict(alone, len(doc.text)) is not None
        for rule, signal, low, high in stage.rules.checks(doc.language, doc.domain):
            drops[rule] = _out_of_bounds(signals.get(signal), low, high)
        for rule, dropped in drops.items():
            for key in (language, ALL_LANGUAGES):
                tallies[rule][key].add(doc.spam, dropped)
    return QualityEvalReport(len(documents), {rule: dict(by_language) for rule, by_language in tallies.items()})
