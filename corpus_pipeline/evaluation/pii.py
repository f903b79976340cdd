"""Precision and recall of a PII detector against gold character spans, per type.

Gold format (presidio-evaluator's synthetic data, `shared/data/pii/presidio_synth_dev.json`): a
JSON list of `{"full_text": str, "spans": [{"entity_type", "entity_value", "start_position",
"end_position"}, ...]}`, end exclusive. Gold types are mapped to the detector's (`GOLD_TYPES`);
the other gold types (PERSON, STREET_ADDRESS, ...) are listed as not covered and take no part.

Matching rule: a prediction and a gold span match when they have the same type and their overlap
covers at least half of the gold span (`MIN_GOLD_OVERLAP`): `+1-903-140-4508` found without its
`x769` extension still counts, a stray 4-digit fragment of a 16-digit card does not. Matching is
one-to-one, greedy by overlap: each gold span is credited to at most one prediction. Then, per type,
precision = matched predictions / predictions, recall = matched gold spans / gold spans. A
prediction of a type that has gold labels and matches nothing is a false positive (whatever gold
span it may overlap, which is counted as a confusion); a prediction of a type without gold labels
in this data (a Chinese resident ID, a secret) is counted apart, under `unscored`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

GOLD_TYPES = {
    "EMAIL_ADDRESS": "email",
    "PHONE_NUMBER": "phone",
    "IP_ADDRESS": "ip",
    "CREDIT_CARD": "card",
    "IBAN_CODE": "iban",
    "US_SSN": "ssn",
}
MIN_GOLD_OVERLAP = 0.5

Prediction = tuple[int, int, str]  # start, end (exclusive), detector type


@dataclass(frozen=True)
class GoldText:
    text: str
    spans: tuple[tuple[int, int, str], ...]  # start, end, gold entity type (unmapped)


def load_gold(path: str | Path) -> list[GoldText]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of texts with spans")
    texts = []
    for index, item in enumerate(data):
        try:
            text = item["full_text"]
            spans = tuple((s["start_position"], s["end_position"], s["entity_type"]) for s in item["spans"])
        except (KeyError, TypeError) as error:
            raise ValueError(f"{path}: text {index} lacks {error}") from None
        for start, end, kind in spans:
            if not 0 <= start < end <= len(text):
                raise ValueError(f"{path}: text {index}: {kind} span [{start}, {end}) is outside the text")
        texts.append(GoldText(text, spans))
    return texts


@dataclass(frozen=True)
class TypeScore:
    gold: int
    predicted: int
    matched_gold: int
    matched_predictions: int
    exact: int  # matches whose boundaries equal the gold span's
    precision: float
    recall: float


@dataclass
class PiiReport:
    texts: int
    per_type: dict[str, TypeScore]
    not_covered: dict[str, int]  # gold type -> spans, types the detector does not look for
    unscored: dict[str, int]  # detector type -> predictions, types without gold labels here
    # "predicted type -> gold type" for false positives lying on another type's gold span
    confusions: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def format_table(self) -> str:
        lines = [f"{'type':<8}{'gold':>6}{'pred':>6}{'TP gold':>9}{'TP pred':>9}{'exact':>7}{'P':>8}{'R':>8}"]
        for kind, s in self.per_type.items():
            lines.append(
                f"{kind:<8}{s.gold:>6}{s.predicted:>6}{s.matched_gold:>9}{s.matched_predictions:>9}{s.exact:>7}"
                f"{s.precision:>8.3f}{s.recall:>8.3f}"
            )
        lines.append(f"texts: {self.texts}; match: same type, overlap >= {MIN_GOLD_OVERLAP:.0%} of the gold span")
        for kind, n in self.unscored.items():
            lines.append(f"unscored (no gold labels for it): {kind} {n} predictions")
        for pair, n in self.confusions.items():
            lines.append(f"confusion (predicted -> gold): {pair} {n}")
        lines.append("not covered: " + ", ".join(f"{kind} ({n})" for kind, n in self.not_covered.items()))
        return "\n".join(lines)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def match_spans(predicted: list[Prediction], gold: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """(prediction index, gold index) pairs under the matching rule; `gold` types already mapped."""
    pairs = []
    for p, (ps, pe, pk) in enumerate(predicted):
        for g, (gs, ge, gk) in enumerate(gold):
            overlap = _overlap((ps, pe), (gs, ge))
            if pk == gk and overlap >= MIN_GOLD_OVERLAP * (ge - gs):
                pairs.append((overlap, p, g))
    used_p, used_g, matched = set(), set(), []
    for _, p, g in sorted(pairs, key=lambda item: (-item[0], item[1], item[2])):
        if p not in used_p and g not in used_g:
            used_p.add(p)
            used_g.add(g)
            matched.append((p, g))
    return matched


def score_pii(texts: Iterable[GoldText], predict: Callable[[str], list[Prediction]]) -> PiiReport:
    """Per-type precision and recall of `predict` (text -> spans with detector types)."""
    counts: dict[str, Counter] = {kind: Counter() for kind in GOLD_TYPES.values()}
    not_covered, unscored, confusions = Counter(), Counter(), Counter()
    n_texts = 0
    for item in texts:
        n_texts += 1
        gold = [(s, e, GOLD_TYPES[k]) for s, e, k in item.spans if k in GOLD_TYPES]
        not_covered.update(k for _, _, k in item.spans if k not in GOLD_TYPES)
        predicted = []
        for span in predict(item.text):
            if span[2] in counts:
                predicted.append(span)
            else:
                unscored[span[2]] += 1
        matched = match_spans(predicted, gold)
        matched_p = {p for p, _ in matched}
        for _, _, kind in gold:
            counts[kind]["gold"] += 1
        for p, g in matched:
            counts[gold[g][2]]["matched_gold"] += 1
            counts[gold[g][2]]["exact"] += predicted[p][:2] == gold[g][:2]
        for p, (ps, pe, kind) in enumerate(predicted):
            counts[kind]["predicted"] += 1
            if p in matched_p:
                counts[kind]["matched_predictions"] += 1
                continue
            for gs, ge, gk in item.spans:
                if _overlap((ps, pe), (gs, ge)):
                    confusions[f"{kind} -> {gk}"] += 1
    per_type = {}
    for kind, c in counts.items():
        precision = c["matched_predictions"] / c["predicted"] if c["predicted"] else 1.0
        recall = c["matched_gold"] / c["gold"] if c["gold"] else 1.0
        per_type[kind] = TypeScore(
            c["gold"], c["predicted"], c["matched_gold"], c["matched_predictions"], c["exact"], precision, recall
        )
    return PiiReport(
        texts=n_texts,
        per_type=per_type,
        not_covered=dict(not_covered.most_common()),
        unscored=dict(sorted(unscored.items())),
        confusions=dict(confusions.most_common()),
    )
