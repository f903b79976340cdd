"""Wikitext -> the text a reader sees, with mwparserfromhell: tables, image and file links with
their captions, categories, templates and parser functions, and references removed (tables are
removed, not kept as rows: their cells are fragments, not prose).

mwparserfromhell's tokenizer gives up on some real markup and returns it as text: an indented
table (`:{|`), a parser function spread over lines (`{{formatnum:{{ #expr: ...\n ...}}}}`), an
image link under a namespace alias the dump's siteinfo does not list
(`[[Hình:...|thumb|270px|...]]` in Vietnamese, `[[画像:...]]` in Japanese), an infobox closed early
so that its other parameters become text. So tables are cut out line by line and templates brace
pair by brace pair before parsing, as MediaWiki's own parser finds them; links that carry image
options are taken for images whatever their namespace's name; templates still left as text are cut
out after, and so is what the source leaves unbalanced (an opening never closed, a closing that
closes nothing, a category link nested in another), which MediaWiki shows as text. Chinese
language-variant markup (`-{zh-hans:...;zh-hant:...}-`) reads as one variant.

Measured with benchmarks/wiki_residue.py (articles whose text holds `{|`, `|}`, `thumb|`, `{{`,
`}}`, `[[File:` or a file/category link, or `-{...}-`, outside code), mwparserfromhell's strip_code
alone -> this module before -> now: English (gensim's wheel, 106 articles) 81 -> 0 -> 0,
Vietnamese (274) 69 -> 0 -> 0, Japanese (189) 93 -> 0 -> 0, Chinese (5 real articles, not a dump)
1 -> 1 -> 0, Armenian (278) 78 -> 5 -> 0, Ukrainian (512) 132 -> 0 -> 0, Greek (523) 119 -> 0 -> 0;
83-92 % of strip_code's characters kept (what goes is tables' cells, captions, template
parameters and, in Chinese, the other variant).
"""

from __future__ import annotations

import re

# Links to these namespaces show an image or file or a category, not text (MediaWiki's ids).
NON_TEXT_NAMESPACES = {-2: "Media", 6: "File", 14: "Category"}
# Their aliases, valid in every wiki or in the ones named, which siteinfo does not list.
NON_TEXT_ALIASES = (
    "image",  # File's old English name, valid in every wiki
    "hình", "tập tin", "thể loại",  # vi
    "画像", "ファイル", "カテゴリ",  # ja
    "文件", "档案", "檔案", "图像", "圖像", "媒体", "媒體", "分类", "分類",  # zh
)  # fmt: skip
# Tags whose content is no part of the article's prose: references, tables (cells are fragments),
# and those strip_code itself hides (galleries, math, code listings...).
HIDDEN_TAGS = frozenset(
    {
        "ref",
        "references",
        "table",
        "gallery",
        "math",
        "pre",
        "nowiki",
        "syntaxhighlight",
        "source",
        "score",
        "timeline",
        "imagemap",
        "graph",
        "templatedata",
        "inputbox",
    }
)
# An image link's options (English and the localized keywords of vi, ja, zh).
_IMAGE_OPTION = re.compile(
    r"^\s*(thumb|thumbnail|frame|framed|frameless|border|upright(=[\d.]+)?|\d*x?\d+\s*px|left|right|center|centre"
    r"|none|baseline|middle|nhỏ|trái|phải|giữa|サムネイル|左|右|中央|缩略图|縮圖|左|居中|无|link=.*|alt=.*)\s*$",
    re.IGNORECASE,
)
_TABLE_OPEN = re.compile(r"^[:*#\s]*\{\|")
_TABLE_CLOSE = re.compile(r"^\s*\|\}")
_INNER_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
# Template braces, and the tags whose content is code or TeX, where braces are text.
_BRACES_OR_CODE = re.compile(
    r"\{\{|\}\}|<(nowiki|pre|syntaxhighlight|source|code|math|chem)\b[^>]*?(?:/>|>.*?</\1\s*>)", re.S | re.I
)
# An opening `{{name|` (or a bare `{{`) whose template never closes: what the parser leaves of it.
_UNCLOSED_TEMPLATE = re.compile(r"\{\{[^{}|\n]*\|?")
# Chinese language-variant blocks (`-{zh-hans:A;zh-hant:B}-`), innermost; their flags (`R|`, `H|`).
# Not a template's braces beside a dash: `<!--{{Infobox}}-->` is a comment, `-{{x}}` no block.
_VARIANT_BLOCK = re.compile(r"-\{(?!\{)((?:(?!-\{|\}-).)*?)(?<!\})\}-", re.S)
_VARIANT_FLAGS = re.compile(r"[A-Z\-;\s]{1,12}")
_VARIANT_CODE = re.compile(r"\s*zh(-[a-z]+)?\s*:", re.I)
# HTML comments, which MediaWiki removes before it parses anything, and the extension tags that
# show their content as written (a comment there is text; `<code>` is HTML, its comments go).
# Left to the parser, the comment goes but the line break inside it stays, so the list item after
# it is no list item: `<!-- Aarts2006\n-->* {{cite book ...}}` ends up a line `* `, 164 of the
# 247 lines of Vietnamese "Tiếng Anh" (its bibliography), dropped for repeated lines.
_COMMENT_OR_CODE = re.compile(
    r"<!--.*?(?:-->|\Z)|<(nowiki|pre|syntaxhighlight|source)\b[^>]*?(?:/>|>.*?</\1\s*>)", re.S | re.I
)
_QUOTE_RUN = re.compile("'{2,}")  # bold and italic markers, read as text (see plain_text)
# Rendered TeX pasted into an article as text: `{\displaystyle 10^{-18}}`.
_TEX_GROUP = re.compile(r"\{\\(displaystyle|textstyle|scriptstyle)\b")


