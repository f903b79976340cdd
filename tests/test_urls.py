import pytest

from corpus_pipeline.urls import canonical_url


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("HTTP://Example.com:80/a%7eb#x", "http://example.com/a~b"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("https://x.org/q?a=1&b=%26", "https://x.org/q?a=1&b=%26"),  # %26 is not &
        ("https://x.org/q?b=2&a=1", "https://x.org/q?b=2&a=1"),  # parameter order kept
        ("https://x.org/%e4%b8%ad", "https://x.org/%E4%B8%AD"),
        ("https://x.org/中 文", "https://x.org/%E4%B8%AD%20%E6%96%87"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ],
)
def test_canonical_url(raw, canonical):
    assert canonical_url(raw) == canonical


def test_unparseable_url_is_returned_not_raised():
    assert canonical_url("http://[broken") == "http://[broken"
