"""`corpus-pipeline demo`: the demo site's pages as a WARC, then every stage built so far, on Spark."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.engine.stages import make_executor, run_extract, run_langid, run_normalize


def demo_warc(config: PipelineConfig) -> Path:
    """Written once per data root: the pages are deterministic, so a rerun reuses the file."""
    from corpus_pipeline.demo.site import build_demo_site
    from corpus_pipeline.demo.warc import write_demo_warc

    path = Path(config.data_root) / "crawl" / "demo" / "demo-site.warc.gz"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_demo_warc(build_demo_site(seed=0), path)
    return path


def run_demo(config: PipelineConfig, runner: str, run_dir: Path | None = None) -> list[StageResult]:
    run_dir = run_dir or Path(config.data_root) / "runs" / config.run_id
    warc = demo_warc(config)
    executor = make_executor(config, runner)
    extracted = run_extract([str(warc)], run_dir / "01_extract", config, executor)
    identified = run_langid(extracted.output, run_dir / "02_langid", config, executor)
    normalized = run_normalize(identified.output, run_dir / "03_normalize", config, executor)
    return [extracted, identified, normalized]
