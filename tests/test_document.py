import pyarrow as pa
import pytest

from corpus_pipeline.document import DOCUMENT_SCHEMA, REJECTED_SCHEMA, document_id, empty_document


def test_schema_has_the_fineweb_column_names():
    for name in ("id", "text", "url", "date", "dump", "file_path", "language", "language_score", "token_count"):
        assert name in DOCUMENT_SCHEMA.names
    assert REJECTED_SCHEMA.names[-1] == "reject_detail"


def test_id_is_stable_across_url_spellings_and_changes_with_text():
    same = document_id("HTTP://Example.COM:80/a?b=1#frag", "hello")
    assert same == document_id("http://example.com/a?b=1", "hello")
    assert same != document_id("http://example.com/a?b=1", "hello!")
    assert same != document_id("http://example.com/a?b=2", "hello")
    assert len(same) == 32


def test_id_survives_lone_surrogates():
    assert document_id("http://x.org/", "bad \ud800 text")


def test_empty_document_rejects_unknown_columns():
    row = empty_document(id="a", text="b")
    assert set(row) == set(DOCUMENT_SCHEMA.names)
    pa.Table.from_pylist([row], schema=DOCUMENT_SCHEMA)
    with pytest.raises(KeyError, match="langauge"):
        empty_document(langauge="en")
