from __future__ import annotations

import pickle
import random
from itertools import islice

import ftfy
import pyarrow.parquet as pq
import pytest
import regex
from conftest import SHARED_DATA
from ftfy.badness import BADNESS_RE

from corpus_pipeline.document import empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.lifecycle import run_chain
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.normalize import mojibake
from corpus_pipeline.normalize.config import BoilerplateConfig, NormalizeConfig
from corpus_pipeline.normalize.mojibake import FTFY_CONFIG, fix_mojibake
from corpus_pipeline.normalize.stage import NormalizeStage, collapse_whitespace, remove_invisible
from corpus_pipeline.stages.base import Drop
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

PEOPLES_DAILY = SHARED_DATA / "text" / "zh_peoples_daily_199801.txt"

NFC = NormalizeStage()
NFKC = NormalizeStage(NormalizeConfig(unicode_form="NFKC"))
ONLY_UNICODE_FORM = {
    "fix_mojibake": False,
    "remove_invisible": False,
    "collapse_whitespace": False,
    "boilerplate": BoilerplateConfig(enabled=False),
}

ZH = "１９９８年１月１日，江泽民发表新年讲话《迈向充满希望的新世纪》。“一国两制”……"
JA = "東京の桜は三月末に満開になりました。カタカナとひらがなも、そのまま残ります。"
AR = "مرحبا بالعالم، هذا نص عربي للاختبار."
HI = "नमस्ते दुनिया, यह हिंदी पाठ है।"
FA = "می\u200cخواهم"
PBOC = "中国人民银行今日宣布下调存款准备金率。"  # "I want" in Persian: ZWNJ between the prefix and the verb


def run(stage: NormalizeStage, text: str):
    doc = empty_document(id="x", text=text)
    stats = StageStats("normalize")
    verdict = stage.process(doc, stats)
    return doc["text"], verdict, stats


def test_nfc_keeps_full_width_forms_nfkc_folds_them():
    nfc = NormalizeStage(NormalizeConfig(**ONLY_UNICODE_FORM))
    nfkc = NormalizeStage(NormalizeConfig(unicode_form="NFKC", **ONLY_UNICODE_FORM))
    assert run(nfc, "２０２６年")[0] == "２０２６年"
    assert run(nfkc, "２０２６年")[0] == "2026年"
    assert run(nfkc, "ＡＢＣｘｙｚ１２３")[0] == "ABCxyz123"
    assert run(nfkc, "中国\u3000人民")[0] == "中国 人民"  # ideographic space -> space
    assert run(nfc, "中国\u3000人民")[0] == "中国\u3000人民"
    # Canonical composition under both: e + combining acute -> é.
    assert run(nfc, "cafe\u0301")[0] == "caf\u00e9"
    text, _, stats = run(nfkc, "２０２６年")
    assert stats.extra["normalize"]["docs_changed_by_NFKC"] == 1


def test_full_pipeline_nfkc_folds_chinese_full_width_digits_and_punctuation():
    assert run(NFKC, "１２月３１日（新华社）")[0] == "12月31日(新华社)"


def test_mojibake_is_repaired():
    assert run(NFC, "â€œquotedâ€\x9d")[0] == "\u201cquoted\u201d"
    assert run(NFC, "CafÃ© rÃ©sumÃ©")[0] == "Café résumé"
    text, _, stats = run(NFC, "cafÃ©")
    assert text == "café" and stats.extra["normalize"]["docs_mojibake_fixed"] == 1


def test_mojibake_switch_off_leaves_it():
    off = NormalizeStage(NormalizeConfig(fix_mojibake=False))
    assert run(off, "cafÃ©")[0] == "cafÃ©"


def test_ftfy_only_repairs_it_does_not_restyle():
    # Curly quotes, HTML entities, ligatures and full-width letters are left to the config's choices.
    text = "\u201cQuoted\u201d l\u2019amour &amp; &lt;b&gt; \ufb01ne ＡＢＣ"
    assert fix_mojibake(text) == text
    assert run(NFC, text)[0] == text


def _mojibake_samples() -> list[str]:
    clean = [
        "café résumé naïve",
        "“smart quotes” — and…",
        "中文文本，测试。",
        "Привет, мир",
        "Ελληνικά",
        "emoji 👩\u200d💻 ok",
        "łódź żółć",
        "日本語のテキスト",
    ]
    out = []
    for text in clean:
        for encoding in ("latin-1", "cp1252", "cp1251", "mac_roman", "cp437", "cp1250"):
            try:
                out.append(text.encode("utf-8").decode(encoding))
            except UnicodeDecodeError:
                pass
    return out


