"""The `encyclopedia` rule set on articles in the shapes the real Vietnamese, Japanese and Ukrainian
dumps drop as web pages (benchmarks/wiki_residue.py): each is kept as an article and dropped, by
the web rule that the rule set changes, once that rule is set back; stubs and copied blocks are
still dropped."""

from __future__ import annotations

from corpus_pipeline.document import empty_document
from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.keep_rules import DEFAULT_QUALITY_RULES
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats

# Vietnamese prose naming its institutions, of 5 to 7 syllables (each a unit, as Vietnamese is
# written), again and again, as "Tòa án Công lý Quốc tế" does (0.226 of its characters in
# duplicated 5-grams against the web's 0.15).
VI_COURT = (
    "Tòa án Công lý Quốc tế là cơ quan tư pháp chính của Liên Hợp Quốc, đặt trụ sở tại Cung Hòa Bình ở La Hay. "
    "Tòa án Công lý Quốc tế được thành lập năm 1945 theo Hiến chương Liên Hợp Quốc, kế thừa Tòa án Thường trực "
    "Công lý Quốc tế của Hội Quốc Liên.\n\n"
    "Các thẩm phán do Đại Hội đồng Liên Hợp Quốc và Hội đồng Bảo an Liên Hợp Quốc bầu ra với nhiệm kỳ chín năm. "
    "Một ứng viên phải được đa số tuyệt đối ở cả Đại Hội đồng Liên Hợp Quốc lẫn Hội đồng Bảo an Liên Hợp Quốc.\n\n"
    "Trước đó, Tòa án Thường trực Công lý Quốc tế đã xét xử hai mươi chín vụ kiện giữa các quốc gia. "
    "Theo Hiến chương Liên Hợp Quốc, mọi thành viên đều mặc nhiên là thành viên của quy chế tòa án, và phán quyết "
    "của tòa có tính ràng buộc với các bên tranh chấp, không có quyền kháng cáo."
)
# Japanese prose naming its subject and the treaties (5 to 10 characters, each a unit) again and
# again, as 著作権の保護期間 does (0.505 against the zh/ja bound 0.35).
JA_COPYRIGHT = (
    "著作権の保護期間とは、著作権の発生から消滅までの期間をいう。具体的な期間は各国の国内法令に委ねられているが、"
    "今日では著作者の死後七十年とする国が多数である。\n\n"
    "文学的及び美術的著作物の保護に関するベルヌ条約は、著作権の保護期間として著作者の死後五十年を原則としている。"
    "ベルヌ条約の加盟国は、これを下回る期間を定めることができない。万国著作権条約は、著作者の死後二十五年を最低とした。\n\n"
    "日本では二〇一八年の改正により、著作権の保護期間が著作者の死後七十年に延長された。"
    "文学的及び美術的著作物の保護に関するベルヌ条約と万国著作権条約の双方に加盟する国では、ベルヌ条約が優先される。"
    "著作権の保護期間が満了した著作物は公有となり、著作者の死後七十年を過ぎた作品は誰でも自由に利用できる。"
    "文学的及び美術的著作物の保護に関するベルヌ条約の加盟国では、著作権の保護期間が満了した著作物も公有となる。"
)


def verdict(text: str, language: str, config: QualityConfig | None = None, domain: str = "encyclopedia"):
    doc = empty_document(id="a", text=text, url=None, domain=domain)
    doc["language"] = language
    return QualityStage(config).process(doc, StageStats("quality"))


def web_rule_back(name: str) -> QualityConfig:
    """The encyclopedia rule set with the web's rule `name` (its bounds, or turned on) back."""
    web = DEFAULT_QUALITY_RULES[name]
    patch = {"enabled": True, "max": web["max"]} if web["max"] is not None else {"enabled": True}
    if web["by_language"]:
        patch["by_language"] = web["by_language"]
    return QualityConfig(rules_by_domain={"encyclopedia": {name: patch}})


