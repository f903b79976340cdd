"""Read by content: compression by magic bytes, Parquet by its magic, JSON lines or arrays, CSV/TSV;
a content that disagrees with the name wins, with a note; files that are no dataset are skipped and
listed in _stats.json; one list of formats for the README, --help and the error."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard
from ingest_inputs import ingest, kept, reasons

from corpus_pipeline.cli import build_parser, main
from corpus_pipeline.ingest.formats import formats_text

RECORDS = [
    {"id": f"r{n}", "text": f"record number {n} with some words", "url": f"https://x.example/{n}"} for n in range(10)
]
COMPRESS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress, "zstd": zstandard.compress}


def _lines(records=RECORDS) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _ids(result) -> list[str]:
    return [r["id"] for r in kept(result, ["id"])]


def test_compression_is_told_by_magic_bytes_whatever_the_name(tmp_path):
    for number, (name, compress) in enumerate(COMPRESS.items()):
        source = tmp_path / f"docs-{name}.jsonl"  # no compression suffix at all
        source.write_bytes(compress(_lines()))
        result = ingest([source], tmp_path / f"out{number}")
        assert _ids(result) == [r["id"] for r in RECORDS] and reasons(result) == {}, name
        assert any("content is" in note for note in result.stats.extra["read_by_content"]), name


def test_parquet_named_jsonl_and_dolma_json_gz_and_xml_xz_are_read(tmp_path):
    pq.write_table(pa.Table.from_pylist(RECORDS), tmp_path / "really-parquet.jsonl")
    result = ingest([tmp_path / "really-parquet.jsonl"], tmp_path / "p")
    assert _ids(result) == [r["id"] for r in RECORDS] and reasons(result) == {}
    (tmp_path / "dolma").mkdir()
    (tmp_path / "dolma" / "part-0000.json.gz").write_bytes(gzip.compress(_lines()))
    result = ingest([tmp_path / "dolma"], tmp_path / "d")
    assert _ids(result) == [r["id"] for r in RECORDS]


def test_a_json_array_is_read_element_by_element(tmp_path):
    source = tmp_path / "array.json"
    source.write_text(json.dumps([*RECORDS, 7]), encoding="utf-8")
    result = ingest([source], tmp_path / "out")
    assert _ids(result) == [r["id"] for r in RECORDS] and reasons(result) == {"not_json": 1}


def test_csv_and_tsv_with_a_text_column(tmp_path):
    (tmp_path / "d.csv").write_text('id,text,score\n007,"a text, with a comma\nand a newline",0.5\n8,plain,1\n')
    (tmp_path / "d.tsv").write_text("id\ttext\n1\tone tab text\n2\ttoo\tmany\n")
    result = ingest([tmp_path / "d.csv"], tmp_path / "c")
    rows = kept(result, ["id", "text", "metadata"])
    assert [(r["id"], r["text"]) for r in rows] == [("007", "a text, with a comma\nand a newline"), ("8", "plain")]
    assert json.loads(rows[0]["metadata"]) == {"score": "0.5"}
    tsv = ingest([tmp_path / "d.tsv"], tmp_path / "t")
    assert _ids(tsv) == ["1"] and reasons(tsv) == {"bad_csv_row": 1}
    assert tsv.stats.docs_in == tsv.stats.kept + sum(tsv.stats.dropped.values())


def test_a_mixed_folder_reads_every_dataset_and_lists_what_it_skipped(tmp_path, caplog):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.json.gz").write_bytes(gzip.compress(_lines(RECORDS[:3])))
    (folder / "b.csv").write_text("text\nfrom csv\n")
    (folder / "README.md").write_text("# a dataset card\n")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (folder / "c.dat").write_bytes(_lines(RECORDS[3:5]))  # no dataset name, JSON lines content
    result = ingest([folder], tmp_path / "out")
    assert result.stats.kept == 6
    skipped = result.stats.extra["skipped_files"]
    assert {key.split(":")[0] for key in skipped} == {"README.md", "logo.png"}
    assert all(": " in key and key.split(": ", 1)[1] for key in skipped)
    assert "skipped README.md" in caplog.text and "skipped logo.png" in caplog.text


def test_the_readme_the_help_and_the_error_list_the_same_formats(tmp_path, capsys):
    listed = formats_text()
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert listed in readme
    ingest_help = build_parser()._subparsers._group_actions[0].choices["ingest"].format_help()
    assert " ".join(listed.split()) in " ".join(ingest_help.split())
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("# nothing\n")
    assert (
        main(["ingest", "--input", str(tmp_path / "empty"), "--output", str(tmp_path / "o"), "--runner", "local"]) == 2
    )
    assert listed in capsys.readouterr().err


def test_a_wikipedia_dump_compressed_with_xz_is_read(tmp_path):
    from ingest_inputs import wikipedia_dump

    dump = wikipedia_dump(tmp_path / "dump.xml.bz2", pages=8)
    (tmp_path / "enwiki-pages-articles.xml.xz").write_bytes(lzma.compress(bz2.decompress(dump.read_bytes())))
    from_xz = ingest([tmp_path / "enwiki-pages-articles.xml.xz"], tmp_path / "xz")
    from_bz2 = ingest([dump], tmp_path / "bz2")
    assert kept(from_xz, ["id", "text"]) == kept(from_bz2, ["id", "text"]) and from_xz.stats.kept > 0