def test_fix_mojibake_gives_exactly_ftfys_output(monkeypatch):
    assert mojibake._MOJIBAKE_SUSPECT is not None, "ftfy changed: fix_mojibake now runs ftfy on everything"
    controls = ["a\x85b\x93c", "\x1b[31mred\x1b[0m", "Ã \nÂ x", "\ud83d\ude00 \udc00"]
    samples = _mojibake_samples() + [ZH, JA, AR, HI, FA, *controls]
    for text in samples:
        assert fix_mojibake(text) == ftfy.fix_text(text, FTFY_CONFIG), repr(text)
    assert fix_mojibake("\x1b[31mred\x1b[0m") == "red"
    # Documents of clean and broken lines: only the broken lines go through ftfy, the others are
    # copied, and the result is ftfy's on the whole document.
    rng = random.Random(5)
    lines = samples + ["plain ASCII", "", "Übergröße für Straßen", "50 € · 20 £", "“quoted”", "Ã", "Â"]
    docs = ["".join(rng.choice(lines) + rng.choice(["\n", "\r\n", "\n\n", ""]) for _ in range(8)) for _ in range(300)]
    for text in docs:
        assert fix_mojibake(text) == ftfy.fix_text(text, FTFY_CONFIG), repr(text)
    # A line longer than max_decode_length is fixed by ftfy in pieces of that length from the line's
    # start; a mojibake pair cut in two by a piece boundary stays broken, here as in ftfy.
    short = FTFY_CONFIG._replace(max_decode_length=7)
    monkeypatch.setattr(mojibake, "FTFY_CONFIG", short)
    for text in ["cafÃ© rÃ©sumÃ© naÃ¯ve\nxÃ©", "abcdefÃ©ghijklmnÃ©\n\nÃ©Ã©Ã©Ã©", *docs[:100]]:
        assert fix_mojibake(text) == ftfy.fix_text(text, short), repr(text)


def test_ftfy_leaves_alone_every_segment_without_a_suspect_match():
    # What makes fix_mojibake exact: in any string in which ftfy's badness regex matches, or that
    # holds an ESC, a C1 control or a surrogate, the suspect regex finds a match. Random strings of
    # the characters the badness regex is made of, plus ASCII and CJK.
    chars = {chr(c) for c in [*range(0x20, 0x7F), *range(0xA0, 0x250), *range(0x370, 0x460)]}
    chars |= set("\n\t\x1b\x85\x9d\ud800中。“”‘’—–…•€£™√≈‚ЂўΒΓΞΟβ│┌═▀░")
    chars |= {chr(c) for c in range(0x2010, 0x2030)} | {chr(c) for c in range(0x2500, 0x2520)}
    alphabet = sorted(chars)
    suspect = mojibake._MOJIBAKE_SUSPECT
    rng = random.Random(7)
    bad = 0
    for _ in range(60000):
        text = "".join(rng.choices(alphabet, k=rng.randint(1, 6)))
        if BADNESS_RE.search(text) or regex.search("[\x1b\x80-\x9f\ud800-\udfff]", text):
            bad += 1
            assert suspect.search(text), repr(text)
    assert bad > 3000
    for _ in range(3000):
        text = "".join(rng.choices(alphabet, k=rng.randint(1, 12)))
        if not suspect.search(text):
            assert ftfy.fix_text(text, FTFY_CONFIG) == text, repr(text)
    # And it is selective: clean accented, Cyrillic, Greek, Chinese text and typography pass.
    for clean in ["Übergröße für Straßen, café résumé", "Привет, мир", "Ελληνικά", ZH, "“smart” ‘quotes’ — …"]:
        assert not suspect.search(clean), clean


def test_controls_and_invisible_characters_are_removed():
    text = "a\u200bb\ufeffc\u00add\u2060e \u202eevil\u202c \u2066iso\u2069 \u200eltr\u200f\x00\x07\x1b\x7f\x9d!"
    assert remove_invisible(text) == ("abcde evil iso ltr!", 15)
    out, _, stats = run(NFC, text)
    assert out == "abcde evil iso ltr!"
    assert stats.extra["normalize"]["invisible_chars_removed"] == 15


def test_zwj_zwnj_and_variation_selectors_are_kept():
    england = "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # a tag sequence
    text = f"coder 👩\u200d💻 love ❤\ufe0f flag {england} {FA}"
    assert run(NFC, text)[0] == text


def test_invisible_removal_comes_before_composition():
    # A zero-width space between e and its accent blocks NFC; removed first, the pair composes.
    assert run(NFC, "caf e\u200b\u0301")[0] == "caf \u00e9"


def test_remove_invisible_switch_off_keeps_them():
    off = NormalizeStage(NormalizeConfig(remove_invisible=False))
    assert run(off, "a\u200bb")[0] == "a\u200bb"