def test_a_vietnamese_year_article_with_month_headings_under_each_section_is_kept():
    # "1954": the months repeat as headings under events, births and deaths (0.025 of the
    # characters in repeated lines, FineWeb's bound 0.01).
    events = [
        "Tại Anh, xảy ra tai nạn hàng không của máy bay Comet gần đảo Elba.",
        "Hoa Kỳ hạ thủy chiếc tàu ngầm nguyên tử đầu tiên mang tên Nautilus.",
        "Liên Xô mở cửa nhà máy điện hạt nhân thương mại đầu tiên ở Obninsk.",
        "Hội nghị Genève về Đông Dương khai mạc với đại diện của chín phái đoàn.",
        "Roger Bannister chạy một dặm Anh dưới bốn phút tại Oxford.",
        "Chiến dịch Điện Biên Phủ kết thúc sau năm mươi sáu ngày đêm.",
        "Đội tuyển Tây Đức vô địch giải bóng đá thế giới tổ chức ở Thụy Sĩ.",
        "Quân đội Pháp rút khỏi Hà Nội theo thỏa thuận đình chiến đã ký.",
        "Bộ phim Bảy võ sĩ đạo của Kurosawa ra mắt khán giả Nhật Bản.",
        "Hãng Texas Instruments giới thiệu chiếc radio bán dẫn bỏ túi.",
        "Ernest Hemingway nhận giải Nobel Văn học cho toàn bộ sự nghiệp.",
        "Thượng viện Mỹ thông qua nghị quyết khiển trách thượng nghị sĩ McCarthy.",
        "Henri Matisse, họa sĩ người Pháp, qua đời ở Nice.",
        "Enrico Fermi, nhà vật lý người Ý, mất tại Chicago vì bệnh ung thư.",
        "Alan Turing, nhà toán học người Anh, mất tại Wilmslow.",
        "Frida Kahlo, nữ họa sĩ México, qua đời ở Coyoacán.",
        "Charles Ives, nhà soạn nhạc Hoa Kỳ, mất tại New York.",
        "Auguste Lumière, người đồng phát minh máy chiếu phim, mất ở Lyon.",
        "Wilhelm Furtwängler, nhạc trưởng người Đức, qua đời ở Baden-Baden.",
        "Colette, nữ văn sĩ Pháp, được cử hành quốc tang tại Paris.",
        "Getúlio Vargas, tổng thống Brasil, mất tại dinh Catete.",
        "Lionel Barrymore, diễn viên Hoa Kỳ, qua đời ở Los Angeles.",
        "Glenn Warner, huấn luyện viên bóng bầu dục, mất ở Palo Alto.",
        "Vittorio Emanuele Orlando, cựu thủ tướng Ý, mất tại Roma.",
    ]
    sections = []
    for section, first in (("Sự kiện", 0), ("Mất", 12)):
        sections.append(section)
        for month in range(1, 13):
            sections += [f"Tháng {month}", f"{month + 9} tháng {month}: {events[first + month - 1]}"]
    text = "1954 là một năm thường bắt đầu vào thứ sáu trong lịch Gregory.\n\n" + "\n".join(sections)
    assert verdict(text, "vi") is None
    assert verdict(text, "vi", web_rule_back("fineweb_dup_line_char_ratio")).reason == "fineweb_dup_line_char_ratio"


def test_a_vietnamese_article_naming_its_multi_syllable_subject_throughout_is_kept():
    assert verdict(VI_COURT, "vi") is None
    back = web_rule_back("gopher_dup_5gram_char_frac")
    assert verdict(VI_COURT, "vi", back).reason == "gopher_dup_5gram_char_frac"


def test_a_japanese_article_naming_its_subject_throughout_is_kept():
    assert verdict(JA_COPYRIGHT, "ja") is None
    back = web_rule_back("gopher_dup_5gram_char_frac")
    assert verdict(JA_COPYRIGHT, "ja", back).reason == "gopher_dup_5gram_char_frac"


def test_set_notation_and_code_braces_in_an_article_are_kept():
    # Japanese "正規言語": `{ ε }`, `{ a }` in the definition, as ingest leaves no markup braces.
    text = (
        "正規言語は、有限オートマトンで受理できる形式言語である。"
        "文字セット Σ 上の集合は以下のように再帰的に定義される。\n"
        "空の言語はこれに含まれる。\n空文字列だけの言語 { ε } も含まれる。\n"
        "Σ の各文字 a について、それだけを持つ単集合 { a } も含まれる。\n"
        "A と B が含まれるとき、その和集合と連接、A のクリーネ閉包も含まれる。これ以外のものは含まれない。"
    )
    assert verdict(text, "ja") is None
    assert verdict(text, "ja", web_rule_back("c4_curly_bracket_lines")).reason == "c4_curly_bracket_lines"


def test_a_disambiguation_stub_is_still_dropped_for_its_word_count():
    # Vietnamese "Tiệp": 24 words.
    text = "Tiệp có thể chỉ đến:\n\n Tiệp Khắc, cựu quốc gia từ 1918 đến 1939 và từ 1945 đến 1992\n Cộng hòa Séc"
    assert verdict(text, "vi").reason == "gopher_word_count"


def test_a_copied_block_is_still_dropped_in_an_article():
    text = "\n\n".join([VI_COURT.split("\n\n")[0]] * 3 + [VI_COURT.split("\n\n")[1]])
    assert verdict(text, "vi").reason.startswith("gopher_dup_")


def test_web_pages_keep_the_web_bounds():
    assert verdict(VI_COURT, "vi", domain="web").reason == "gopher_dup_5gram_char_frac"
    assert verdict(JA_COPYRIGHT, "ja", domain="web").reason == "gopher_dup_5gram_char_frac"
