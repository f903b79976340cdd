"""The metadata column built with Arrow kernels (`arrow_json`) says what the per-record JSON
(`MetadataFields.of`) says, for every type a Parquet file or pyarrow's JSON reader gives."""

import datetime
import decimal
import json

import pyarrow as pa
import pytest

from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.metadata import MetadataFields, _without_nulls

UTC = datetime.timezone.utc
ROWS = [
    {"text": "a", "score": 0.5, "n": 1, "whole": 1.0, "flag": True, "note": 'q"\\\n\t\x01\x7fé',
     "tags": ["a", None], "meta": {"x": 1, "y": None, "z": {"w": [1.5]}}, "added": "2020", "created": None,
     "ts": datetime.datetime(2024, 5, 18, 10, tzinfo=UTC), "dec": decimal.Decimal("1.20"), "raw": b"\xff\x00"},
    {"text": "b", "score": None, "n": None, "whole": float("nan"), "flag": False, "note": None, "tags": [],
     "meta": None, "added": None, "created": "2021", "ts": None, "dec": None, "raw": b"ok"},
    # every metadata field null: no metadata, and the rows after it keep their places
    {"text": "c", "score": None, "n": None, "whole": None, "flag": None, "note": None, "tags": None,
     "meta": None, "added": None, "created": None, "ts": None, "dec": None, "raw": None},
    {"text": "d", "score": 2.0, "n": -3, "whole": 1e20, "flag": None, "note": "", "tags": None,
     "meta": {"x": None, "y": None, "z": None}, "added": "x", "created": "y", "ts": None, "dec": None, "raw": None},
]  # fmt: skip


@pytest.mark.parametrize("from_json", [False, True])
@pytest.mark.parametrize("url_field", [None, "meta.x"])
@pytest.mark.parametrize("offset", [0, 1])
def test_metadata_from_arrow_kernels_matches_the_per_record_json(from_json, url_field, offset):
    fields = MetadataFields(IngestConfig(url_field=url_field))
    batch = pa.Table.from_pylist(ROWS).slice(offset).to_batches()[0]  # a slice: offsets into its children
    got = fields.column(batch, from_json=from_json).to_pylist()
    records = [{k: _without_nulls(v) if from_json else v for k, v in row.items()} for row in batch.to_pylist()]
    want = [fields.of(record) for record in records]
    assert len(got) == len(want) and [g is None for g in got] == [w is None for w in want]
    for text, expected in zip(got, want, strict=True):
        if text is not None:
            value, wanted = json.loads(text), json.loads(expected)
            assert value == wanted
            # 1.0 stays a float, 1 an integer
            assert {k: type(v) for k, v in value.items()} == {k: type(v) for k, v in wanted.items()}


def test_a_date_field_is_metadata_only_where_an_earlier_one_gave_the_date():
    fields = MetadataFields(IngestConfig())  # dates from date, timestamp, created, added: in that order
    batch = pa.record_batch({"text": ["a", "b"], "added": ["2020", "2021"], "created": [None, "2019"]})
    assert [json.loads(m) if m else None for m in fields.column(batch).to_pylist()] == [None, {"added": "2021"}]


def test_dictionary_and_binary_columns_are_written_as_their_values():
    fields = MetadataFields(IngestConfig())
    batch = pa.record_batch(
        {
            "text": ["a", "b", "c"],
            "lang": pa.array(["en", None, "fr"]).dictionary_encode(),  # pandas Categorical
            "raw": pa.array([b"ok", b"\xff", None], pa.binary()),
            "big": pa.array([2**63 - 1, None, -1], pa.int64()),
        }
    )
    got = [json.loads(m) for m in fields.column(batch).to_pylist()]
    want = [json.loads(fields.of(row)) for row in batch.to_pylist()]
    assert (
        got
        == want
        == [{"lang": "en", "raw": "ok", "big": 2**63 - 1}, {"raw": {"base64": "/w=="}}, {"lang": "fr", "big": -1}]
    )
