"""The crawl stage for the engine's lifecycle: seeds file -> WARC files, one scrapy process per task.

A distributed executor gets one task per domain group (crawl.tasks groups, a domain never in two),
the local one a single task for every seed; the layout is part of the stage's identity, so a crawl
resumed under the other runner starts over instead of mixing two layouts' WARC files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from corpus_pipeline.crawl.config import CrawlConfig
from corpus_pipeline.crawl.previous import load_validators
from corpus_pipeline.crawl.runner import run_task_process, seed_stats, task_specs
from corpus_pipeline.crawl.seeds import partition_by_domain, read_seeds
from corpus_pipeline.crawl.stats import STAGE
from corpus_pipeline.engine.exec.task_plan import file_identity
from corpus_pipeline.engine.lifecycle import Executor, GlobalStage
from corpus_pipeline.storage import Storage


class CrawlStage(GlobalStage):
    name = STAGE
    uses_local_dir = True

    def __init__(self, config: CrawlConfig | None = None, seeds: Path | None = None, previous: Path | None = None):
        if seeds is None:
            raise ValueError("crawl needs a seeds file (--input SEEDS)")
        self.config = config or CrawlConfig()
        self.seeds = Path(seeds)
        self.previous = Path(previous) if previous is not None else None

    def config_fingerprint(self) -> str:
        return self.config.model_dump_json()

    def input_identity(self, executor: Executor) -> list[str]:
        local = Storage()  # the seeds file and a previous crawl are local folders (Path)
        identity = [file_identity(str(self.seeds), local), self.layout(executor)]
        if self.previous is not None:
            identity += [file_identity(str(p), local) for p in sorted(self.previous.rglob("*.warc.gz"))]
        return identity

    def inputs(self) -> list[Path]:
        return [self.seeds] + ([self.previous] if self.previous is not None else [])

    def layout(self, executor: Executor) -> str:
        return f"{self.config.tasks} domain groups" if executor.distributed else "one task"

    def run(self, input_dir: Path | None, work, executor: Executor) -> dict:
        # Scrapy writes WARC files as it fetches: into a directory (on a store, the scratch one).
        work = work.local_dir(self.name)
        seeds = read_seeds(self.seeds)
        for error in seeds.errors:
            print(f"{self.seeds}: {error}", file=sys.stderr)
        seed_stats(seeds.errors, work)
        validators = load_validators(self.previous) if self.previous is not None else {}
        if seeds.urls:
            groups = partition_by_domain(seeds.urls, self.config.tasks) if executor.distributed else [seeds.urls]
            executor.map_tasks(run_task_process, task_specs(groups, self.config, work, validators), "crawl")
        return {"layout": self.layout(executor)}
