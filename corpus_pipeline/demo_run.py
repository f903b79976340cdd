"""`corpus-pipeline demo`: serve the demo site on 127.0.0.1, crawl it, and run the whole pipeline on
the crawl (pipeline/steps.py: extract -> langid -> normalize -> dedup -> pii -> quality -> gates ->
train-tokenizer -> tokenize). Nothing is downloaded: the site is made from real text that registry
packages ship."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import PipelineResult, run_pipeline

# A fixed port keeps the crawled URLs, and so the document ids, the same from one demo to the next.
DEMO_SITE_PORT = 8765


def write_demo_seeds(config: PipelineConfig, base_url: str) -> Path:
    seeds = Path(config.data_root) / "crawl" / f"{config.run_id}-seeds.txt"
    text = f"{base_url}/\n{base_url}/sitemap.xml\n"
    # Rewritten only when it changes: the crawl's fingerprint includes the seed file's mtime.
    if not seeds.exists() or seeds.read_text(encoding="utf-8") != text:
        seeds.parent.mkdir(parents=True, exist_ok=True)
        seeds.write_text(text, encoding="utf-8")
    return seeds


def run_demo(
    config: PipelineConfig, runner: str, run_dir: Path | None = None, port: int = DEMO_SITE_PORT
) -> PipelineResult:
    from corpus_pipeline.demo.server import DemoServer

    plan = RunPlan.from_config(config, runner, run_dir)
    with DemoServer(port=port) as server:  # up for the whole run: a rerun's crawl is reused, not refetched
        return run_pipeline(replace(plan, inputs=(), seeds=write_demo_seeds(config, server.base_url)))
