import re
from pathlib import Path

from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.registry import STAGES

DOC = Path(__file__).resolve().parents[1] / "schemas" / "document.md"


def test_schema_page_lists_every_column_with_its_type():
    text = DOC.read_text()
    for field in DOCUMENT_SCHEMA:
        assert f"| `{field.name}` |" in text, field.name
    assert "| float32 |" in text and "| int64 |" in text


def _documented_reasons() -> set[tuple[str, str]]:
    """The (stage, reason) rows of the page's table of rejected rows."""
    return set(re.findall(r"^\| ([a-z-]+) \| `(\w+)` \|", DOC.read_text(), re.MULTILINE))


def test_the_drop_reason_table_is_what_the_registry_declares():
    declared = {(spec.name, reason) for spec in STAGES for reason in spec.drop_reasons}
    assert ("langid", "low_language_score") in declared and ("dedup", "id_collision") in declared
    assert _documented_reasons() == declared


def test_every_drop_reason_in_the_code_is_declared_by_a_stage():
    """A reason written in the code (`Drop("x", ...)`, a `REASON = "x"`, or dedup's `F.lit("x")`) is
    one a registry entry declares, so that the table above cannot miss it."""
    package = Path(__file__).resolve().parents[1] / "corpus_pipeline"
    pattern = r'Drop\(\s*"(\w+)"|^\w*REASON = "(\w+)"|F\.lit\("(\w+_duplicate)"\)'
    found = {
        next(group for group in match if group)
        for path in package.rglob("*.py")
        for match in re.findall(pattern, path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert {"not_html", "wiki_redirect", "contaminated", "minhash_duplicate", "pii_density"} <= found
    assert found <= {reason for spec in STAGES for reason in spec.drop_reasons}