def non_text_prefixes(namespaces) -> tuple[str, ...]:
    """`file:`, `category:`... and the dump's own names of those namespaces, lower case."""
    names = {name.lower() for name in NON_TEXT_NAMESPACES.values()} | set(NON_TEXT_ALIASES)
    names |= {ns.name.lower() for ns in namespaces or () if ns.id in NON_TEXT_NAMESPACES and ns.name}
    return tuple(f"{name}:" for name in sorted(names))


def without_comments(markup: str) -> str:
    """The markup without its HTML comments (one never closed runs to the end, as in MediaWiki),
    outside the tags that show their content as written."""
    if "<!--" not in markup:
        return markup
    return _COMMENT_OR_CODE.sub(lambda found: found.group(0) if found.group(1) else "", markup)


def without_tables(markup: str) -> str:
    """The markup without its tables, found line by line as MediaWiki finds them: from a line that
    opens one (`{|`, nested too) to the line that closes it (`|}`), whose rest is kept (`|}}}`
    also closes a template)."""
    if "{|" not in markup:
        return markup
    kept, depth = [], 0
    for line in markup.split("\n"):
        if _TABLE_OPEN.match(line):
            depth += 1
            continue
        if depth and _TABLE_CLOSE.match(line):
            depth -= 1
            rest = line.split("|}", 1)[1]
            if depth == 0 and rest.strip():
                kept.append(rest)
            continue
        if depth == 0:
            kept.append(line)
    return "\n".join(kept)


def without_templates(markup: str) -> str:
    """The markup without its templates and parser functions, matched brace pair by brace pair
    (`}}}}` closes two): strip_code drops every template anyway, but mwparserfromhell sometimes
    closes one early (an infobox holding `{{nowrap|{{abbr|dd|day}}}}`, Armenian "Հնդկաստան") and
    leaves its other parameters as text. An opening never closed is left to the parser."""
    if "{{" not in markup:
        return markup
    kept, depth, last, start = [], 0, 0, 0
    for found in _BRACES_OR_CODE.finditer(markup):
        token = found.group(0)
        if token == "{{":
            if depth == 0:
                kept.append(markup[last : found.start()])
                start = found.start()
            depth += 1
        elif token == "}}" and depth:
            depth -= 1
            if depth == 0:
                last = found.end()
    kept.append(markup[start:] if depth else markup[last:])
    return "".join(kept)


def _without_groups(text: str, opening: re.Pattern) -> str:
    """`text` without the brace groups that `opening` starts (balanced: `{\\x {a} b}`)."""
    while (found := opening.search(text)) is not None:
        depth, end = 0, len(text)
        for index in range(found.start(), len(text)):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                end = index + 1
                break
        text = text[: found.start()] + text[end:]
    return text


def without_leftover_templates(text: str) -> str:
    """Templates and parser functions the parser left as text, innermost first; then what the
    source left unbalanced, which MediaWiki itself shows as text: an opening never closed
    (`{{lang-no|Sjøforsvaret))`: its `{{lang-no|` goes, the text stays) and a closing that closes
    nothing (`...համար։}}`, Armenian dump)."""
    for _ in range(20):  # nesting deeper than 20 is none of a real article's
        if "{{" not in text:
            break
        text, removed = _INNER_TEMPLATE.subn("", text)
        if not removed:
            break
    if "{\\" in text:
        text = _without_groups(text, _TEX_GROUP)
    if "{{" in text or "}}" in text:
        text = _UNCLOSED_TEMPLATE.sub("", text).replace("}}", "")
    return text


