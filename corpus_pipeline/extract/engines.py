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
    The thresholds below were chosen on those same 86 pages (there is no held-out Chinese set).
    favor_recall also takes in what a precision pass would prune, and three trims of that pass's
    text take it back out (Chinese 0.873 -> 0.8985 in all, overall 0.920 -> 0.921; no other
    language moves):
    - runs of 6 or more `- ` list items (`without_list_runs`): the related-news lists; on the
      Chinese gold pages 13,758 of the tokens not in the gold text sit on list lines, against 366
      gold tokens (0.873 -> 0.891). Only there: on the other 1,346 pages list runs are mostly
      content (the same rule would cost 0.923 -> 0.914);
    - a text with 30 % of its characters on lines under 20 characters took in the page's menus: it
      is extracted again with favor_precision, taken if it keeps half of the text's longer lines
      (0.891 -> 0.897, 7 pages);
    - a line repeated within the text is kept once (`without_repeated_lines`, 0.897 -> 0.8985).
    A CJK-titled page whose text is under 30 % Han or kana took the wrong block: resiliparse's text,
    cut to its prose span, replaces it if that is CJK (a forum thread whose text was an upload
    widget's English "browser not supported" notice: P/R 0/0 -> 0.30/1.00; Chinese 0.8985 -> 0.906,
    overall 0.9211 -> 0.9215). One gold page moves and no threshold is new (CJK_SHARE); Common
    Crawl's Chinese-titled English company page keeps its text (resiliparse's is English too).
  - a page whose text is nearly all table rows (`| cell |` lines) is extracted again without tables:
    trafilatura takes a layout table (a shop's sidebar ranking) for the content, and ClueWeb09's 29
    Japanese shop pages all became the same 398 characters of one sidebar. No gold page changes.
* `resiliparse`: `extract_plain_text(main_content=True)` (DCLM's choice), ~10x cheaper and 6 F1
  points worse; for a corpus where CPU matters more than boilerplate.
* `hybrid`: resiliparse first (without comment sections and a few of trafilatura's discard
  selectors), the `trafilatura` engine only on the pages where resiliparse is known to be weak
  (`HybridEngine`): F1 0.9185 at 0.65x trafilatura's CPU seconds, Chinese unchanged (0.906). Below
  the default's 0.9215 overall (on the held-out half B: 0.913 against 0.912), so opt-in.
"""

from __future__ import annotations

import functools
import re
from types import ModuleType
from typing import Any

import regex

from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.normalize.stage import remove_invisible

_CJK_LETTER = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
_SPACE = regex.compile(r"\s+")
# The share of non-space characters that are Han or kana above which a text is Chinese or Japanese;
# the same 0.3 that evaluation/extraction.py uses to call a gold page Chinese.
CJK_SHARE = 0.3
# Share of the text's characters on table-row lines above which trafilatura picked a layout table.
# ClueWeb09's sidebar rankings are at 1.0; so are 15 of the 1,432 gold pages, where the pass moved
# overall F1 by less than 0.001 (an empty second text keeps the first).
LAYOUT_TABLE_SHARE = 0.9

# A run of this many `- ` list items in the recall pass's text is a link list, not the page's text:
# 4 cut gold lists on 3 Chinese pages (recall 0.922 -> 0.912); 5 to 10 score alike (0.888-0.891).
LIST_RUN_ITEMS = 6
# News lists print a source and a date on a line of their own between items ("强图打榜 2024-05-23
# 09:41:17", 27 characters): a line this short between two items does not end the run.
LIST_GAP_CHARS = 30
_LIST_ITEM = re.compile(r"\s*- ")
# A recall-pass text with this share of its characters on lines under SHORT_LINE_CHARS took in the
# page's menus ("首页", "登录", "举报", "回复"): it is extracted again with favor_precision, whose
# pruning drops them. On the Chinese gold pages 9 texts pass 0.3, and none loses more than 0.03 F1
# there; at 0.2, 3 forum pages lose their replies.
MENU_SHARE = 0.3
SHORT_LINE_CHARS = 20
# ... and the precision text is taken only if it keeps this share of the recall text's prose: on
# Common Crawl's Chinese pages favor_precision can keep a page's 65-character footer and drop its
# 565 characters of text (cc-main-2020-34 excerpt: 699 Han characters -> 0). It costs two gold forum
# pages whose 24- and 89-character posts favor_precision shortens further (Chinese 0.9011 -> 0.8985).
PROSE_KEPT = 0.5
# The recall pass also keeps a page's repeated blocks (a headline list printed twice, a video's
# title four times): a line of this many characters seen before in the text is dropped. deduplicate
# would do it with a cache shared across pages (off: see config); this is per page. 0.897 -> 0.8985
# on the Chinese pages, about the same at 1, 5 or 10 characters.
REPEATED_LINE_CHARS = 10

# hybrid: resiliparse's loss to trafilatura is precision (0.780 against 0.908; recall 0.946 against
# 0.934): it keeps menus, teasers, comment threads and footers. Fitted on half A of the 1,432 gold
# pages (an even sha1 of the url, `url_half`) and checked on half B (benchmarks/README.md): trafilatura runs where
# resiliparse's text is under HYBRID_MIN_CHARS (empty or a fragment: there trafilatura is 0.47 ahead
# in (P+R)/2), has more than HYBRID_MAX_LINES lines (a page of many blocks: the boilerplate is among
# them), or loses more than 30 % of its characters without its comment sections (a forum thread, or
# an article whose comments resiliparse would keep: 0.7-0.9 score alike on A, 0.5 is 0.0004 lower),
# and on CJK pages (resiliparse 0.798 on the Chinese ones, trafilatura's CJK pass 0.906).
# Lines 20 / 25 / 30 / 40 / 60 with the rest as now: half A 0.926 / 0.922 / 0.921 / 0.924 / 0.920 at
# 0.72 / 0.65 / 0.59 / 0.52 / 0.40 of trafilatura's CPU seconds in its calls.
HYBRID_MIN_CHARS = 300
HYBRID_MAX_LINES = 40
COMMENTS_KEPT = 0.7
# Elements the hybrid's resiliparse text skips, from trafilatura's own discard vocabulary
# (trafilatura/xpaths.py OVERALL_DISCARD_XPATH: captions, footers, author boxes, cookie notices,
# bylines, related links). Each of the 31 tokens of that list tried was kept if it raised half A's F1
# (these 8, +0.0031 together; half B +0.0018); `[class*=sidebar]`, `widget`, `teaser`, `share`, `tags`
# and `[class*=author]` cost 0.003-0.03 on both halves (a body or article class names them too).
HYBRID_SKIP = (
    "[class*=caption]",
    "[class*=footer]",
    "[id*=footer]",
    "[id*=author]",
    "[class*=cookie]",
    "[id*=cookie]",
    "[class*=byline]",
    "[class*=related]",
)
# The text resiliparse keeps is cut to the span from its first to its last line of this many
# characters: the menu lines above the article and the footer below it go (its F1 0.855 -> 0.871
# alone; 40 / 80 / 150 characters: 0.867 / 0.871 / 0.859).
PROSE_LINE_CHARS = 80

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


def without_list_runs(text: str) -> str:
    """`text` without its runs of LIST_RUN_ITEMS or more `- ` list lines (blank lines, and one line
    of at most LIST_GAP_CHARS between two items, belong to the run)."""
    lines = text.split("\n")
    dropped: set[int] = set()
    start = 0
    while start < len(lines):
        if not _LIST_ITEM.match(lines[start]):
            start += 1
            continue
        items, last, index = 1, start, start + 1
        while index < len(lines):
            line = lines[index]
            if _LIST_ITEM.match(line):
                items, last = items + 1, index
            elif line.strip() and not (
                len(line.strip()) <= LIST_GAP_CHARS and index + 1 < len(lines) and _LIST_ITEM.match(lines[index + 1])
            ):
                break
            index += 1
        if items >= LIST_RUN_ITEMS:
            dropped.update(range(start, last + 1))
        start = last + 1
    return "\n".join(line for number, line in enumerate(lines) if number not in dropped) if dropped else text


def short_line_share(text: str) -> float:
    """Share of the characters of `text` on lines shorter than SHORT_LINE_CHARS (menus, buttons)."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    total = sum(map(len, lines))
    return sum(len(line) for line in lines if len(line) < SHORT_LINE_CHARS) / total if total else 0.0


def without_repeated_lines(text: str) -> str:
    """`text` with each line of REPEATED_LINE_CHARS or more (spaces aside) kept at its first place only."""
    seen: set[str] = set()
    kept = []
    for line in text.split("\n"):
        key = _SPACE.sub("", line)
        if len(key) >= REPEATED_LINE_CHARS and key in seen:
            continue
        seen.add(key)
        kept.append(line)
    return "\n".join(kept)


def within_prose_span(text: str) -> str:
    """`text` from its first to its last line of PROSE_LINE_CHARS or more; whole if it has none."""
    lines = text.split("\n")
    prose = [number for number, line in enumerate(lines) if len(line.strip()) >= PROSE_LINE_CHARS]
    return "\n".join(lines[prose[0] : prose[-1] + 1]) if prose else text


def _prose_chars(text: str) -> int:
    return sum(len(line.strip()) for line in text.split("\n") if len(line.strip()) >= SHORT_LINE_CHARS)


def _or_whole(trimmed: str, text: str) -> str:
    return trimmed if trimmed.strip() else text  # a page that is all list, or empty in precision mode, keeps its text


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
        self.precision_settings = {**self.settings, "favor_precision": True, "favor_recall": False}
        self.resiliparse = ResiliparseEngine(config)

    def __call__(self, html: str, url: str | None) -> str | None:
        cjk_pass = self.config.cjk_recall_pass
        cjk_title = cjk_pass and title_is_cjk(html)
        settings = self.cjk_settings if cjk_title else self.settings
        text = self._extract(html, url, settings)
        if cjk_title and cjk_share(text or "") < CJK_SHARE:
            text = self._in_the_titles_script(html, text)
        if text and cjk_pass and settings is self.settings and cjk_share(text) >= CJK_SHARE:
            settings = self.cjk_settings
            text = self._extract(html, url, settings) or text
        if text and settings["include_tables"] and table_row_share(text) >= LAYOUT_TABLE_SHARE:
            text = self._extract(html, url, {**settings, "include_tables": False}) or text
        if text and settings is self.cjk_settings:
            text = _or_whole(without_list_runs(text), text)
            if short_line_share(text) >= MENU_SHARE:
                text = self._menus_pruned(html, url, text)
            text = without_repeated_lines(text)
        return text

    def _in_the_titles_script(self, html: str, text: str | None) -> str | None:
        """On a page with a CJK title, trafilatura's text with little Han or kana (or none) took the
        wrong block (a forum thread's "browser not supported" notice instead of its posts):
        resiliparse's text, cut to its prose span, if that is in the title's script; else trafilatura's."""
        fallback = within_prose_span(self.resiliparse(html, None) or "")
        return fallback if cjk_share(fallback) >= CJK_SHARE else text

    def _menus_pruned(self, html: str, url: str | None, text: str) -> str:
        """The favor_precision text of a page whose recall text is mostly menus, if it keeps at
        least half of the recall text's prose (characters on lines of SHORT_LINE_CHARS or more)."""
        pruned = without_list_runs(self._extract(html, url, self.precision_settings) or "")
        kept_prose = _prose_chars(pruned) >= PROSE_KEPT * _prose_chars(text)
        return pruned if pruned.strip() and kept_prose else text

    @staticmethod
    def _extract(html: str, url: str | None, settings: dict[str, Any]) -> str | None:
        return trafilatura_module().extract(html, url=url, **settings)


class ResiliparseEngine:
    def __init__(self, config: ExtractConfig):
        self.config = config

    def __call__(self, html: str, url: str | None) -> str | None:
        from resiliparse.parse.html import HTMLTree

        return self.text(HTMLTree.parse(html))

    def text(self, tree: Any, comments: bool = True, skip_elements: tuple[str, ...] = ()) -> str:
        """resiliparse's main-content text of a parsed page (`HTMLTree`, which the call leaves as it was)."""
        from resiliparse.extract.html2text import extract_plain_text

        # Bullets, alt texts, form fields and noscript off: measured +0.9 F1 points over the defaults
        # (0.847 -> 0.856), each of them boilerplate more often than text on the gold pages.
        text = extract_plain_text(
            tree,
            main_content=True,
            list_bullets=False,
            alt_texts=False,
            links=self.config.include_links,
            form_fields=False,
            noscript=False,
            comments=comments,
            skip_elements=list(skip_elements) or None,
        )
        # resiliparse keeps the soft hyphens (`&shy;`) that pages put inside words, zero-width spaces
        # and word joiners; trafilatura's text has none (it drops what is not printable). Removed as
        # normalize removes them (ZWNJ and ZWJ stay), so a word is one word in both engines' texts:
        # the hybrid's resiliparse text had soft hyphens on 27 of the 1,432 gold pages, and a German
        # wine article hyphenated throughout ("Ita\u00adli\u00adens") scored 0 on its gold snippets.
        return remove_invisible(text)[0]


class HybridEngine:
    """resiliparse's text without comment sections and HYBRID_SKIP, cut to its prose span, or the
    trafilatura engine's on the pages where resiliparse is weak (a Chinese or Japanese title,
    `resiliparse_is_weak`, `comments_heavy`); such a page costs both, but for its title."""

    def __init__(self, config: ExtractConfig):
        self.fast = ResiliparseEngine(config)
        self.thorough = TrafilaturaEngine(config)

    def __call__(self, html: str, url: str | None) -> str | None:
        from resiliparse.parse.html import HTMLTree

        # Each check is made only where the ones before it did not decide, the cheapest first: a
        # CJK title needs no resiliparse text (91 gold pages: 0.18 CPU s of parsing and texts), and
        # the text without comments only decides the pages the first text did not (515 of the 550
        # gold pages that go to trafilatura skip it: 0.70 of the 1.51 CPU s of the second texts).
        if title_is_cjk(html):
            return self.thorough(html, url)
        tree = HTMLTree.parse(html)  # parsed once for both texts: 1.0 of resiliparse's 3.0 CPU s
        with_comments = self.fast.text(tree, skip_elements=HYBRID_SKIP) or ""
        if resiliparse_is_weak(with_comments):
            return self.thorough(html, url)
        text = self.fast.text(tree, comments=False, skip_elements=HYBRID_SKIP) or ""
        return self.thorough(html, url) if comments_heavy(with_comments, text) else within_prose_span(text)


def resiliparse_is_weak(with_comments: str) -> bool:
    """A short, many-lined or Chinese/Japanese resiliparse text (with comment sections)."""
    lines = sum(1 for line in with_comments.split("\n") if line.strip())
    return len(with_comments) < HYBRID_MIN_CHARS or lines > HYBRID_MAX_LINES or cjk_share(with_comments) >= CJK_SHARE


def comments_heavy(with_comments: str, without_comments: str) -> bool:
    """The page's comment sections hold more than 1 - COMMENTS_KEPT of resiliparse's text."""
    return len(without_comments) < COMMENTS_KEPT * len(with_comments)


Engine = TrafilaturaEngine | ResiliparseEngine | HybridEngine
ENGINES: dict[str, type[Engine]] = {
    "trafilatura": TrafilaturaEngine,
    "resiliparse": ResiliparseEngine,
    "hybrid": HybridEngine,
}


def main_text_engine(config: ExtractConfig) -> Engine:
    return ENGINES[config.engine](config)


@functools.cache
def trafilatura_module() -> ModuleType:
    """trafilatura (imported on first use: 0.5 s of imports the driver never needs), its HTML parser
    giving every element lxml.html's one `HtmlElement` class from C.

    lxml.html's parser asks a Python function (`HtmlElementClassLookup.lookup`) for the class of
    every element trafilatura touches, to give forms, inputs and labels their own subclasses;
    trafilatura, jusText and trafilatura's readability use none of those subclasses' methods
    (`text_content`, `drop_tree` and the rest are `HtmlElement`'s). On the 1,432 gold pages and the
    66 pages of shared/data/warc the texts are identical (both engines that call trafilatura), and
    the default engine costs 3.9-6.4 % fewer CPU seconds (interleaved in blocks of 100 pages: all
    1,432 84.2 -> 80.9 s on a slowed machine, the first 400 18.06 -> 16.91 s). The parser is
    trafilatura's module-level one: every trafilatura call in this process gets the same texts."""
    import trafilatura
    from lxml import etree, html
    from trafilatura.utils import HTML_PARSER

    HTML_PARSER.set_element_class_lookup(
        etree.ElementDefaultClassLookup(
            element=html.HtmlElement,
            comment=html.HtmlComment,
            pi=html.HtmlProcessingInstruction,
            entity=html.HtmlEntity,
        )
    )
    return trafilatura


def preload(config: ExtractConfig) -> None:
    """Import the engine's library before the worker forks, so no child imports it again (0.5 s)."""
    if config.engine in ("trafilatura", "hybrid"):
        trafilatura_module()
    # all three: the trafilatura engine asks resiliparse on a CJK-titled page without CJK text
    import resiliparse.extract.html2text  # noqa: F401
