import base64
import json

from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.credentials import shannon_entropy
from corpus_pipeline.pii.detector import PiiDetector, redact


def secrets(text, **config):
    return [text[s:e] for s, e, _ in PiiDetector(PiiConfig(types=["secret"], **config)).find(text)]


def b64url(obj) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def test_provider_tokens():
    github = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    assert len(github) == 40
    text = f"aws AKIAIOSFODNN7EXAMPLE, gh {github}, gl glpat-abcdefghij0123456789, slack xoxb-1234567890-abcdefghij."
    assert secrets(text) == [
        "AKIAIOSFODNN7EXAMPLE",
        github,
        "glpat-abcdefghij0123456789",
        "xoxb-1234567890-abcdefghij",
    ]
    # Capitals without a digit are a heading; a prefix glued to a word is part of that word.
    assert secrets("ASIAPACIFICREGIONALX and xAKIAIOSFODNN7EXAMPLE") == []


def test_pem_private_key_block_is_replaced_whole():
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2\nmE+/x9Q=\n-----END RSA PRIVATE KEY-----"
    text = f"key:\n{block}\nthen prose."
    assert secrets(text) == [block]
    spans = PiiDetector().find(text)
    assert redact(text, spans) == "key:\n<SECRET>\nthen prose."
    assert secrets("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0\n-----END PUBLIC KEY-----") == []


def test_jwt_needs_a_header_with_alg():
    jwt = f"{b64url({'alg': 'HS256', 'typ': 'JWT'})}.{b64url({'sub': '1234567890'})}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y"
    assert secrets(f"Authorization: Bearer {jwt}") == [jwt]
    not_jwt = f"{b64url({'typ': 'JWT'})}.{b64url({'sub': '1'})}.abcd"
    assert secrets(f"token {not_jwt}") == []


def test_high_entropy_assignments_replace_only_the_value():
    text = 'api_key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"; PASSWORD: Zx9pQ2rT7vW4 and ?token=Ab3dEf9hIjK1mN0p&x=1'
    assert secrets(text) == ["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Zx9pQ2rT7vW4", "Ab3dEf9hIjK1mN0p"]
    assert redact(text, PiiDetector().find(text)) == (
        'api_key = "<SECRET>"; PASSWORD: <SECRET> and ?token=<SECRET>&x=1'
    )


def test_short_low_entropy_or_placeholder_values_are_not_secrets():
    assert secrets("api_key=abc123") == []  # too short
    assert secrets("password = aaaaaaaa1111") == []  # entropy 1.0
    assert secrets('API_KEY: "YOUR_API_KEY_HERE"') == []  # no digit
    assert secrets("token: undefined, secret: changeme") == []
    assert secrets("monkey = Zx9pQ2rT7vW4") == []  # not a key name
    assert round(shannon_entropy("aaaaaaaa1111"), 3) == 0.918
    assert shannon_entropy("Zx9pQ2rT7vW4") > 3.5


def test_thresholds_are_configurable():
    assert secrets("password: password123") == ["password123"]  # 3.28 bits per character
    assert secrets("password: password123", secret_min_entropy=3.5) == []
    assert secrets("pwd=Zx9pQ2rT", secret_min_length=10) == []
