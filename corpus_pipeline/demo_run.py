"""`corpus-pipeline demo`: the demo site's pages as a WARC, then every stage built so far, on Spark."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.engine.stages import make_executor, run_extract, run_langid, run_normalize

# The demo crawl is rolled into several files, as a crawler rolls WARCs, so that extract (one Spark
# task per file) runs on every core.
DEMO_WARC_FILES = 4


def demo_warcs(config: PipelineConfig) -> list[str]:
    """Written once per data root: the pages are deterministic, so a rerun reuses the files."""
    from corpus_pipeline.demo.site import build_demo_site
    from corpus_pipeline.demo.warc import write_demo_warc

    folder = Path(config.data_root) / "crawl" / "demo"
    paths = [folder / f"demo-site-{index:05d}.warc.gz" for index in range(DEMO_WARC_FILES)]
    if not all(path.exists() for path in paths):
        folder.mkdir(parents=True, exist_ok=True)
        site = build_demo_site(seed=0)
        for index, path in enumerate(paths):
            write_demo_warc(replace(site, pages=site.pages[index::DEMO_WARC_FILES]), path)
    return [str(path) for path in paths]


def run_demo(config: PipelineConfig, runner: str, run_dir: Path | None = None) -> list[StageResult]:
    run_dir = run_dir or Path(config.data_root) / "runs" / config.run_id
    executor = make_executor(config, runner)
    extracted = run_extract(demo_warcs(config), run_dir / "01_extract", config, executor)
    identified = run_langid(extracted.output, run_dir / "02_langid", config, executor)
    normalized = run_normalize(identified.output, run_dir / "03_normalize", config, executor)
    return [extracted, identified, normalized]
