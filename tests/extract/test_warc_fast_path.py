"""The WARC reader's fastwarc path (readers/warc_fast.py): it yields the records it can vouch for and
leaves the rest of the file to the warcio path, so every file reads as the warcio path alone reads
it: the same records, offsets, payloads and faults."""

from __future__ import annotations

import gzip
import os
from dataclasses import astuple

import pytest
from conftest import REAL_WARC_FILES, html_page, shared_data, write_warc
from test_extract_gzip_resync import _corrupt, _member_starts, _records

from corpus_pipeline.readers import warc
from corpus_pipeline.readers.warc import ReadFault, read_warc
from corpus_pipeline.readers.warc_fast import fast_records
from corpus_pipeline.readers.warc_record import Progress
from corpus_pipeline.storage import Storage

LIMIT = 10_000_000


def items(path, monkeypatch=None, limit: int = LIMIT) -> list[tuple]:
    """Every item read_warc yields for `path`; with `monkeypatch`, by the warcio path alone."""
    if monkeypatch is not None:
        monkeypatch.setattr(warc, "fast_records", lambda *_: iter(()))
    found = [astuple(item) for item in read_warc(str(path), limit, storage=Storage())]
    if monkeypatch is not None:
        monkeypatch.undo()
    return found


def fast_count(path) -> int:
    progress = Progress()
    with open(path, "rb") as stream:
        for _ in fast_records(stream, LIMIT, progress, stop=os.path.getsize(path)):
            pass
    return progress.emitted


@pytest.fixture
def member_file(tmp_path):
    records = _records(12)
    big = html_page("<p>a page over the limit</p>" * 2000).encode()
    records.append({"url": "https://news.example/big", "payload": big, "content_type": "text/html"})
    records.append({"url": "https://news.example/gone", "payload": b"<p>gone</p>", "status": 404})
    path = write_warc(tmp_path / "members.warc.gz", records)
    return path, path.read_bytes()


def test_the_fast_path_reads_every_record_but_the_last_which_the_warcio_path_checks(member_file, monkeypatch):
    path, _ = member_file
    assert items(path) == items(path, monkeypatch)
    assert fast_count(path) == 13  # of 14: the last one's member end is the warcio path's check
    assert items(path, limit=20_000) == items(path, monkeypatch, limit=20_000)  # over the limit


@pytest.mark.parametrize("fraction", [0.05, 0.33, 0.5, 0.61, 0.7, 0.85, 0.97, 0.999])
def test_a_file_cut_anywhere_reads_as_the_warcio_path_reads_it(member_file, monkeypatch, tmp_path, fraction):
    _, data = member_file
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: int(len(data) * fraction)])
    # What the warcio path makes of a cut depends on where in a member it falls (the records' ids
    # and dates move the members from run to run): whatever it is, the fast path must agree.
    assert items(cut) == items(cut, monkeypatch)


def read_warc_last(path):
    return list(read_warc(str(path), LIMIT, storage=Storage()))[-1]


def test_a_file_cut_just_after_a_member_header_keeps_its_truncation_fault(member_file, tmp_path):
    """fastwarc ends quietly when the file stops 52 bytes into a member; the warcio path does not."""
    path, data = member_file
    starts = _member_starts(data)
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: starts[10] + 52])
    fault = read_warc_last(cut)
    assert isinstance(fault, ReadFault) and fault.error == "Truncated" and fault.skipped_bytes == 52


@pytest.mark.parametrize(
    "damage",
    ["corrupt_member", "two_corrupt_members", "junk_between_members", "member_without_header", "trailing_garbage"],
)
def test_damage_in_the_middle_is_handed_to_the_warcio_path_with_its_resync(member_file, monkeypatch, tmp_path, damage):
    _, data = member_file
    starts = _member_starts(data)
    broken = {
        "corrupt_member": lambda: _corrupt(data, starts, 3),
        "two_corrupt_members": lambda: _corrupt(_corrupt(data, starts, 3), starts, 7),
        "junk_between_members": lambda: data[: starts[3]] + b"JUNKJUNK" + data[starts[3] :],
        "member_without_header": lambda: data[: starts[3]] + data[starts[3] + 10 :],
        "trailing_garbage": lambda: data + b"not a record\n" * 3,
    }[damage]()
    path = tmp_path / "broken.warc.gz"
    path.write_bytes(broken)
    assert items(path) == items(path, monkeypatch)
    assert any(isinstance(item, ReadFault) for item in read_warc(str(path), LIMIT, storage=Storage()))


def test_plain_and_whole_file_gzip_warcs_read_as_before(member_file, monkeypatch, tmp_path):
    _, data = member_file
    plain = gzip.decompress(data)
    for name, blob in {"plain.warc": plain, "whole.warc.gz": gzip.compress(plain), "cut.warc": plain[:5000]}.items():
        path = tmp_path / name
        path.write_bytes(blob)
        assert items(path) == items(path, monkeypatch), name
    assert fast_count(tmp_path / "whole.warc.gz") == 0  # no record offsets to vouch for: warcio's


def test_a_record_split_over_two_gzip_members_is_read_whole(member_file, tmp_path):
    """The one difference from the warcio path, which calls the second half an unknown archive
    format and skips it: fastwarc inflates both members as one record, at its first member's offset."""
    _, data = member_file
    starts = _member_starts(data)
    record = gzip.decompress(data[starts[2] : starts[3]])
    split = data[: starts[2]] + gzip.compress(record[:300]) + gzip.compress(record[300:]) + data[starts[3] :]
    path = tmp_path / "split.warc.gz"
    path.write_bytes(split)
    read = list(read_warc(str(path), LIMIT, storage=Storage()))
    assert not any(isinstance(item, ReadFault) for item in read)
    assert [item.target_uri for item in read][:4] == [f"https://news.example/{i}" for i in range(4)]
    assert read[2].offset == starts[2]


@pytest.mark.realdata
@pytest.mark.parametrize("relative", REAL_WARC_FILES)
def test_real_and_broken_files_read_as_the_warcio_path_reads_them(relative, monkeypatch):
    path = shared_data(relative)
    assert items(path) == items(path, monkeypatch)


@pytest.mark.realdata
def test_common_crawl_records_come_from_the_fast_path():
    assert fast_count(shared_data("warc/cc-main-2020-34-excerpt.warc.gz")) == 49  # of 50


def test_a_file_cut_inside_a_records_warc_headers_is_a_truncation_never_an_empty_record(member_file, tmp_path):
    """warcio parses a header block cut by EOF as if it were whole (a record of no type, no URI and
    no body); every cut inside the last member's headers must end in a fault that counts the cut
    member's bytes as skipped (Truncated, or warcio's own complaint when only `W` inflates)."""
    import zlib

    path, data = member_file
    last = _member_starts(data)[-1]
    inflated_head = zlib.decompressobj(wbits=31).decompress(data[last:]).split(b"\r\n\r\n", 1)[0]
    cut = tmp_path / "cut.warc.gz"
    faults = 0
    for end in range(last + 12, len(data)):  # past the gzip header, through the member
        if len(zlib.decompressobj(wbits=31).decompress(data[last:end])) >= len(inflated_head):
            break  # the whole header block inflates: from here on the payload is what is cut
        cut.write_bytes(data[:end])
        found = list(read_warc(str(cut), LIMIT, storage=Storage()))
        assert all(item.payload_length > 0 for item in found[:-1] if not isinstance(item, ReadFault))
        assert isinstance(found[-1], ReadFault) and found[-1].skipped_bytes == end - last, (end - last, found[-1])
        faults += 1
    assert faults > 3
