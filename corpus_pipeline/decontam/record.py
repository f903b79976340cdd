"""What the decontaminate stage records in `_stats.json` (extra), and the per-set summary the report
and the gates read back from it.

Task counters are summed when merged, so a set's size is counted by every batch together with a
count of the batches: size = sum / batches, exact however many tasks ran or resumed.

    decontam_set_items {set: size x batches}   decontam_set_batches {set: batches}
    decontam_documents {set: documents hit}    decontam_dropped {set: documents dropped}
    decontam_spans_removed {set: spans cut}
    decontam_items.<set> {item id: documents holding it}
    decontam_remaining.<set> {item id: kept documents still holding it after the stage acted}
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from corpus_pipeline.decontam.index import NgramIndex
from corpus_pipeline.stats import StageStats

SET_ITEMS, SET_BATCHES = "decontam_set_items", "decontam_set_batches"
DOCUMENTS, DROPPED, SPANS = "decontam_documents", "decontam_dropped", "decontam_spans_removed"
ITEMS_PREFIX, REMAINING_PREFIX = "decontam_items.", "decontam_remaining."


def count_set_sizes(stats: StageStats, index: NgramIndex) -> None:
    for name, size in zip(index.set_names, index.set_sizes, strict=True):
        stats.count(SET_ITEMS, name, size)
        stats.count(SET_BATCHES, name)


def count_hit(stats: StageStats, index: NgramIndex, set_number: int, hits) -> None:
    name = index.set_names[set_number]
    stats.count(DOCUMENTS, name)
    for item in sorted(set(hits.items.tolist())):
        stats.count(ITEMS_PREFIX + name, index.item_ids[item])


def count_dropped(stats: StageStats, set_name: str) -> None:
    stats.count(DROPPED, set_name)


def count_spans(stats: StageStats, set_name: str, spans: int) -> None:
    stats.count(SPANS, set_name, spans)


def count_remaining(stats: StageStats, index: NgramIndex, hits) -> None:
    """Items still in a kept document: those of `keep` sets, or what a removal left behind."""
    for item in sorted(set(hits.items.tolist())):
        stats.count(REMAINING_PREFIX + index.set_names[int(index.item_sets[item])], index.item_ids[item])


@dataclass
class SetSummary:
    name: str
    items: int  # in the set
    documents_hit: int
    documents_dropped: int
    spans_removed: int
    items_found: int  # distinct items found in the stage's input
    items_remaining: int  # distinct items still found in its kept documents

    @property
    def found_share(self) -> float:
        return self.items_found / self.items if self.items else 0.0

    @property
    def remaining_share(self) -> float:
        return self.items_remaining / self.items if self.items else 0.0

    def to_record(self) -> dict:
        """For the run record: the counts and both shares."""
        shares = {"found_share": round(self.found_share, 6), "remaining_share": round(self.remaining_share, 6)}
        return {**asdict(self), **shares}


def set_summaries(stats: StageStats) -> dict[str, SetSummary]:
    """Per eval set the stage checked (none: the stage saw no documents or is not decontaminate)."""
    extra = stats.extra
    batches = extra.get(SET_BATCHES, {})
    return {
        name: SetSummary(
            name=name,
            items=extra[SET_ITEMS][name] // count,
            documents_hit=extra.get(DOCUMENTS, {}).get(name, 0),
            documents_dropped=extra.get(DROPPED, {}).get(name, 0),
            spans_removed=extra.get(SPANS, {}).get(name, 0),
            items_found=len(extra.get(ITEMS_PREFIX + name, {})),
            items_remaining=len(extra.get(REMAINING_PREFIX + name, {})),
        )
        for name, count in sorted(batches.items())
    }
