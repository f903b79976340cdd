"""Shared by the pipeline tests: small demo-site WARCs (a few dozen documents of real text, with
exact and near duplicates), the settings that keep a run small, and on-disk counters."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.demo.warc import build_demo_warc

# 3 articles per kind: ~32 pages, 65 WARC records (warcinfo, then a request and a response each).
ARTICLES_PER_KIND = 3


@functools.cache
def _demo_warc(seed: int) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "site.warc.gz"
        build_demo_warc(path, seed=seed, max_articles_per_source=ARTICLES_PER_KIND)
        return path.read_bytes()


def write_demo_warc(path: Path, seed: int) -> Path:
    """The demo site built with `seed` (seeds share their English articles: cross-night duplicates)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_demo_warc(seed))
    return path


def small_run_overrides(data_root: Path) -> list[str]:
    """The session conftest's Spark settings (so in-process runs reuse its JVM), exact dedup only
    (MinHash is ~90 Spark stages, over a minute at local[2] even on 30 documents; which method
    drops a duplicate is not what these tests are about), and a vocabulary a few KB of text fills."""
    return [
        f"data_root={data_root}",
        "spark.master=local[2]",
        "spark.app_name=corpus_pipeline-tests",
        'spark.conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",'
        ' "spark.sql.shuffle.partitions": "4"}',
        "dedup.methods=[exact]",
        "train_tokenizer.vocab_size=600",
        "train_tokenizer.min_frequency=1",
    ]


def small_config(data_root: Path, *overrides: str) -> PipelineConfig:
    return load_config(None, [*small_run_overrides(data_root), *overrides])


def warc_record_count(paths: list[Path]) -> int:
    count = 0
    for path in paths:
        with open(path, "rb") as stream:
            count += sum(1 for _ in ArchiveIterator(stream))
    return count


def rejected_rows(run_dir: Path) -> dict[str, int]:
    """Rows under every `_rejected/reason=<r>/` of the run, by stage directory and reason."""
    counts: dict[str, int] = {}
    for part in sorted(run_dir.glob("*/_rejected/reason=*/*.parquet")):
        key = f"{part.parents[2].name}/{part.parent.name.removeprefix('reason=')}"
        counts[key] = counts.get(key, 0) + pq.ParquetFile(part).metadata.num_rows
    return counts