def test_whitespace_collapses_and_paragraph_breaks_survive():
    text = (
        "  Title \t here  \r\n\r\n\r\n\r\nPara\u00a0one\u3000\u3000end.\r\nline two\u2028line three\n"
        " \n\t\n\nLast\u2029paragraph  "
    )
    expected = "Title here\n\nPara one end.\nline two\nline three\n\nLast\n\nparagraph"
    assert collapse_whitespace(text) == expected
    out, _, stats = run(NFC, text)
    assert out == expected
    assert stats.extra["normalize"]["whitespace_chars_removed"] == len(text) - len(expected)


def test_whitespace_collapse_is_every_run_to_one_space():
    # The two-pass collapse against its definition: each maximal run of horizontal whitespace
    # becomes one space, then lines are trimmed and blank lines squeezed.
    spaces = " \t\x1c\x1f\xa0\u1680\u2000\u200a\u202f\u205f\u3000"
    run_of_spaces = regex.compile(f"[{spaces}]+")

    def reference(text: str) -> str:
        lines = [run_of_spaces.sub(" ", line).strip(spaces) for line in text.split("\n")]
        return regex.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()

    rng = random.Random(3)
    for _ in range(20000):
        text = "".join(rng.choices(spaces + "ab\n", k=rng.randint(0, 12)))
        assert collapse_whitespace(text) == reference(text), repr(text)


def test_a_line_of_invisible_characters_becomes_a_blank_line():
    assert run(NFC, "one\n\u200b\u200b\n\n\ntwo")[0] == "one\n\ntwo"


def test_collapse_switch_off_keeps_whitespace():
    off = NormalizeStage(NormalizeConfig(collapse_whitespace=False))
    assert run(off, "a  b\r\n\n\n\nc")[0] == "a  b\r\n\n\n\nc"


def test_cjk_text_without_spaces_is_unchanged_byte_for_byte():
    text = ZH + "\n" + JA
    out, verdict, stats = run(NFC, text)
    assert verdict is None
    assert out.encode("utf-8") == text.encode("utf-8")
    assert "normalize" not in stats.extra  # nothing to fix, count or remove


def test_cjk_spacing_is_never_added_or_removed():
    # One space stays one space; no space is inserted between Han and Latin characters.
    assert run(NFC, "使用 Python 和Spark处理数据")[0] == "使用 Python 和Spark处理数据"


@pytest.mark.parametrize("text", [ZH, JA, AR, HI, FA, "Ελληνικά κείμενα", "Привет, мир", "한국어 문장."])
def test_scripts_survive(text):
    assert run(NFC, text)[0] == text


def test_lone_surrogates_do_not_crash():
    out, verdict, stats = run(NFC, "abc\ud800def \ud83d\ude00")
    assert verdict is None
    assert out == "abc\ufffddef \U0001f600"  # a pair becomes the character it encodes
    out.encode("utf-8")  # would raise on a surrogate
    assert stats.extra["normalize"]["docs_with_lone_surrogates"] == 1
    # With every step off, the surrogate still goes.
    bare = NormalizeStage(NormalizeConfig(**ONLY_UNICODE_FORM))
    assert run(bare, "x\udc80y")[0] == "x\ufffdy"


def test_boilerplate_lines_are_removed_and_counted_per_rule():
    text = (
        "Cookies are a traditional snack in many countries.\n"
        "This website uses cookies to improve your experience.\n\n"
        f"{PBOC}\n"
        "本网站使用cookie以提升体验\n\n"
        "Privacy\u00a0Policy"
    )  # NBSP: matches `^privacy policy$` once whitespace is collapsed
    out, verdict, stats = run(NFC, text)
    assert verdict is None
    assert out == "Cookies are a traditional snack in many countries.\n\n" + PBOC
    assert stats.extra["boilerplate_lines_removed"] == {"cookie_banner": 1, "zh_boilerplate": 1, "footer_links": 1}


def test_boilerplate_sees_nfkc_text():
    # Full-width letters match the ASCII patterns once NFKC has folded them.
    assert run(NFKC, "Body text.\nＰｒｉｖａｃｙ Ｐｏｌｉｃｙ")[0] == "Body text."
    assert run(NFC, "Body text.\nＰｒｉｖａｃｙ Ｐｏｌｉｃｙ")[0] == "Body text.\nＰｒｉｖａｃｙ Ｐｏｌｉｃｙ"


def test_word_count_rule_does_not_drop_chinese_lines():
    stage = NormalizeStage(NormalizeConfig(boilerplate=BoilerplateConfig(min_words_per_line=3)))
    out, _, stats = run(stage, f"Home\n\n{PBOC}\n关于我们\nThe council met on Tuesday.")
    assert out == f"{PBOC}\n关于我们\nThe council met on Tuesday."
    assert stats.extra["boilerplate_lines_removed"] == {"min_words": 1}


