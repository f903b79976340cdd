"""Four small real sources for the multi-source pipeline tests: a Common Crawl WARC excerpt
(../shared/data), People's Daily articles as JSON lines, a FineWeb-style Parquet "mirror" holding
copies of five of them under other URLs, and gensim's Wikipedia dump (206 articles)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import shared_data
from pipeline_inputs import small_run_overrides
from text_sources import chinese_text, english_text

from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.demo.sources import WIKIPEDIA_DUMP, package_file

NEWS_ARTICLES = 24
MIRRORED = 5  # the mirror's copies of the first news articles: dedup keeps the news copy
EMAIL = "li.wei@example.cn"
WEB = "warc/cc-main-2020-34-excerpt.warc.gz"  # under ../shared/data


def _articles(text: str, count: int, lines: int, offset: int = 0) -> list[str]:
    rows = [line.strip() for line in text.splitlines() if line.strip()]
    return ["\n".join(rows[(offset + n) * lines : (offset + n + 1) * lines]) for n in range(count)]


def news_articles() -> list[str]:
    """People's Daily articles of 12 lines; the last is English news that names an e-mail address."""
    english = _articles(english_text(), 1, 12)[0]
    return [*_articles(chinese_text(), NEWS_ARTICLES, 12), f"{english}\nWrite to the desk at {EMAIL} today."]


def write_sources(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    news = folder / "news.jsonl"
    rows = [
        {"id": f"pd-{n}", "text": text, "url": f"https://news.example/{n}"} for n, text in enumerate(news_articles())
    ]
    news.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    mirror = folder / "mirror"
    mirror.mkdir(exist_ok=True)
    own = _articles(english_text(), 1, 12, offset=1)[0] + f"\nQuestions to {EMAIL} please."
    texts = [row["text"] for row in rows[:MIRRORED]] + [own]
    table = pa.table(
        {
            "text": texts,
            "id": [f"<urn:uuid:mirror-{n}>" for n in range(len(texts))],
            "url": [f"https://mirror.example/copy/{n}" for n in range(len(texts))],
            "date": ["2024-05-01T00:00:00Z"] * len(texts),
            "dump": ["CC-MAIN-2024-22"] * len(texts),
        }
    )
    pq.write_table(table, mirror / "000_00000.parquet")
    return {
        "web": shared_data(WEB),
        "news": news,
        "mirror": mirror,
        "wiki": package_file(*WIKIPEDIA_DUMP),
    }


def sources_yaml(paths: dict[str, Path]) -> str:
    """pipeline.sources: the wiki article wins over any copy, then news over the mirror; news keeps
    its e-mail addresses (its own pii config), wiki skips normalize (a dump is clean text)."""
    return (
        "pipeline.sources=["
        f"{{name: web, kind: warc, paths: ['{paths['web']}'], domain: web}},"
        f"{{name: news, kind: jsonl, paths: ['{paths['news']}'], domain: news, priority: 2,"
        ' overrides: ["pii.redact=false"]},'
        f"{{name: mirror, kind: parquet, paths: ['{paths['mirror']}'], domain: web, priority: 1}},"
        f"{{name: wiki, kind: wikipedia, paths: ['{paths['wiki']}'], domain: encyclopedia, priority: 3,"
        " skip: [normalize]}]"
    )


def multi_source_overrides(data_root: Path, *overrides: str) -> list[str]:
    """The `--set` assignments of a four-source run over the sources written under `data_root`."""
    paths = write_sources(data_root / "inputs")
    return [
        *small_run_overrides(data_root),
        sources_yaml(paths),
        # 20 documents a language before a gate applies: these sources hold fewer of some.
        "quality.gates.min_documents=100000",
        "mix.targets={wiki: 0.5, news: 0.3, web: 0.2}",
        *overrides,
    ]


def multi_source_config(data_root: Path, *overrides: str) -> PipelineConfig:
    return load_config(None, multi_source_overrides(data_root, *overrides))
