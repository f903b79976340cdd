"""Main-text engines of the extract stage (`extract.engine`): HTML text and URL in, main text out.

Measured with `corpus-pipeline eval extraction` on the 1,432 gold pages of shared/data/web (table in
benchmarks/README.md):

* `trafilatura` (the default, best F1): `trafilatura.extract` with the config's settings, plus two
  second passes where the first one is known to go wrong:
  - a page whose `<title>` or first text is mostly Han or kana is extracted with `favor_recall` and
    comments: Chinese forum replies are the page's main text, and the default settings cut them
    (Chinese F1 0.848 -> 0.873 on the 86 Chinese gold pages, overall 0.918 -> 0.920). A CJK title
    decides before the first call, so most such pages cost one call, not two. The title matters: by
    the first text alone 7 forum pages whose first text is a Latin-script menu are missed (0.860).
  - a page whose text is nearly all table rows (`| cell |` lines) is extracted again without tables:
    trafilatura takes a layout table (a shop's sidebar ranking) for the content, and ClueWeb09's 29
    Japanese shop pages all became the same 398 characters of one sidebar. No gold page changes.
* `resiliparse`: `extract_plain_text(main_content=True)` (DCLM's choice), ~10x cheaper and 6 F1
  points worse; for a corpus where CPU matters more than boilerplate.
"""

from __future__ import annotations

import re
from typing import Any

import regex

from corpus_pipeline.config import ExtractConfig

_CJK_LETTER = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
_SPACE = regex.compile(r"\s+")
# The share of non-space characters that are Han or kana above which a text is Chinese or Japanese;
# the same 0.3 that evaluation/extraction.py uses to call a gold page Chinese.
CJK_SHARE = 0.3
# Share of the text's characters on table-row lines above which trafilatura picked a layout table.
# ClueWeb09's sidebar rankings are at 1.0; so are 15 of the 1,432 gold pages, where the pass moved
# overall F1 by less than 0.001 (an empty second text keeps the first).
LAYOUT_TABLE_SHARE = 0.9

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TITLE_SCAN_CHARS = 200_000  # where a title can be: <head> comes first, even on a 10 MB page


def cjk_share(text: str) -> float:
    letters = _SPACE.sub("", text)
    return len(_CJK_LETTER.findall(letters)) / len(letters) if letters else 0.0


def title_is_cjk(html: str) -> bool:
    match = _TITLE.search(html, 0, _TITLE_SCAN_CHARS)
    return match is not None and cjk_share(match.group(1)) >= CJK_SHARE


def table_row_share(text: str) -> float:
    """Share of the characters of `text` on lines trafilatura wrote as table rows (`| a | b |`)."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    total = sum(map(len, lines))
    return sum(len(line) for line in lines if line.startswith("|")) / total if total else 0.0


class TrafilaturaEngine:
    """trafilatura.extract with the config's settings and the second passes of the module docstring."""

    def __init__(self, config: ExtractConfig):
        self.config = config
        self.settings: dict[str, Any] = {
            "favor_precision": config.favor_precision,
            "favor_recall": config.favor_recall,
            "include_comments": config.include_comments,
            "include_tables": config.include_tables,
            "include_links": config.include_links,
            "deduplicate": config.deduplicate,
            "fast": config.fast,
        }

        self.cjk_settings = {**self.settings, "favor_precision": False, "favor_recall": True, "include_comments": True}

    def __call__(self, html: str, url: str | None) -> str | None:
        cjk_pass = self.config.cjk_recall_pass
        settings = self.cjk_settings if cjk_pass and title_is_cjk(html) else self.settings
        text = self._extract(html, url, settings)
        if text and cjk_pass and settings is self.settings and cjk_share(text) >= CJK_SHARE:
            settings = self.cjk_settings
            text = self._extract(html, url, settings) or text
        if text and settings["include_tables"] and table_row_share(text) >= LAYOUT_TABLE_SHARE:
            text = self._extract(html, url, {**settings, "include_tables": False}) or text
        return text

    @staticmethod
    def _extract(html: str, url: str | None, settings: dict[str, Any]) -> str | None:
        import trafilatura  # imported here: 0.5 s of imports the driver never needs

        return trafilatura.extract(html, url=url, **settings)


class ResiliparseEngine:
    def __init__(self, config: ExtractConfig):
        self.config = config

    def __call__(self, html: str, url: str | None) -> str | None:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        # Bullets, alt texts, form fields and noscript off: measured +0.9 F1 points over the defaults
        # (0.847 -> 0.856), each of them boilerplate more often than text on the gold pages.
        return extract_plain_text(
            HTMLTree.parse(html),
            main_content=True,
            list_bullets=False,
            alt_texts=False,
            links=self.config.include_links,
            form_fields=False,
            noscript=False,
        )


def main_text_engine(config: ExtractConfig) -> TrafilaturaEngine | ResiliparseEngine:
    return {"trafilatura": TrafilaturaEngine, "resiliparse": ResiliparseEngine}[config.engine](config)


def preload(config: ExtractConfig) -> None:
    """Import the engine's library before the worker forks, so no child imports it again (0.5 s)."""
    if config.engine == "trafilatura":
        import trafilatura  # noqa: F401
    else:
        import resiliparse.extract.html2text  # noqa: F401
