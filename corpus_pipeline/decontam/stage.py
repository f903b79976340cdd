"""decontaminate: find evaluation items in documents; drop the document, cut the matches out, or
count them, per eval set (`decontamination.eval_sets`).

A dropped document goes to `_rejected/reason=contaminated/`; its reject_detail names each set, the
ids of the items found and the start of the matched text (redacted: `example_chars` characters).
A kept document carries `decontam_items_matched`, `decontam_spans_removed` and
`decontam_chars_removed`. The stats (`_stats.json` extra, see `decontam/record.py`) count, per set,
the documents hit and dropped, the spans removed, each item's documents, and the items still found
in kept documents after the stage acted, which the gates read.
"""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.decontam import record
from corpus_pipeline.decontam.config import BUILTIN_SETS, DecontaminationConfig, EvalSetConfig
from corpus_pipeline.decontam.index import NgramIndex, index_for
from corpus_pipeline.decontam.matching import Hits, cut_spans, find_hits, merged_spans, redacted
from corpus_pipeline.stages.base import DocumentStage, Drop, Verdict
from corpus_pipeline.stats import StageStats

REASON = "contaminated"
ITEMS_COLUMN, SPANS_COLUMN, CHARS_COLUMN = "decontam_items_matched", "decontam_spans_removed", "decontam_chars_removed"
DECONTAM_FIELDS = tuple(pa.field(name, pa.int32()) for name in (ITEMS_COLUMN, SPANS_COLUMN, CHARS_COLUMN))
# Item ids quoted in a reject detail per set; the rest are counted.
_DETAIL_IDS = 5


def eval_sets_from_arguments(values: list[str]) -> list[EvalSetConfig]:
    """`--eval humaneval --eval my_set.jsonl`: a builtin name, or a file named after its stem."""
    sets = []
    for value in values:
        if value in BUILTIN_SETS:
            sets.append(EvalSetConfig(name=value, builtin=value))
        else:
            name = value.rsplit("/", 1)[-1].split(".", 1)[0] or value
            sets.append(EvalSetConfig(name=name, path=value))
    return sets


class DecontaminateStage(DocumentStage):
    name = "decontaminate"
    output_fields = DECONTAM_FIELDS
    input_columns = ("id", "text")
    rewrites = ("text",)

    def __init__(self, config: DecontaminationConfig | None = None, eval: list[str] | None = None):  # noqa: A002
        config = config or DecontaminationConfig()
        if eval:  # the verb's --eval replaces the configured sets
            config = config.model_copy(update={"eval_sets": eval_sets_from_arguments(eval)})
        self.config = config
        names = [s.name for s in config.eval_sets]
        if len(set(names)) != len(names):
            raise ValueError(f"decontamination.eval_sets: a name given twice in {names}")
        # Built now, on the driver: a bad eval file fails before any task starts.
        self._sets, self._index = index_for(config)

    def __getstate__(self) -> dict:
        # Executors get the config; each process builds its index once (index_for).
        return {**self.__dict__, "_sets": None, "_index": None}

    def setup(self) -> None:
        if self._index is None:
            self._sets, self._index = index_for(self.config)

    @property
    def index(self) -> NgramIndex:
        return self._index

    def config_fingerprint(self) -> str:
        """The config and the content of every eval file: a changed set reruns the stage."""
        return repr(self.config.model_copy(update={"index_cache": None})) + "".join(
            f" {s.name}={s.sha256}" for s in self._sets
        )

    def process_batch(self, docs: list[dict], stats: StageStats) -> list[Verdict]:
        record.count_set_sizes(stats, self._index)
        return [self.process(doc, stats) for doc in docs]

    def process(self, doc: dict, stats: StageStats) -> Verdict:
        text = doc["text"] or ""
        doc[ITEMS_COLUMN], doc[SPANS_COLUMN], doc[CHARS_COLUMN] = 0, 0, 0
        hits = find_hits(self._index, text)
        if not len(hits):
            return None
        index, sets = self._index, self.config.eval_sets
        attributed = hits.attributed()
        found = {number: hits.of_set(index, number) for number in attributed.sets(index)}
        doc[ITEMS_COLUMN] = len(set(attributed.items.tolist()))
        for number in found:
            record.count_hit(stats, index, number, attributed.of_set(index, number))
        dropping = [number for number in found if sets[number].action == "drop"]
        if dropping:
            for number in dropping:
                record.count_dropped(stats, index.set_names[number])
            return Drop(REASON, "; ".join(self._describe(number, attributed, text) for number in dropping))
        removing = {number: found[number] for number in found if sets[number].action == "remove"}
        if removing:
            verdict = self._remove(doc, text, removing, attributed, stats)
            if verdict is not None:
                return verdict
        record.count_remaining(stats, index, (find_hits(index, doc["text"]) if removing else hits).attributed())
        return None

    def _remove(self, doc: dict, text: str, found: dict[int, Hits], attributed: Hits, stats: StageStats) -> Verdict:
        """Cut every match with its set's margin; drop a document left in too many pieces, or empty."""
        sets, names = self.config.eval_sets, self._index.set_names
        spans = []
        for number, set_hits in found.items():
            set_spans = merged_spans(set_hits.starts, set_hits.ends, sets[number].margin_chars, len(text))
            record.count_spans(stats, names[number], len(set_spans))
            spans += set_spans
        spans = merged_spans([start for start, _ in spans], [end for _, end in spans], 0, len(text))
        cleaned, pieces, removed = cut_spans(text, spans)
        limit = min(sets[number].max_pieces for number in found)
        if pieces > limit or not cleaned:
            for number in found:
                record.count_dropped(stats, names[number])
            why = f"cut into {pieces} pieces > {limit}" if cleaned else "nothing left once the matches were cut"
            described = "; ".join(self._describe(number, attributed, text) for number in found)
            return Drop(REASON, f"{why}: {described}")
        doc["text"] = cleaned
        doc[SPANS_COLUMN] = len(spans)
        doc[CHARS_COLUMN] = removed
        return None

    def _describe(self, number: int, attributed: Hits, text: str) -> str:
        """`humaneval: 2 items (HumanEval/0, HumanEval/7), 31 n-grams, matched "def has ..."`."""
        hits = attributed.of_set(self._index, number)
        ids = sorted({self._index.item_ids[item] for item in hits.items.tolist()})
        shown = ", ".join(ids[:_DETAIL_IDS]) + (f" +{len(ids) - _DETAIL_IDS} more" if len(ids) > _DETAIL_IDS else "")
        start, end = merged_spans(hits.starts, hits.ends, 0, len(text))[0]  # the first matched passage
        matched = redacted(text[start:end], self.config.example_chars)
        return (
            f"{self._index.set_names[number]}: {len(ids)} item{'s' if len(ids) != 1 else ''} ({shown}), "
            f'{len(hits)} n-grams, matched "{matched}"'
        )
