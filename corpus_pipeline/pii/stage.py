"""pii: find personal data and secrets, count them per type, replace them with typed placeholders,
and drop documents that are mostly PII (directories, leaked lists).

Signals: one int32 column per type, `pii_<type>_count` (null when the type is not enabled), and
`pii_density`, matches of all enabled types per 1,000 characters of the original text. The keep
rule reads only those. Counts go to the stats (`pii_matches`, `pii_documents`) and a dropped
document's detail names counts: the matched values themselves are never logged or stored, and
with `pii.redact` (the default) the text kept or rejected no longer holds them.
"""

from __future__ import annotations

from collections import Counter

import pyarrow as pa

from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.detector import PiiDetector, redact
from corpus_pipeline.pii.types import PII_TYPES
from corpus_pipeline.stages.base import DocumentStage, Drop, Verdict
from corpus_pipeline.stats import StageStats

COUNT_COLUMNS = {kind: f"pii_{kind}_count" for kind in PII_TYPES}
DENSITY_COLUMN = "pii_density"
PII_FIELDS = (
    *(pa.field(column, pa.int32()) for column in COUNT_COLUMNS.values()),
    pa.field(DENSITY_COLUMN, pa.float32()),
)


def density(matches: int, chars: int) -> float:
    """Matches per 1,000 characters."""
    return 1000.0 * matches / chars if chars else 0.0


class PiiStage(DocumentStage):
    name = "pii"
    output_fields = PII_FIELDS
    input_columns = ("text",)
    rewrites = ("text",)

    def __init__(self, config: PiiConfig | None = None):
        self.config = config or PiiConfig()
        self._detector: PiiDetector | None = None

    def setup(self) -> None:
        if self._detector is None:
            self._detector = PiiDetector(self.config)

    def process(self, doc: dict, stats: StageStats) -> Verdict:
        text = doc["text"] or ""
        spans = self._detector.find(text)
        counts = Counter(span.kind for span in spans)
        enabled = self._detector.kinds
        for kind, column in COUNT_COLUMNS.items():
            doc[column] = counts[kind] if kind in enabled else None
        doc[DENSITY_COLUMN] = density(len(spans), len(text))
        if spans:
            if self.config.redact:
                doc["text"] = redact(text, spans)
            for kind, n in counts.items():
                stats.count("pii_matches", kind, n)
                stats.count("pii_documents", kind)
        return self.keep_rule(counts, len(text))

    def keep_rule(self, counts: Counter, chars: int) -> Verdict:
        """Drop when the PII density is over `max_density`, or a type's over its own limit; only
        from `density_min_matches` matches on (one address in a short note is no list)."""
        total = sum(counts.values())
        if total < self.config.density_min_matches:
            return None
        limit = self.config.max_density
        if limit is not None and density(total, chars) > limit:
            by_type = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
            return Drop(
                "pii_density",
                f"{total} matches in {chars:,} chars = {density(total, chars):.2f} per 1,000 > {limit} ({by_type})",
            )
        for kind, kind_limit in sorted(self.config.max_density_by_type.items()):
            if density(counts[kind], chars) > kind_limit:
                return Drop(
                    "pii_density",
                    f"{kind}: {counts[kind]} in {chars:,} chars = {density(counts[kind], chars):.2f} per 1,000 "
                    f"> {kind_limit}",
                )
        return None
