"""Build the two lexicon-derived spam lists shipped in corpus_pipeline/quality/data from their
licensed sources, by written rules, filtered against ordinary Chinese text.

    python benchmarks/build_spam_lexicons.py --toolgood IllegalKeywords.txt \
        --sensitive 色情类型.txt 色情词库.txt [--data ../shared/data]

Sources (clone them yourself; nothing here downloads):
- toolgood/ToolGood.Words (Apache-2.0), commit 33019cd,
  csharp/ToolGood.Words.Test/_Illegal/IllegalKeywords.txt (10,224 entries, uncategorised);
- konsheng/Sensitive-lexicon (MIT), commit 5a8da94, Vocabulary/色情类型.txt and 色情词库.txt.

Rules:
- spam_operator_phrases_zh.txt: ToolGood entries naming a gambling operation (GAMBLING_ROOTS), not
  a news sentence or another trade (NOT_GAMBLING), of 4+ characters. One such phrase in a page is
  spam (quality.spam's `spam_operator_terms`).
- spam_terms_adult_zh.txt: Sensitive-lexicon adult entries with 2+ Han characters and no Latin
  letter (BT, SM, 3P are ordinary abbreviations), leaving out what ordinary pages say for other
  reasons (NOT_ADULT: anatomy that health pages name, insults that forums use, drugs that news
  reports, everyday words such as 美腿 or 寂寞). They count toward `spam_term_density`.
Both drop every entry found in ordinary Chinese text: the People's Daily articles of January 1998
and lingua's 729 Leipzig zh sentences (shared/data), so a term that ordinary news uses is out.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from common import DATA, REPO

OUT = REPO / "corpus_pipeline" / "quality" / "data"
GAMBLING_ROOTS = re.compile(
    "娱乐城|娱乐场|现金网|投注|下注|博彩|赌钱|赌球|赌城|赌场|棋牌|彩金|轮盘|六合彩|百家乐|真人娱乐|真人现金|时时彩|老虎机"
)
NOT_GAMBLING = re.compile("股民|人民币|肥皂剧|沪深|政府|球队|大揭秘|热线|下注证")
NOT_ADULT = re.compile(
    "乳头|乳房|阴部|阴茎|阴道|阴毛|阴唇|子宫|睾丸|肛门|避孕|他妈|他吗|你吗|你妈|麻痹|人渣|贱|傻|煞笔|妈的|"
    "混蛋|白痴|卧槽|我操|我草|我日|干死|干你|全家|狗日|狗娘|狗杂种|狗操|狗草|沙比|刹笔|娘西皮|操你|草你|艹你|逼|"
    "精液|射精|处男|体位|"
    "摇头丸|迷魂|迷幻|美腿|美女|一丝不挂|寂寞|爱女人|男公关|丝袜|内衣|按摩|性感|裸体|亲吻|接吻|"
    "自拍|脱光|花花公子|舞女|猛男|发生关系|色界|咪咪|人妻|熟女|粉嫩|裤袜"
)
HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[a-zA-Z]")


def entries(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ordinary_text(data: Path) -> str:
    sentences = (data / "langid" / "sentences" / "zh.txt").read_text(encoding="utf-8")
    return (data / "text" / "zh_peoples_daily_199801.txt").read_text(encoding="utf-8") + sentences


def write(path: Path, header: str, terms: list[str]) -> None:
    path.write_text(header + "".join(f"{term}\n" for term in terms), encoding="utf-8")
    print(f"{path.name}: {len(terms)} entries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolgood", type=Path, required=True, help="IllegalKeywords.txt")
    parser.add_argument("--sensitive", type=Path, nargs="+", required=True, help="色情类型.txt 色情词库.txt")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    ordinary = ordinary_text(args.data)

    def unused(term: str) -> bool:
        return term not in ordinary

    gambling = sorted(
        {
            t.lower()
            for t in entries(args.toolgood)
            if GAMBLING_ROOTS.search(t) and not NOT_GAMBLING.search(t) and len(t) >= 4 and unused(t)
        }
    )
    adult = sorted(
        {
            t.lower()
            for path in args.sensitive
            for t in entries(path)
            if len(HAN.findall(t)) >= 2 and not LATIN.search(t) and not NOT_ADULT.search(t) and unused(t)
        }
    )
    source = "# Built by benchmarks/build_spam_lexicons.py (its docstring: the rules); do not edit by hand.\n"
    write(
        OUT / "spam_operator_phrases_zh.txt",
        source + "# Gambling-operator phrases from toolgood/ToolGood.Words (Apache-2.0, LICENSE-ToolGood.Words.txt),\n"
        "# commit 33019cd, csharp/ToolGood.Words.Test/_Illegal/IllegalKeywords.txt.\n",
        gambling,
    )
    write(
        OUT / "spam_terms_adult_zh.txt",
        source + "# Adult terms from konsheng/Sensitive-lexicon (MIT, LICENSE-Sensitive-lexicon.txt), commit 5a8da94,\n"
        "# Vocabulary/色情类型.txt and Vocabulary/色情词库.txt.\n",
        adult,
    )


if __name__ == "__main__":
    main()
