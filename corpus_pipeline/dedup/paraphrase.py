"""Labelled paraphrases for evaluating semantic dedup: rewritten copies of real documents that say
the same thing in other words or another order, which shingle methods (MinHash) miss by design.

A paraphrase is the original's sentences, shuffled (`reorder`), with a sixth of them (at least one)
left out (`drop`), or with every word of a small synonym table swapped for its synonym (`synonyms`);
`all` does the three at once. The tables are a few dozen frequent words of English, German and
Chinese (the languages of shared/data's web pages), written here: no thesaurus ships in a package
this project installs, and frequent words are what a rewrite changes first.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

KINDS = ("reorder", "drop", "synonyms", "all")


def _table(pairs: str) -> dict[str, str]:
    """`word=synonym word=synonym ...` -> {word: synonym}."""
    return dict(pair.split("=") for pair in pairs.split())


_SYNONYMS_EN = _table(
    "big=large small=little begin=start buy=purchase help=assist show=display use=utilize get=obtain "
    "make=create need=require important=significant many=numerous often=frequently also=additionally "
    "quickly=rapidly about=approximately enough=sufficient end=finish answer=reply choose=select "
    "people=individuals job=occupation house=home car=vehicle city=town world=globe problem=issue "
    "idea=notion way=method part=portion new=novel old=aged good=fine bad=poor easy=simple "
    "hard=difficult fast=swift very=extremely said=stated says=states told=informed think=believe "
    "want=wish give=provide keep=retain try=attempt find=discover enjoy=appreciate happy=glad "
    "sad=unhappy area=region country=nation company=firm money=funds children=kids "
    "however=nevertheless because=since but=yet maybe=perhaps almost=nearly whole=entire "
)
_SYNONYMS_DE = _table(
    "groß=riesig klein=winzig schnell=rasch oft=häufig auch=ebenfalls aber=jedoch sehr=äußerst "
    "gut=prima schlecht=übel einfach=leicht schwer=schwierig neu=neuartig alt=betagt "
    "beginnen=anfangen kaufen=erwerben helfen=unterstützen zeigen=präsentieren Menschen=Leute "
    "Stadt=Ort Auto=Wagen Haus=Gebäude Problem=Schwierigkeit Idee=Einfall Firma=Unternehmen "
    "Geld=Mittel Kinder=Kids vielleicht=eventuell fast=beinahe ganz=völlig wichtig=bedeutend "
    "viele=zahlreiche sagte=erklärte sagt=erklärt denken=glauben wollen=möchten geben=schenken "
    "finden=entdecken Land=Staat Weg=Pfad Ende=Schluss Antwort=Erwiderung wählen=auswählen jetzt=nun "
    "immer=stets bald=demnächst "
)
_SYNONYMS_ZH = _table(
    "但是=可是 非常=十分 今天=今日 现在=目前 已经=早已 因为=由于 所以=因此 开始=着手 帮助=协助 重要=关键 "
    "问题=难题 方法=办法 公司=企业 国家=国度 城市=都市 孩子=儿童 马上=立刻 如果=假如 认为=觉得 希望=盼望 "
    "发现=察觉 使用=运用 提供=给予 需要=需求 很多=许多 快速=迅速 简单=容易 美丽=漂亮 特别=格外 经常=常常"
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Paraphrase:
    original_id: str
    kind: str
    copy: dict


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def swap_synonyms(text: str) -> str:
    """Every word of the tables replaced by its synonym (a capital kept); Chinese by substring."""
    table = _SYNONYMS_EN | _SYNONYMS_DE

    def swapped(match: re.Match) -> str:
        word = match.group(0)
        synonym = table.get(word) or table.get(word.lower())
        if synonym is None:
            return word
        return synonym[0].upper() + synonym[1:] if word[0].isupper() else synonym

    text = _WORD.sub(swapped, text)
    for word, synonym in _SYNONYMS_ZH.items():
        text = text.replace(word, synonym)
    return text


def paraphrased(text: str, kind: str, rng: random.Random) -> str | None:
    """`text` rewritten by `kind`; None for a text of fewer than 3 sentences (nothing to reorder)."""
    parts = sentences(text)
    if len(parts) < 3:
        return None
    if kind in ("reorder", "all"):
        rng.shuffle(parts)
    if kind in ("drop", "all"):
        for _ in range(max(1, len(parts) // 6)):
            del parts[rng.randrange(len(parts))]
    joined = " ".join(parts)
    return swap_synonyms(joined) if kind in ("synonyms", "all") else joined


def plant_paraphrases(docs: list[dict], seed: int, share: float = 0.5) -> list[Paraphrase]:
    """A paraphrase (ids `<id>#<kind>`) of a seeded `share` of the documents, the kinds in turn."""
    rng = random.Random(seed)
    planted = []
    for doc in docs:
        if rng.random() >= share:
            continue
        kind = KINDS[len(planted) % len(KINDS)]
        text = paraphrased(doc["text"], kind, rng)
        if text is not None:
            planted.append(Paraphrase(doc["id"], kind, {**doc, "id": f"{doc['id']}#{kind}", "text": text}))
    return planted
