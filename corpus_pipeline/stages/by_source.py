"""One document stage whose config differs for some sources (pipeline.sources overrides): each row
goes to the stage instance of its `source` column, and the rows of a source that skips the stage
pass unchanged. Rows of any other source, or of none, go to the run's own instance.

To the engine it is one stage (one name, one directory, one set of counters), so a fused chain
after dedup holds one instance per distinct source config without knowing about sources."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa

from corpus_pipeline.stages.base import DocumentStage, Verdict
from corpus_pipeline.stats import StageStats

SOURCE_COLUMN = "source"


class BySourceStage(DocumentStage):
    def __init__(self, default: DocumentStage, by_source: dict[str, DocumentStage | None]):
        """`by_source`: source name -> its own instance of the stage, or None where it skips it."""
        self.default = default
        self.by_source = dict(sorted(by_source.items()))
        self.name = default.name
        instances = [default, *(stage for stage in self.by_source.values() if stage is not None)]
        self.output_fields = _union_of_fields(instances)
        self.rewrites = tuple(dict.fromkeys(column for stage in instances for column in stage.rewrites))
        if any(stage.input_columns is None for stage in instances):
            self.input_columns = None
        else:
            columns = [column for stage in instances for column in stage.input_columns]
            self.input_columns = tuple(dict.fromkeys([*columns, SOURCE_COLUMN]))

    def setup(self) -> None:
        self.default.setup()
        for stage in self.by_source.values():
            if stage is not None:
                stage.setup()

    def _stage_of(self, doc: dict) -> DocumentStage | None:
        source = doc.get(SOURCE_COLUMN)
        return self.by_source[source] if source in self.by_source else self.default

    def process(self, doc: dict, stats: StageStats) -> Verdict:
        stage = self._stage_of(doc)
        return None if stage is None else stage.process(doc, stats)

    def process_batch(self, docs: list[dict], stats: StageStats) -> list[Verdict]:
        """Each instance gets its rows in one batch (a batched model call stays batched)."""
        rows: dict[int, list[int]] = defaultdict(list)
        stages: dict[int, DocumentStage | None] = {}
        for position, doc in enumerate(docs):
            stage = self._stage_of(doc)
            stages[id(stage)] = stage
            rows[id(stage)].append(position)
        verdicts: list[Verdict] = [None] * len(docs)
        for key, positions in rows.items():
            stage = stages[key]
            if stage is None:
                continue
            for position, verdict in zip(
                positions, stage.process_batch([docs[p] for p in positions], stats), strict=True
            ):
                verdicts[position] = verdict
        return verdicts

    def config_fingerprint(self) -> str:
        own = {
            name: "skipped" if stage is None else stage.config_fingerprint() for name, stage in self.by_source.items()
        }
        return f"{self.default.config_fingerprint()} by source {own!r}"


def _union_of_fields(instances: list[DocumentStage]) -> tuple[pa.Field, ...]:
    """Every column any instance fills, in first-seen order: a source that adds a blocklist writes
    its `blocklist_<name>` column (null on the other sources' rows). One name of two types could
    not be one column: refused."""
    fields: dict[str, pa.Field] = {}
    for stage in instances:
        for field in stage.output_fields:
            known = fields.setdefault(field.name, field)
            if known.type != field.type:
                raise ValueError(
                    f"{stage.name}: column {field.name!r} is {known.type} for one source and {field.type} for another"
                )
    return tuple(fields.values())
