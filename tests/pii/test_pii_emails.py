from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.detector import PiiDetector, redact


def found(text, **config):
    detector = PiiDetector(PiiConfig(types=["email"], **config))
    return [(text[s:e], kind) for s, e, kind in detector.find(text)]


def test_plain_addresses_with_their_exact_boundaries():
    assert found("Write to John.Doe+news@mail.example.co.uk.") == [("John.Doe+news@mail.example.co.uk", "email")]
    assert found("(a_b-c@sub-domain.org), x@y.io") == [("a_b-c@sub-domain.org", "email"), ("x@y.io", "email")]
    assert found("...dots@example.com") == [("dots@example.com", "email")]
    assert found("email: 'jane@x.org'") == [("jane@x.org", "email")]


def test_qq_style_addresses_inside_chinese_sentences():
    assert found("我的邮箱是123456789@qq.com，欢迎联系") == [("123456789@qq.com", "email")]
    assert found("请发送简历至hr2024@163.com或致电") == [("hr2024@163.com", "email")]
    text = "联系邮箱：123456789@qq.com。"
    assert redact(text, PiiDetector().find(text)) == "联系邮箱：<EMAIL>。"


def test_not_addresses():
    assert found("logo@2x.png and icon@3x.webp") == []  # retina image names
    assert found("user@localhost, @handle, a@b, x@y.com2") == []
    assert found("price @ 5 dollars") == []


def test_obfuscated_forms_are_configurable():
    text = "mail john [at] example [dot] com or jane(at)mail.example.org or BOB AT EXAMPLE DOT COM"
    assert found(text) == [
        ("john [at] example [dot] com", "email"),
        ("jane(at)mail.example.org", "email"),
        ("BOB AT EXAMPLE DOT COM", "email"),
    ]
    assert found(text, obfuscated_emails=False) == []


def test_prose_with_at_and_dot_is_not_an_address():
    assert found("I was looking at google dot com and at the news.") == []
    assert found("Meet at (at least) noon.") == []
