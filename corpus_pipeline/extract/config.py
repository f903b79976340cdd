"""The `extract:` section: which engine finds the main text, its settings, and the limits per page."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import NAME_PATTERN, Strict


class ExtractConfig(Strict):
    # Which library finds the main text (extract/engines.py). The default is the cheapest
    # engine within 0.005 F1 of the best on the 1,432 gold pages of shared/data/web
    # (evaluation/engine_choice.py; figures in benchmarks/data/extract_engines.json): hybrid
    # (resiliparse, trafilatura where resiliparse is weak) 0.9185 (Chinese 0.906) at 0.65x the CPU of
    # trafilatura 0.921 (Chinese 0.906); resiliparse 0.856 (Chinese 0.798) at 0.09x.
    engine: Literal["trafilatura", "resiliparse", "hybrid"] = "hybrid"
    # trafilatura settings: its own defaults but comments. favor_precision cost 0.8 F1 points
    # (0.918 -> 0.910) and 1.5 on Chinese pages, comments 0.2 points outside Chinese pages.
    favor_precision: bool = False
    favor_recall: bool = False
    include_comments: bool = False
    include_tables: bool = True
    include_links: bool = False
    # Pages whose text is mostly Han or kana are extracted again with favor_recall and comments
    # (forum replies are the text there), then trimmed of that mode's link lists, menus and repeated
    # lines: Chinese F1 0.848 -> 0.8985 (0.906 with resiliparse's text where trafilatura's is not in
    # the CJK title's script). A second call only where the <title> did not tell.
    cjk_recall_pass: bool = True
    # trafilatura's deduplicate keeps a process-wide cache, which makes output depend on how
    # documents were partitioned: off here, the dedup stage does it deterministically.
    deduplicate: bool = False
    # True skips trafilatura's fallback extractors (readability, jusText): faster, lower recall.
    fast: bool = False
    # Payloads above this are rejected unread (reason `too_large`): trafilatura's lxml parse of a
    # 200 MB page takes minutes and gigabytes, and such pages are almost never prose.
    max_payload_bytes: int = Field(10_000_000, gt=0)
    min_text_chars: int = Field(1, ge=0)
    # Per-page limit on trafilatura (and the payload's decoding, 0.24 ms a page), which run in a
    # child process killed and replaced when a page overruns (reason `extract_timeout`). The slowest
    # of the 1,432 real pages took 0.90 s (p99 0.28 s, median 45 ms) on a shared 2-core machine: 5 s
    # is 5x that, and the most a hanging page costs.
    # None: trafilatura in the task's own process with no limit (a hang hangs the task).
    timeout_seconds: float | None = Field(5.0, gt=0)
    # Name of the snapshot written to the `dump` column; default: the input file's parent folder.
    dump: str | None = None
    # The `source` column, and the `domain` of pages no `domains.rules` entry matches.
    source: str = Field("web", pattern=NAME_PATTERN)
    domain: str = Field("web", pattern=NAME_PATTERN)
