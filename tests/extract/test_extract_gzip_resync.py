"""A corrupt gzip member in the middle of a WARC: the reader resynchronises at the next member, so
every intact record after the fault is read, and the bytes it skipped are counted in `_stats.json`."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from conftest import html_page, write_warc

from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.lifecycle import run_chain
from corpus_pipeline.engine.store.stage_dir import read_stage_bytes
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.readers.warc import ReadFault, next_gzip_member, read_warc
from corpus_pipeline.storage import Storage

RECORDS = 50


def _records(count: int) -> list[dict]:
    return [
        {
            "url": f"https://news.example/{i}",
            "payload": html_page(f"<p>Story {i}: " + "the council voted on the new river plan. " * 8 + "</p>").encode(),
            "content_type": "text/html",
        }
        for i in range(count)
    ]


def _member_starts(data: bytes) -> list[int]:
    """Where each record's gzip member starts, found the way the reader finds them."""
    import io

    stream, starts = io.BytesIO(data), []
    while (found := next_gzip_member(stream, starts[-1] + 1 if starts else 0)) is not None:
        starts.append(found)
    return starts


def _corrupt(data: bytes, starts: list[int], member: int) -> bytes:
    """Flip bytes in the deflate data of one member (its 10-byte header stays), as a bad disk block would."""
    broken = bytearray(data)
    for position in range(starts[member] + 12, min(starts[member] + 60, starts[member + 1] - 8)):
        broken[position] ^= 0x5A
    return bytes(broken)


def test_a_corrupt_member_in_the_middle_loses_only_its_record(tmp_path):
    data = write_warc(tmp_path / "full.warc.gz", _records(RECORDS)).read_bytes()
    starts = _member_starts(data)
    assert len(starts) == RECORDS
    broken = tmp_path / "broken.warc.gz"
    broken.write_bytes(_corrupt(data, starts, 25))

    items = list(read_warc(str(broken), 10_000_000, storage=Storage()))
    faults = [item for item in items if isinstance(item, ReadFault)]
    urls = [item.target_uri for item in items if not isinstance(item, ReadFault)]
    assert urls == [f"https://news.example/{i}" for i in range(RECORDS) if i != 25]
    assert len(faults) == 1 and items.index(faults[0]) == 25
    assert faults[0].unread_from == starts[25] and faults[0].skipped_bytes == starts[26] - starts[25]


def test_the_stage_accounts_for_every_record_and_counts_the_skipped_bytes(tmp_path):
    data = write_warc(tmp_path / "full.warc.gz", _records(RECORDS)).read_bytes()
    starts = _member_starts(data)
    broken = tmp_path / "broken.warc.gz"
    broken.write_bytes(_corrupt(data, starts, 25))

    result = run_chain([ExtractStage()], [str(broken)], [tmp_path / "out"], LocalExecutor(), storage=Storage())[0]
    stats = json.loads(read_stage_bytes(result.output, "_stats.json", storage=Storage()))
    assert stats["docs_in"] == RECORDS and stats["kept"] == RECORDS - 1
    assert stats["dropped"] == {"read_error": 1}
    # by the kind of fault: warcio's ArchiveLoadFailed, or CorruptGzipMember (it depends on the bytes)
    assert sum(stats["extra"]["read_fault_skipped_bytes"].values()) == starts[26] - starts[25]
    kept = pq.read_table(result.output / "part-00000.parquet", columns=["url"]).column("url").to_pylist()
    assert len(set(kept)) == RECORDS - 1 and "https://news.example/25" not in kept


def test_two_faults_and_a_corrupt_last_member(tmp_path):
    data = write_warc(tmp_path / "full.warc.gz", _records(12)).read_bytes()
    starts = _member_starts(data)
    broken = _corrupt(_corrupt(data, starts, 3), starts, 4)  # two neighbours: one gap
    last = bytearray(broken)
    for position in range(starts[11] + 12, starts[11] + 60):
        last[position] ^= 0x5A
    path = tmp_path / "broken.warc.gz"
    path.write_bytes(bytes(last))

    items = list(read_warc(str(path), 10_000_000, storage=Storage()))
    faults = [item for item in items if isinstance(item, ReadFault)]
    read = [item.target_uri for item in items if not isinstance(item, ReadFault)]
    assert read == [f"https://news.example/{i}" for i in (0, 1, 2, 5, 6, 7, 8, 9, 10)]
    assert [f.unread_from for f in faults] == [starts[3], starts[11]]
    assert faults[0].skipped_bytes == starts[5] - starts[3]
    assert faults[1].skipped_bytes == len(data) - starts[11]  # nothing readable after it: the rest