@pytest.mark.parametrize("text", ["", " \n\t\u3000 ", "\u200b\ufeff\u00ad", "Privacy Policy\n\nTerms of Use"])
def test_empty_result_is_dropped_with_the_reason(text):
    doc = empty_document(id="x", text=text)
    verdict = NFC.process(doc, StageStats("normalize"))
    assert verdict.reason == "empty_after_normalize"
    assert verdict.detail.startswith("0 characters left")
    assert doc["text"] == text  # the rejected row shows what the page held


def test_min_chars_threshold():
    stage = NormalizeStage(NormalizeConfig(min_chars=10))
    assert run(stage, "  short  ")[1] == Drop("empty_after_normalize", "5 characters left of 9, min_chars=10")
    assert run(stage, "ten chars!")[1] is None


def test_missing_text_is_dropped_not_crashed():
    doc = empty_document(id="x", text=None)
    assert NFC.process(doc, StageStats("normalize")).reason == "empty_after_normalize"


def test_stage_pickles_with_its_compiled_patterns():
    copy = pickle.loads(pickle.dumps(NFKC))
    assert copy.config == NFKC.config
    assert run(copy, "２０２６年\nPrivacy Policy")[0] == "2026年"


def test_fingerprint_names_the_config_and_the_libraries():
    fingerprint = NFC.config_fingerprint()
    assert "unicode_form='NFC'" in fingerprint and f"ftfy={ftfy.__version__}" in fingerprint
    assert NFC.config_fingerprint() != NFKC.config_fingerprint()


def test_runs_through_the_task_runner(tmp_path):
    rows = [
        empty_document(id="a", text="â€œquotedâ€\x9d  text\r\n\r\n\r\nPrivacy Policy"),
        empty_document(id="b", text="２０２６年\u3000新年"),
        empty_document(id="c", text="\u200b \n "),
    ]
    source = publish_rows(tmp_path / "input", [rows])
    stats = run_chain([NFKC], source, [tmp_path / "normalize"], LocalExecutor(), storage=Storage())[0].stats
    assert (stats.docs_in, stats.kept, dict(stats.dropped)) == (3, 2, {"empty_after_normalize": 1})
    kept = pq.read_table(tmp_path / "normalize" / "part-00000.parquet").to_pylist()
    assert [(r["id"], r["text"]) for r in kept] == [("a", "\u201cquoted\u201d text"), ("b", "2026年 新年")]
    rejected = pq.read_table(tmp_path / "normalize" / "_rejected" / "reason=empty_after_normalize")
    assert rejected.column("id").to_pylist() == ["c"]
    assert stats.extra["boilerplate_lines_removed"] == {"footer_links": 1}


@pytest.fixture(scope="module")
def peoples_daily() -> str:
    if not PEOPLES_DAILY.exists():
        pytest.skip(f"real data not available: {PEOPLES_DAILY} is absent (see ../shared/data/README.md)")
    with PEOPLES_DAILY.open(encoding="utf-8") as stream:
        return "".join(islice(stream, 2000))


HAN = regex.compile(r"\p{Han}")
FULL_WIDTH_DIGIT = regex.compile("[０-９]")
ASCII_DIGIT = regex.compile("[0-9]")


@pytest.mark.realdata
def test_peoples_daily_keeps_every_han_character_under_nfc(peoples_daily):
    out, verdict, _ = run(NFC, peoples_daily)
    assert verdict is None
    assert len(HAN.findall(peoples_daily)) > 50_000
    assert HAN.findall(out) == HAN.findall(peoples_daily)  # same characters, same order
    assert len(FULL_WIDTH_DIGIT.findall(out)) == len(FULL_WIDTH_DIGIT.findall(peoples_daily)) > 1000
    # Paragraphs are lines there: every non-empty line survives (no boilerplate, no word rule).
    assert out.split("\n") == [line.strip() for line in peoples_daily.strip().split("\n") if line.strip()]


@pytest.mark.realdata
def test_peoples_daily_full_width_digits_fold_under_nfkc(peoples_daily):
    out, verdict, _ = run(NFKC, peoples_daily)
    assert verdict is None
    full_width = len(FULL_WIDTH_DIGIT.findall(peoples_daily))
    assert FULL_WIDTH_DIGIT.findall(out) == []
    assert len(ASCII_DIGIT.findall(out)) == len(ASCII_DIGIT.findall(peoples_daily)) + full_width
    assert HAN.findall(out) == HAN.findall(peoples_daily)