def without_leftover_links(text: str, link_namespaces: tuple[str, ...]) -> str:
    """File, image and category links the parser left as text: one nested in another in the
    source (`[[Category:[[Category:Celtic languages]]]]` leaves `[[Category:]]`, Armenian dump)."""
    if "[[" not in text:
        return text
    return re.sub(
        r"\[\[\s*:?\s*(?:" + "|".join(map(re.escape, link_namespaces)) + r")[^\[\]]*\]\]", "", text, flags=re.I
    )


def without_variants(markup: str) -> str:
    """Chinese Wikipedia's language-variant markup as the text one variant reads: `-{zh-hans:接;
    zh-hant:線}-` -> 接 (zh-hans, else zh-cn, else the first one given), `-{R|Linux}-` and
    `-{Linux}-` -> Linux; rules that show nothing (`-{H|...}-`, `-{-|...}-`, `-{T|...}-`) go.
    MediaWiki's LanguageConverter resolves them before the page is shown; left in, each is residue."""
    if "-{" not in markup:
        return markup
    return _VARIANT_BLOCK.sub(_variant_text, markup)


def _variant_text(found: re.Match) -> str:
    body = found.group(1)
    flags, bar, rest = body.partition("|")
    if bar and _VARIANT_FLAGS.fullmatch(flags):
        named = {flag.strip() for flag in flags.split(";")}
        if named & {"H", "-", "T"}:  # a rule for the page or its title: nothing shown here
            return ""
        if "R" in named:  # raw: shown as written
            return rest
        body = rest
    parts = [part.split(":", 1) for part in body.split(";") if _VARIANT_CODE.match(part)]
    if not parts:
        return body
    variants = {code.strip().lower(): text.strip() for code, text in parts}
    return variants.get("zh-hans") or variants.get("zh-cn") or parts[0][1].strip()


def is_image_link(node, link_namespaces: tuple[str, ...]) -> bool:
    """A link to a file, an image or a category: by its namespace, or, under a namespace name
    siteinfo does not list, by an image option among its parameters (thumb, 270px...)."""
    title = str(node.title).strip().lower().lstrip(":")
    if title.startswith(link_namespaces):
        return True
    if ":" not in title or node.text is None:
        return False
    return any(_IMAGE_OPTION.match(part) for part in str(node.text).split("|")[:-1] or [str(node.text)])


def plain_text(markup: str, link_namespaces: tuple[str, ...]) -> str:
    """The readable text of wikitext: mwparserfromhell's strip_code, applied node by node at every
    depth so that what strip_code keeps but readers never see goes: references, tables, file and
    category links (inside a tag too)."""
    import mwparserfromhell

    # Bold and italic quotes are left to the text: parsed as tags, one unbalanced '' (11 of gensim's
    # 106 articles have one) turns the rest of its paragraph into raw text, references and all.
    # Any run of 2+ goes: italics around a template, `''{{HMD}}''`, leave four quotes that taken
    # three then two left a line `'` (32 of the 65 lines of Ukrainian "Залежні території").
    markup = without_templates(without_tables(without_variants(without_comments(markup))))
    code = mwparserfromhell.parse(markup, skip_style_tags=True)
    text = _QUOTE_RUN.sub("", _readable(code, link_namespaces)).strip("\n")
    text = without_leftover_links(without_leftover_templates(text), link_namespaces)
    while "\n\n\n" in text:  # as strip_code collapses the blank lines its removals leave
        text = text.replace("\n\n\n", "\n\n")
    return text.strip()


def _readable(code, link_namespaces: tuple[str, ...]) -> str:
    from mwparserfromhell.nodes import Tag, Wikilink
    from mwparserfromhell.wikicode import Wikicode

    parts = []
    for node in code.nodes:
        if isinstance(node, Tag):
            if str(node.tag).strip().lower() not in HIDDEN_TAGS and node.contents is not None:
                parts.append(_readable(node.contents, link_namespaces))
        elif isinstance(node, Wikilink):
            if is_image_link(node, link_namespaces):
                continue
            # A link's text, read node by node too: an unclosed `[[a|b` swallows what follows it,
            # image links and references included (Greek "Αυστρία").
            if node.text is not None and not str(node.title).strip().startswith(":"):
                parts.append(_readable(node.text, link_namespaces))
            else:
                parts.append(Wikicode([node]).strip_code(collapse=False))
        else:
            parts.append(Wikicode([node]).strip_code(collapse=False))
    return "".join(parts)
