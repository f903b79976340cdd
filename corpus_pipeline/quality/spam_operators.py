"""The spam signals that see real hijacks (issue 36): a betting operator named anywhere in the
page, and the line shapes of a link farm. spam.py computes them with its one automaton's matches.

Real hijacked pages splice the operator into the body as well as the title ("王者威尼斯人现金网网址：
宜春市…", "yabo手机版登录:冻生开杂色蛤肉"), so "a title term the body never names" misses them, and
one or two mentions stay under spam_term_density's minimum. What names an operator here:
- a phrase of the operator trade from ToolGood.Words' lexicon (`spam_operator_phrases_zh.txt`:
  `澳门金沙娱乐城`, `皇冠现金网`, `足球投注`), anywhere;
- a listed brand (`spam_brands.txt`) followed by a word of the trade (`威尼斯人现金网`, `yabo手机版
  登录`, `必威betway中文版`), anywhere; a news report names a firm without selling its app;
- a listed brand written in Han characters alone in the first HEAD_LINES lines, whatever the body
  says: where the title is (the first line is often a menu, not the title). Latin brands need the
  trade word: English news names bookmakers in headlines ("William Hill profits fall");
- an unlisted name of 2-4 Han characters with a betting-trade head and a sales tail (`某某国际
  现金网`, `xx体育app下载`), or any name before 现金网 (`_UNLISTED`): the operators outnumber any
  list.
`spam_operator_terms` counts the distinct names so found.

Link farms made by SEO tools list entries as lines: a date alone (`2020-06-19`), a CMS's
`发布时间：… | 来源：…` line (an address alone is spam_link_line_frac's). `spam_listing_line_frac`
is their share of the non-empty lines.
"""

from __future__ import annotations

import re

HEAD_LINES = 3
# What follows an operator's name where it sells itself (a brand's own words may come first).
_TRADE_WORDS = "|".join(
    ("现金网", "备用网址", "网址", "手机版登录", "手机版", "中文版", "官网", "官方网站", "登录", "登陆")
    + ("注册", "开户", "下载", "投注", "入口", "客户端", "网页版", "平台")
)
_AFTER_BRAND = re.compile(rf"(?:app|体育|娱乐|国际|官方|[a-z]+)?\s*(?:{_TRADE_WORDS})")
# An unlisted operator: a short name, a betting-trade head, a sales tail that ordinary sports and
# lottery news does not use (`体育官网` alone is a broadcaster's too).
_UNLISTED_TAILS = "|".join(
    ("现金网", "备用网址", "网址", "手机版登录", "官网登录", "登录入口", "官网入口", "开户", "注册送", "投注网")
    + ("网页版登录", "app下载", "客户端下载", "平台登录")
)
_UNLISTED_HEADS = "娱乐|体育|国际|棋牌|真人|电竞"
# 现金网 ("cash network") is the betting trade's own word, whatever name comes before it; 现金网点
# (a bank's cash outlets) is not.
_UNLISTED = re.compile(
    rf"[\u4e00-\u9fff]{{2,4}}(?:{_UNLISTED_HEADS})(?:app|平台|官方)?(?:{_UNLISTED_TAILS})|[\u4e00-\u9fff]{{2,4}}现金网(?!点)"
)
_UNLISTED_HINT = re.compile(_UNLISTED_TAILS)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_DATE = r"\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?"
_LISTING_LINE = re.compile(
    rf"{_DATE}|.{{0,40}}(?:发布时间|发表时间|时间|日期)[:：].{{0,40}}[|｜丨].{{0,30}}(?:来源|作者|浏览|点击)[:：].*"
)


def head_end(lower: str) -> int:
    """Offset just past the first HEAD_LINES non-empty lines."""
    seen = position = 0
    while seen < HEAD_LINES:
        newline = lower.find("\n", position)
        if newline < 0:
            return len(lower)
        seen += bool(lower[position:newline].strip())
        position = newline + 1
    return position


def operator_terms(lower: str, phrases: list[str], brands: list[tuple[int, int, str]]) -> int:
    """Distinct operator names: `phrases` (the lexicon's, as found), `brands` ((start, end, brand)
    of the listed brands found) when followed by a trade word or in the head, unlisted names."""
    names = set(phrases)
    if brands:
        head = head_end(lower)
        names.update(
            brand
            for start, end, brand in brands
            if (start < head and _HAN.search(brand)) or _AFTER_BRAND.match(lower, end)
        )
    if _UNLISTED_HINT.search(lower):
        names.update(match.group() for match in _UNLISTED.finditer(lower))
    return len(names)


def listing_line_frac(lines: list[str], min_lines: int) -> float | None:
    """Share of the (stripped, non-empty) lines that are a link farm's entries; None under min_lines."""
    if len(lines) < min_lines:
        return None
    return sum(_LISTING_LINE.fullmatch(line.lower()) is not None for line in lines) / len(lines)
