"""A WARC read in byte spans (readers/warc_spans.py plans them, read_warc resolves them): the spans
of a file, read one after another, yield exactly what one read of the whole file yields (the same
records, offsets, payloads, faults and skipped bytes), whatever the span size and whatever the
damage, so every record is counted once however a file is cut into tasks."""

from __future__ import annotations

import gzip
from dataclasses import astuple

import pytest
from conftest import shared_data, word_pages, write_warc
from test_extract_gzip_resync import _corrupt, _member_starts

from corpus_pipeline.readers.warc import read_warc
from corpus_pipeline.readers.warc_spans import warc_spans
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
@pytest.mark.parametrize(
    "relative",
    [
        "warc/cc-main-2020-34-excerpt.warc.gz",
        "warc/clueweb09-ja-quirk.warc.gz",
        "warc/cc-main-2024-22-one-page.warc.wet.gz",
        "warc/edge/clipped.warc.gz",
        "warc/edge/example-wrong-chunks.warc.gz",
        "warc/edge/example-trunc.warc",
        "warc/edge/example-bad-non-chunked.warc.gz",
        "warc/edge/post-test.warc.gz",
    ],
)
@pytest.mark.parametrize("span_bytes", [300, 4_096])
def test_real_and_broken_files_read_in_spans_as_whole(relative, span_bytes):
    path = shared_data(relative)
    assert by_spans(path, span_bytes) == whole(path)


def test_a_per_record_gzip_warc_is_cut_by_size_from_its_head_alone(member_data, tmp_path):
    path = tmp_path / "pages.warc.gz"
    path.write_bytes(member_data)
    size = len(member_data)
    spans = warc_spans(str(path), Storage(), size // 4)
    assert spans[0][0] == 0 and spans[-1][1] == size and len(spans) in (4, 5)
    assert all(end == following for (_, end), (following, _) in zip(spans, spans[1:], strict=False))
    assert warc_spans(str(path), Storage(), size) == [], "a file of one span is one task"


@pytest.mark.parametrize("kind", ["plain", "whole_file_gzip", "arc"])
def test_files_without_a_record_member_to_resync_on_stay_whole(member_data, tmp_path, kind):
    path = tmp_path / kind
    if kind == "arc":
        arc = gzip.compress(b"filedesc://x.arc 0.0.0.0 20240101000000 text/plain 76\n1 0 test\nURL IP-address\n\n")
        path.write_bytes(arc + member_data)
    else:
        path.write_bytes(_damaged(member_data, kind))
    assert warc_spans(str(path), Storage(), 1_000) == []
