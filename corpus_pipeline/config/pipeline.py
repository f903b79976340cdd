"""Config of the whole-pipeline run (`corpus-pipeline run`) and of the nightly refresh."""

from __future__ import annotations

from pydantic import Field, model_validator

from corpus_pipeline.config.base import Strict


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

    @model_validator(mode="after")
    def _one_source(self) -> RunConfig:
        if self.inputs and self.seeds:
            raise ValueError("give pipeline.inputs (WARC/WET files) or pipeline.seeds (a crawl), not both")
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
