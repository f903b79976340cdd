"""A labelled junk set, generated (seeded): the page debris a quality stage must reject.

Seven kinds, each in English and Chinese: navigation menus, link lists, repeated lines, lorem
ipsum, keyword spam, cookie notices and tables of numbers. Each document varies in length and
content with the seed, so the rules are tested on a spread, not on one string per kind.
"""

from __future__ import annotations

import random

MENU = {
    "en": "Home|About Us|Products|Services|Solutions|Blog|News|Careers|Contact|FAQ|Login|Sign up|Shop|Cart|"
    "Support|Pricing|Partners|Press|Events|Resources|Newsletter|Terms|Sitemap|Downloads|Gallery|Our Team|"
    "Men's Shoes|Women's Clothing|Kids|Sale|New Arrivals|Gift Cards|Store Locator|Help Center|My Account",
    "zh": "首页|关于我们|产品中心|新闻动态|解决方案|客户案例|服务支持|人才招聘|联系我们|在线留言|下载中心|企业文化|"
    "公司简介|荣誉资质|网站地图|行业资讯|公司新闻|常见问题|售后服务|合作伙伴|投资者关系|会员中心|登录|注册|购物车",
}
TITLES = {
    "en": "10 Best Hotels in {x} for 2024|How to Fix a Leaky {x}|Why {x} Prices Keep Rising|"
    "The Ultimate Guide to {x}|{x} Review and Buying Guide|Top 5 {x} Deals This Week|What Nobody Tells You About {x}",
    "zh": "{x}最新价格表|{x}十大品牌排行榜|如何选择{x}|{x}使用技巧大全|{x}行业发展报告|{x}常见问题解答|{x}价格一览",
}
TOPICS = {
    "en": "Paris|Faucet|Coffee|Laptops|Running Shoes|Solar Panels|Mortgages|Dog Food|Headphones|Garden Tools",
    "zh": "空调|手机|笔记本电脑|装修|保险|汽车|奶粉|净水器|二手房|茶叶",
}
SENTENCES = {
    "en": "Click here to see our latest offers and discounts.|This product is available in all our stores.|"
    "Subscribe to our newsletter for weekly updates.|Free shipping on all orders over fifty dollars.",
    "zh": "点击这里查看最新优惠活动。|本产品在所有门店均有销售。|"
    "订阅我们的新闻通讯获取每周更新。|订单满五十元即可免运费。",
}
LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
    "dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex "
    "ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat "
    "nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit "
    "anim id est laborum."
)
SPAM = {
    "en": "cheap viagra|buy cialis online|online casino|casino bonus|free spins|no deposit bonus|payday loans|"
    "replica watches|hot singles|online pharmacy|sports betting|jackpot slots|best price|buy now|discount|"
    "top rated|order today|fast delivery",
    "zh": "六合彩|时时彩|百家乐|网上赌场|真人娱乐|博彩|网络赌博|棋牌游戏|老虎机|代开发票|高利贷|信用卡套现|"
    "最新|官方网站|免费注册|注册送|首存优惠|立即下载",
}
COOKIE = {
    "en": [
        "We use cookies to improve your experience on our website. By continuing to browse, you agree to our "
        "use of cookies.",
        "Accept all cookies",
        "Reject all",
        "Cookie settings",
        "Manage preferences",
        "Strictly necessary cookies",
        "Performance cookies",
        "Functional cookies",
        "Targeting cookies",
        "Privacy Policy",
        "Cookie Policy",
        "Save and close",
    ],
    "zh": [
        "本网站使用cookie来改善您的浏览体验。继续浏览即表示您同意我们使用cookie。",
        "接受全部cookie",
        "拒绝",
        "cookie设置",
        "管理偏好",
        "必要cookie",
        "性能cookie",
        "功能cookie",
        "广告cookie",
        "隐私政策",
        "保存并关闭",
    ],
}
COOKIE_EXPLAINED = {
    "en": ": these cookies help us understand how visitors use the website and to improve our services. "
    "You can change your cookie preferences at any time in the cookie settings.",
    "zh": "：这些cookie帮助我们了解访问者如何使用本网站，以改进我们的服务。您可以随时在cookie设置中更改您的偏好。",
}
KINDS = ("menu", "link_list", "repeated_lines", "lorem_ipsum", "keyword_spam", "cookie_notice", "number_table")


def _pick(rng: random.Random, options: str, count: int) -> list[str]:
    items = options.split("|")
    return [rng.choice(items) for _ in range(count)]


def _document(kind: str, language: str, rng: random.Random) -> str:
    if kind == "menu":  # a mega menu: sections of links, items reappearing under several
        items = MENU[language].split("|")
        return "\n".join(item for _ in range(rng.randint(2, 5)) for item in rng.sample(items, rng.randint(8, 20)))
    if kind == "link_list":
        titles = [rng.choice(TITLES[language].split("|")).format(x=rng.choice(TOPICS[language].split("|")))
                  for _ in range(rng.randint(15, 40))]  # fmt: skip
        bullet = rng.choice(["» ", "• ", "", "- "])
        return "\n".join(bullet + title for title in titles)
    if kind == "repeated_lines":
        lines = SENTENCES[language].split("|")
        return "\n".join(rng.choice(lines[:2]) for _ in range(rng.randint(10, 40)))
    if kind == "lorem_ipsum":
        return "\n\n".join(LOREM for _ in range(rng.randint(1, 6)))
    if kind == "keyword_spam":
        separator = " " if language == "en" else rng.choice(["", " ", "，"])
        return "\n".join(
            separator.join(_pick(rng, SPAM[language], rng.randint(6, 14))) for _ in range(rng.randint(5, 20))
        )
    if kind == "cookie_notice":  # a banner, or a consent dialog that explains each category
        lines = COOKIE[language]
        buttons = rng.sample(lines[1:], rng.randint(3, len(lines) - 1))
        if rng.random() < 0.5:
            return "\n".join([lines[0], *buttons])
        return "\n".join([lines[0], *(f"{b}{COOKIE_EXPLAINED[language]}" for b in buttons)])
    # number_table
    header = "Year | Revenue | Cost | Margin | Growth" if language == "en" else "年份 | 收入 | 支出 | 利润率 | 增长"
    rows = [
        " | ".join([str(2000 + i)] + [f"{rng.uniform(0, 999):.1f}" for _ in range(4)])
        for i in range(rng.randint(8, 30))
    ]
    return "\n".join([header, *rows])


def junk_documents(seed: int = 0, per_kind: int = 15) -> list[tuple[str, str, str]]:
    """(kind, language, text) for `per_kind` documents of each kind and language."""
    rng = random.Random(seed)
    return [
        (kind, language, _document(kind, language, rng))
        for kind in KINDS
        for language in ("en", "zh")
        for _ in range(per_kind)
    ]
