"""Config of the whole-pipeline run (`corpus-pipeline run`) and of the nightly refresh."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from corpus_pipeline.config_base import Strict

# crawl: `seeds` fetched by the crawl stage; warc: WARC/WET/ARC `paths` for extract; the others are
# `ingest` formats of existing datasets (`paths`: files, folders or globs).
SourceKind = Literal["crawl", "warc", "jsonl", "parquet", "text", "wikipedia"]


class SourceConfig(Strict):
    """One entry of `pipeline.sources`: where its documents come from, and how its stages differ."""

    # Fills its documents' `source` column and names its directory, runs/<run_id>/sources/<name>/.
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=64)
    kind: SourceKind
    paths: list[str] = Field(default_factory=list)
    seeds: str | None = None
    # The `domain` of its documents that no domain rule labelled.
    domain: str | None = None
    # Dedup keeps, of a duplicate cluster, the copy of the highest-priority source (the Wikipedia
    # article over a web mirror of it); equal priorities fall back on dedup's keep rule.
    priority: int = 0
    # `--set`-style overrides of its stages' config, e.g. ["quality.rules.gopher_word_count.min=20"]:
    # applied to its own source stage, langid and normalize, and to its rows in the document stages
    # after dedup. Sections of other stages (dedup, tokenize...) are one per run and refused here.
    overrides: list[str] = Field(default_factory=list)
    # Document stages its documents skip (langid for a dataset of known language, say): before dedup
    # the stage is left out of its chain, after dedup its rows pass the stage unchanged.
    skip: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _inputs_of_its_kind(self) -> SourceConfig:
        if self.kind == "crawl" and (not self.seeds or self.paths):
            raise ValueError(f"source {self.name}: a crawl source takes seeds (a seeds file), not paths")
        if self.kind != "crawl" and (self.seeds or not self.paths):
            raise ValueError(f"source {self.name}: a {self.kind} source takes paths (files, folders or globs)")
        return self


class RunConfig(Strict):
    """`pipeline:` what `corpus-pipeline run` starts from."""

    # WARC/WET/ARC files, directories or globs to extract from. Empty: crawl `seeds` first.
    inputs: list[str] = Field(default_factory=list)
    # A seeds file (one URL a line), crawled into <data_root>/crawl/<run_id> when `inputs` is empty.
    seeds: str | None = None
    # A tokenizer.json to tokenize with (ours or any HF one); None: train one on the run's corpus.
    tokenizer: str | None = None
    # A training config (configs/train_tiny.yaml): train a model on the run's shards after tokenize,
    # into <run>/train_<preset>. None: stop at the shards.
    train_config: str | None = None
    # `--set`-style overrides of that training config, e.g. ["max_steps=100"] for a short demo run.
    train_overrides: list[str] = Field(default_factory=list)
    # Several sources in one corpus, each run up to normalize in its own directory, then deduplicated
    # together; empty: the one web source of `inputs` or `seeds`.
    sources: list[SourceConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_source(self) -> RunConfig:
        if self.inputs and self.seeds:
            raise ValueError("give pipeline.inputs (WARC/WET files) or pipeline.seeds (a crawl), not both")
        if self.sources and (self.inputs or self.seeds):
            raise ValueError("give pipeline.sources, or pipeline.inputs/seeds for one web source, not both")
        names = [source.name for source in self.sources]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"source names must be unique; repeated: {', '.join(repeated)}")
        return self


class NightlyConfig(Strict):
    """`nightly:` the incremental refresh that cron runs."""

    # Where new WARC/WET files land: directories, globs or files. Empty: <data_root>/incoming.
    # A file already in the published snapshot's manifest (same path, size and mtime) is skipped.
    inputs: list[str] = Field(default_factory=list)
    # Published snapshots kept under <data_root>/corpus/snapshots/ (CURRENT's included): each
    # is hard links to the files of the one before plus the night's increment, so keeping 3
    # costs little more disk than keeping 1 and still allows a rollback of two nights.
    keep_snapshots: int = Field(3, ge=1)
    # Publish only when each named mix group (mix.by: a source, a domain...) holds at least this
    # share of the night's shard tokens, e.g. {code: 0.08}: a source that shrank does not silently
    # thin the corpus. Needs mix.targets; the report shows the shares and their drift.
    min_shares: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(default_factory=dict)
