"""`corpus-pipeline demo`: serve the demo site on 127.0.0.1, crawl it, and run every stage built so
far on the crawl, on Spark: extract -> langid -> normalize -> dedup -> pii -> quality ->
train-tokenizer -> tokenize. Nothing is downloaded: the site is made from real text that registry packages ship."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.engine.stages import make_executor, run_extract, run_langid, run_normalize

# A fixed port keeps the crawled URLs, and so the document ids, the same from one demo to the next.
DEMO_SITE_PORT = 8765


def crawl_demo_site(config: PipelineConfig, runner: str, port: int) -> StageResult:
    from corpus_pipeline.crawl.runner import run_crawl
    from corpus_pipeline.demo.server import DemoServer

    crawl_dir = Path(config.data_root) / "crawl" / config.run_id
    seeds = crawl_dir.with_name(f"{config.run_id}-seeds.txt")
    with DemoServer(port=port) as server:
        text = f"{server.base_url}/\n{server.base_url}/sitemap.xml\n"
        # Rewritten only when it changes: the crawl's fingerprint includes the seed file's mtime.
        if not seeds.exists() or seeds.read_text(encoding="utf-8") != text:
            seeds.parent.mkdir(parents=True, exist_ok=True)
            seeds.write_text(text, encoding="utf-8")
        return run_crawl(seeds, crawl_dir, config, runner)


def run_demo(
    config: PipelineConfig, runner: str, run_dir: Path | None = None, port: int = DEMO_SITE_PORT
) -> list[StageResult]:
    from corpus_pipeline.dedup.spark_job import run_dedup
    from corpus_pipeline.pii.runner import run_pii
    from corpus_pipeline.quality.runner import run_quality
    from corpus_pipeline.tokenize.runner import run_tokenize, run_train_tokenizer

    run_dir = run_dir or Path(config.data_root) / "runs" / config.run_id
    crawled = crawl_demo_site(config, runner, port)
    executor = make_executor(config, runner)
    results = [crawled, run_extract([str(crawled.output)], run_dir / "01_extract", config, executor)]
    for name, run_stage in (("02_langid", run_langid), ("03_normalize", run_normalize)):
        results.append(run_stage(results[-1].output, run_dir / name, config, executor))
    if runner == "spark":  # dedup is a global Spark job; `--runner local` demos skip it
        results.append(run_dedup(results[-1].output, run_dir / "04_dedup", config, executor.spark))
    for name, run_stage in (("05_pii", run_pii), ("06_quality", run_quality)):
        results.append(run_stage(results[-1].output, run_dir / name, config, executor))
    corpus = results[-1].output
    tokenizer = run_train_tokenizer(corpus, run_dir / "tokenizer" / "tokenizer.json", config, executor)
    results.append(run_tokenize(corpus, tokenizer.tokenizer, run_dir / "tokens", config, executor))
    return results
