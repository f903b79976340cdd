from pathlib import Path

from corpus_pipeline.document import DOCUMENT_SCHEMA

DOC = Path(__file__).resolve().parents[1] / "schemas" / "document.md"


def test_schema_page_lists_every_column_with_its_type():
    text = DOC.read_text()
    for field in DOCUMENT_SCHEMA:
        assert f"| `{field.name}` |" in text, field.name
    assert "| float32 |" in text and "| int64 |" in text


def test_schema_page_lists_every_drop_reason_the_stages_use():
    import re

    package = Path(__file__).resolve().parents[1] / "corpus_pipeline"
    sources = [*package.glob("stages/*.py"), *package.glob("ingest/*.py")]
    reasons = {m for path in sources for m in re.findall(r'Drop\(\s*"(\w+)"', path.read_text())}
    assert {"not_html", "read_error", "low_language_score", "not_json", "wiki_redirect"} <= reasons
    text = DOC.read_text()
    for reason in reasons:
        assert f"`{reason}`" in text, reason
