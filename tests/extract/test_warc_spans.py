"""A WARC read in byte spans (readers/warc_spans.py plans them, read_warc resolves them): the spans
of a file, read one after another, yield exactly what one read of the whole file yields (the same
records, offsets, payloads, faults and skipped bytes), whatever the span size and whatever the
damage, so every record is counted once however a file is cut into tasks."""

from __future__ import annotations

import gzip
import io
from dataclasses import astuple

import pytest
from conftest import REAL_WARC_FILES, shared_data, word_pages, write_warc
from test_extract_gzip_resync import _corrupt, _member_starts
from warcio.warcwriter import WARCWriter

from corpus_pipeline.readers.warc import read_warc
from corpus_pipeline.readers.warc_spans import first_member, warc_spans
from corpus_pipeline.storage import Storage

LIMIT = 10_000_000
# From spans smaller than most records (a bound in nearly every member, corrupt ones included) to
# a third of the file.
SPAN_BYTES = [97, 600, 2_000, 5_003, 0]  # 0: a third of the file


def whole(path) -> list[tuple]:
    return [astuple(item) for item in read_warc(str(path), LIMIT, Storage())]


def by_spans(path, span_bytes: int) -> list[tuple]:
    size = path.stat().st_size
    span_bytes = span_bytes or -(-size // 3)
    found = []
    for start in range(0, size, span_bytes):
        found += [
            astuple(item) for item in read_warc(str(path), LIMIT, Storage(), (start, min(start + span_bytes, size)))
        ]
    return found


@pytest.fixture(scope="module")
def member_data(tmp_path_factory) -> bytes:
    return write_warc(tmp_path_factory.mktemp("spans") / "pages.warc.gz", word_pages(40)).read_bytes()


def _resource_record(payload: bytes) -> bytes:
    """A plain WARC resource record holding `payload`."""
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=False)
    writer.write_record(
        writer.create_warc_record("https://files.example/crawl.warc.gz", "resource", payload=io.BytesIO(payload))
    )
    return out.getvalue()


def _damaged(data: bytes, damage: str) -> bytes:
    starts = _member_starts(data)
    plain = gzip.decompress(data)
    return {
        "intact": lambda: data,
        "corrupt_member": lambda: _corrupt(data, starts, 10),
        "two_corrupt_members": lambda: _corrupt(_corrupt(data, starts, 12), starts, 13),
        "junk_between_members": lambda: data[: starts[20]] + b"JUNK" * 700 + data[starts[20] :],
        "cut_inside_a_member": lambda: data[: (starts[30] + starts[31]) // 2],
        "trailing_garbage": lambda: data + b"not a record\n" * 300,
        "plain": lambda: plain,
        # A plain WARC whose last record holds a .warc.gz as its payload: members that start records.
        "payload_of_gzipped_records": lambda: plain + _resource_record(data),
        "whole_file_gzip": lambda: gzip.compress(plain),
    }[damage]()


@pytest.mark.parametrize(
    "damage",
    [
        "intact",
        "corrupt_member",
        "two_corrupt_members",
        "junk_between_members",
        "cut_inside_a_member",
        "trailing_garbage",
        "plain",
        "payload_of_gzipped_records",
        "whole_file_gzip",
    ],
)
@pytest.mark.parametrize("span_bytes", SPAN_BYTES)
def test_spans_read_one_after_another_are_the_whole_file(member_data, tmp_path, damage, span_bytes):
    path = tmp_path / "pages.warc.gz"
    path.write_bytes(_damaged(member_data, damage))
    expected = whole(path)
    assert len([item for item in expected if item[0] == "response"]) >= 30
    assert by_spans(path, span_bytes) == expected


@pytest.mark.realdata
@pytest.mark.parametrize("relative", REAL_WARC_FILES)
@pytest.mark.parametrize("span_bytes", [300, 4_096])
def test_real_and_broken_files_read_in_spans_as_whole(relative, span_bytes):
    path = shared_data(relative)
    assert by_spans(path, span_bytes) == whole(path)


def test_a_warc_is_cut_by_size_alone(member_data, tmp_path):
    path = tmp_path / "pages.warc.gz"
    path.write_bytes(member_data)
    size = len(member_data)
    spans = warc_spans(str(path), Storage(), size // 4)
    assert spans[0][0] == 0 and spans[-1][1] == size and len(spans) in (4, 5)
    assert all(end == following for (_, end), (following, _) in zip(spans, spans[1:], strict=False))
    assert warc_spans(str(path), Storage(), size) == [], "a file of one span is one task"


@pytest.mark.parametrize("kind", ["plain", "whole_file_gzip", "payload_of_gzipped_records", "arc"])
def test_a_file_without_a_member_per_record_is_read_by_its_first_span(member_data, tmp_path, kind):
    """Its head says so to every span: the first reads it whole, the others find nothing, even where
    gzip members of a WARC sit in a plain file's payload."""
    path = tmp_path / kind
    if kind == "arc":
        arc = gzip.compress(b"filedesc://x.arc 0.0.0.0 20240101000000 text/plain 76\n1 0 test\nURL IP-address\n\n")
        path.write_bytes(arc + member_data)
    else:
        path.write_bytes(_damaged(member_data, kind))
    with open(path, "rb") as stream:
        assert first_member(stream) is None
    size = path.stat().st_size
    later = [
        list(read_warc(str(path), LIMIT, Storage(), (start, start + 1_000))) for start in range(1_000, size, 1_000)
    ]
    assert later and not any(later)
    assert kind == "arc" or [astuple(item) for item in read_warc(str(path), LIMIT, Storage(), (0, 1_000))] == whole(
        path
    )


def test_the_first_member_of_a_per_record_warc_is_its_first_record(member_data):
    with io.BytesIO(member_data) as stream:
        head = first_member(stream)
    assert head is not None and member_data.startswith(head) and member_data[len(head) :].startswith(b"\x1f\x8b")
    assert gzip.decompress(head).startswith(b"WARC/1.0")
