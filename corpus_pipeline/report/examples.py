"""A few documents per stage and rule, as people need to judge a threshold: rejected ones per drop
reason, kept ones per stage, and for each quality rule that dropped something the kept documents
nearest its bound (what the rule let through, just).

Every text shown goes through the PII stage's detector and placeholders first: stages before
`pii` hold raw text, and a report is read far more widely than the corpus. Only a window of the
text is scanned (the shown characters plus a margin), so a 10 MB page costs no more than a short one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson
import pyarrow.compute as pc

from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.detector import PiiDetector, redact
from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.rules import KeepRules
from corpus_pipeline.report.run_dir import StageRun, first_rows, kept_parts, parquet_file, rejected_parts, rows_at

EXAMPLE_COLUMNS = ["id", "url", "language", "text", "metadata", REJECT_DETAIL_FIELD.name]
# Characters of an example's metadata shown (FineWeb's extra columns are ~100, Dolma's ~200).
METADATA_CHARS = 300
# Characters scanned past the shown ones: a match that starts before the cut is found whole (a
# PEM private key block, the longest, is ~1,700 to 3,300 characters).
_SCAN_MARGIN = 4096


@dataclass
class Example:
    id: str
    url: str
    language: str
    text: str
    detail: str
    metadata: str  # the ingested record's other fields, one compact JSON object; "" when none


@dataclass
class ExampleGroup:
    stage: str
    title: str
    examples: list[Example]


class Redactor:
    def __init__(self, config: PiiConfig, chars: int):
        self.detector = PiiDetector(config)
        self.chars = chars

    def clean(self, text: str | None, limit: int | None = None) -> str:
        limit = limit or self.chars
        text = text or ""
        window = text[: limit + _SCAN_MARGIN]
        shown = redact(window, self.detector.find(window))
        return shown[:limit] + ("\u2026" if len(shown) > limit or len(text) > len(window) else "")

    def example(self, row: dict, detail: str | None = None) -> Example:
        return Example(
            id=row.get("id") or "",
            url=self.clean(row.get("url"), 200),
            language=row.get("language") or "",
            text=self.clean(row.get("text")),
            detail=self.clean(detail if detail is not None else row.get(REJECT_DETAIL_FIELD.name), 300),
            metadata=self.clean(compact_json(row.get("metadata")), METADATA_CHARS),
        )


def compact_json(text: str | None) -> str:
    """A JSON text without the spaces between its tokens (written by another tool, a stage part may
    hold `{"a": 1}`); as it is when it does not parse."""
    if not text:
        return ""
    try:
        return orjson.dumps(orjson.loads(text)).decode("utf-8")
    except orjson.JSONDecodeError:
        return text


def stage_examples(stage: StageRun, redactor: Redactor, count: int) -> list[ExampleGroup]:
    groups = []
    for reason, paths in rejected_parts(stage).items():
        rows = first_rows(paths, EXAMPLE_COLUMNS, count)
        groups.append(ExampleGroup(stage.name, f"rejected: {reason}", [redactor.example(r) for r in rows]))
    kept = first_rows(kept_parts(stage), EXAMPLE_COLUMNS, count)
    if kept:
        groups.append(ExampleGroup(stage.name, "kept", [redactor.example(r, "") for r in kept]))
    return groups


def _distances(values: np.ndarray, languages: list, rules: KeepRules, rule: str) -> np.ndarray:
    """Each document's distance to the nearest bound of `rule` for its language (inf: none applies,
    nan: no value)."""
    distance = np.full(values.shape, np.inf)
    language_of = np.array(languages, dtype=object)
    for language in set(languages):
        rows = language_of == language
        for _, _, low, high in (check for check in rules.checks(language) if check[0] == rule):
            for bound in (low, high):
                if bound is not None:
                    distance[rows] = np.minimum(distance[rows], np.abs(values[rows] - bound))
    return distance


def borderline_kept(quality: StageRun, config: QualityConfig, redactor: Redactor, count: int) -> list[ExampleGroup]:
    """For each rule that dropped documents, the kept documents whose signal lay nearest its bound."""
    rules = KeepRules(config.rules, {rule.signal for rule in config.rules.values()})
    groups = []
    for reason in sorted(quality.stats.dropped):
        rule = config.rules.get(reason)
        if rule is None or count == 0:  # a blocklist: a list match, no bound to be near
            continue
        candidates = []  # (distance, part, row number)
        for path in kept_parts(quality):
            file = parquet_file(path)
            if rule.signal not in file.schema_arrow.names:
                continue
            table = file.read(columns=["language", rule.signal])
            values = pc.fill_null(pc.cast(table.column(rule.signal), "float64"), float("nan")).to_numpy()
            distances = _distances(values, table.column("language").to_pylist(), rules, reason)
            for row in np.argsort(distances, kind="stable")[:count]:
                if np.isfinite(distances[row]):
                    candidates.append((float(distances[row]), path, int(row)))
        examples = []
        for _, path, row in sorted(candidates)[:count]:
            found = rows_at(path, [row], [*EXAMPLE_COLUMNS, rule.signal])
            examples += [redactor.example(r, f"{rule.signal}={r[rule.signal]:.4g}") for r in found]
        groups.append(ExampleGroup(quality.name, f"kept nearest the bound of {reason}", examples))
    return groups
