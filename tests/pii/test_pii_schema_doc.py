import re
from pathlib import Path

import pyarrow as pa

from corpus_pipeline.pii.stage import PII_FIELDS
from corpus_pipeline.pii.types import PLACEHOLDERS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "schemas" / "pii.md"
TYPE_NAMES = {pa.int32(): "int32", pa.float32(): "float32"}  # as schemas/document.md writes them


def test_schema_page_lists_every_column_with_its_type():
    text = PAGE.read_text()
    for field in PII_FIELDS:
        assert f"| `{field.name}` | {TYPE_NAMES[field.type]} |" in text, field.name


def test_schema_page_lists_every_placeholder_and_drop_reason():
    text = PAGE.read_text()
    for placeholder in set(PLACEHOLDERS.values()):
        assert f"`{placeholder}`" in text, placeholder
    sources = (ROOT / "corpus_pipeline" / "pii").glob("*.py")
    reasons = {m for path in sources for m in re.findall(r'Drop\(\s*"(\w+)"', path.read_text())}
    assert reasons == {"pii_density"}
    for reason in reasons:
        assert f"`{reason}`" in text, reason
