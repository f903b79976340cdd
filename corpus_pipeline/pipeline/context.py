"""What one pipeline run is given (`RunPlan`), what its steps hand each other (`RunContext`), and
what each step reports (`StepOutcome`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.config.pipeline import SourceConfig
from corpus_pipeline.config.sources import INGEST_KINDS, SOURCES_DIR, source_config, with_source_priority
from corpus_pipeline.engine.lifecycle import Executor, StageResult
from corpus_pipeline.engine.stage_order import opted_out
from corpus_pipeline.engine.store.stage_dir import Location, child, location
from corpus_pipeline.failures import Work
from corpus_pipeline.stats import StageStats


@dataclass(frozen=True)
class RunPlan:
    config: PipelineConfig
    run_dir: Location  # a local path, or an `s3://` prefix when data_root is on a store
    runner: str = "spark"  # "spark" or "local" (dedup's decisions are Spark jobs either way)
    inputs: tuple[str, ...] = ()  # WARC/WET files, folders or globs; empty: crawl `seeds`
    seeds: Path | None = None
    tokenizer: Location | None = None  # None: train one on the run's corpus
    index_dir: Path | None = None  # dedup against this cross-snapshot index too
    previous_run: Location | None = None  # the run the report measures drift against
    # The nightly's published increments (their document stages): mix re-mixes them with the run's
    # documents, so the shards are of the whole published corpus; and where mix keeps its encoded
    # tasks across runs (mix/encoded_cache.py), so each published document is encoded once.
    published_documents: tuple[Location, ...] = ()
    mix_encoded_cache: Location | None = None
    datasets: tuple[str, ...] = ()  # files for `ingest` (a source of an ingest kind)
    # pipeline.sources, each run up to dedup by its own plan (`for_source`); empty: this plan's
    # inputs or seeds are the one source, in the run's own stage directories.
    sources: tuple[SourceConfig, ...] = ()
    # Document stages this (source's) plan leaves out: the source's `skip`, and the opt-in stages
    # its config does not enable.
    skip: tuple[str, ...] = ()
    # What the verb has done (failures.Work): the run's executors mark it, so that a refusal after
    # the run's work (the nightly's publish to a lost store) is a failure, exit 1.
    work: Work = field(default_factory=Work, compare=False)

    @classmethod
    def from_config(
        cls, config: PipelineConfig, runner: str, run_dir: Location | None = None, work: Work | None = None
    ) -> RunPlan:
        settings = config.pipeline
        return cls(
            config=with_source_priority(config),
            run_dir=location(run_dir) if run_dir else child(location(config.data_root), f"runs/{config.run_id}"),
            runner=runner,
            inputs=tuple(settings.inputs),
            seeds=Path(settings.seeds) if settings.seeds else None,
            tokenizer=location(settings.tokenizer) if settings.tokenizer else None,
            sources=tuple(settings.sources),
            skip=opted_out(config),
            work=work or Work(),
        )

    def for_source(self, source: SourceConfig) -> RunPlan:
        """The plan of one source up to dedup: its config, its files, runs/<id>/sources/<name>/."""
        ingest = source.kind in INGEST_KINDS
        config = source_config(self.config, source)
        return replace(
            self,
            config=config,
            run_dir=child(self.run_dir, f"{SOURCES_DIR}/{source.name}"),
            inputs=tuple(source.paths) if source.kind == "warc" else (),
            seeds=Path(source.seeds) if source.seeds else None,
            datasets=tuple(source.paths) if ingest else (),
            sources=(),
            skip=tuple(dict.fromkeys([*source.skip, *opted_out(config)])),
        )


@dataclass
class StepOutcome:
    status: str  # "ran", "reused" (an identical earlier run's output), "not needed", "blocked"
    output: Location | None = None
    stats: StageStats | None = None
    # True for the steps whose stats count documents on their way from the WARC records to the
    # shards: each reads exactly what the one before kept (checked by conservation.py).
    in_document_flow: bool = False
    notes: dict = field(default_factory=dict)  # facts for the run record: read faults, gate results...

    @classmethod
    def of_stage(cls, result: StageResult, in_document_flow: bool = True, **notes) -> StepOutcome:
        return cls("reused" if result.skipped else "ran", result.output, result.stats, in_document_flow, notes)


@dataclass
class RunContext:
    plan: RunPlan
    crawl_inputs: list[str] = field(default_factory=list)  # what extract reads
    documents: Location | None = None  # the latest document stage's output: the next one's input
    gates_passed: bool | None = None  # None until the gates step ran
    tokenizer: Location | None = None
    tokens: Location | None = None
    model: Path | None = None  # the training step's output directory
    # Results of stages that ran fused with an earlier step's stage, for their own steps to report.
    fused: dict[str, StageResult] = field(default_factory=dict)
    # With pipeline.sources: each source's context (its steps up to dedup), and what they kept.
    sources: list[RunContext] = field(default_factory=list)
    parent: RunContext | None = None  # a source's context: the run's, whose executor it shares
    _executor: Executor | None = None

    def __post_init__(self) -> None:
        self.sources = [RunContext(self.plan.for_source(source), parent=self) for source in self.plan.sources]

    @property
    def source_documents(self) -> list[Location]:
        """What dedup reads: every source's normalized documents, or this run's."""
        if not self.sources:
            return [self.documents]
        return [source.documents for source in self.sources]

    @property
    def config(self) -> PipelineConfig:
        return self.plan.config

    @property
    def run_dir(self) -> Location:
        return self.plan.run_dir

    @property
    def executor(self) -> Executor:
        """Made on first use: a run whose every stage is reused never starts Spark."""
        if self.parent is not None:
            return self.parent.executor
        if self._executor is None:
            from corpus_pipeline.stage_runner import make_executor

            self._executor = make_executor(self.config, self.plan.runner, self.plan.work)
        return self._executor


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[RunContext], StepOutcome]
    # The step consumes the corpus (tokenizer, shards, training): not run when a gate failed.
    needs_passing_gates: bool = False
    # Runs once per source of pipeline.sources, in that source's context (the steps before dedup).
    per_source: bool = False
