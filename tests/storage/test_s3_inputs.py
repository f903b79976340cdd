"""Source stages reading `s3://` inputs from a real S3 API server on loopback (moto): objects,
prefixes, key globs and Common Crawl paths listings give what the same files give locally."""

from __future__ import annotations

import gzip
import json
import pickle
from functools import partial

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import shared_data
from s3_inputs import documents, run_source, upload
from stage_fixtures import real_documents

from corpus_pipeline.cli import EXIT_OK, main
from corpus_pipeline.config import StorageConfig, load_config
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.inputs import expand_crawl_inputs
from corpus_pipeline.pipeline.input_files import list_crawl_files, present_files
from corpus_pipeline.stage_runner import build_stage
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

CRAWL_FILES = (
    "cc-main-2020-34-excerpt.warc.gz",
    "cc-main-2024-22-one-page.warc.gz",
    "cc-main-2024-22-one-page.warc.wet.gz",
)


@pytest.fixture
def crawl_files():
    return [shared_data(f"warc/{name}") for name in CRAWL_FILES]


def test_extract_from_warc_objects_gives_the_documents_of_the_local_files(s3_server, bucket, crawl_files, tmp_path):
    # The objects sit under a `warc/` prefix as the files sit in a `warc/` folder: same `dump`.
    upload(s3_server, bucket, crawl_files, "crawl/warc")
    local = run_source("extract", [str(p) for p in crawl_files], tmp_path / "local")
    argv = ["extract", "--input", f"s3://{bucket}/crawl/", "--output", str(tmp_path / "s3"), "--runner", "local"]
    assert main(argv) == EXIT_OK
    from_s3 = pq.read_table(tmp_path / "s3")
    read = sorted(set(from_s3.column("file_path").to_pylist()))
    assert read == [f"s3://{bucket}/crawl/warc/{name}" for name in CRAWL_FILES]
    # all 16 of the excerpt's pages (extract.cjk_recall_pass finds the one favor_precision left empty);
    # the one page as WARC and WET
    assert len(from_s3) == local.stats.kept == 18
    kept = from_s3.drop_columns(["file_path"]).to_pylist()
    assert sorted(kept, key=lambda r: (r["id"], r["warc_offset"])) == documents(local)
    s3_stats = json.loads((tmp_path / "s3" / "_stats.json").read_text())
    assert (s3_stats["docs_in"], s3_stats["dropped"]) == (local.stats.docs_in, local.stats.dropped)


def test_ingest_reads_jsonl_and_parquet_objects(s3_server, bucket, tmp_path):
    records = [{"text": d["text"], "url": d["url"]} for d in real_documents(english=30, chinese=30)]
    jsonl = tmp_path / "news.jsonl.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    parquet = tmp_path / "news.parquet"
    pq.write_table(pa.Table.from_pylist(records), parquet, row_group_size=16)  # 4 row groups
    uris = upload(s3_server, bucket, [jsonl, parquet], "datasets")
    local = run_source("ingest", [str(jsonl), str(parquet)], tmp_path / "local", "ingest.source=news")
    from_s3 = run_source("ingest", uris, tmp_path / "s3", "ingest.source=news")
    assert from_s3.stats.kept == local.stats.kept == 2 * len(records)
    assert documents(from_s3) == documents(local)


def test_prefixes_and_key_globs_list_as_local_globs_do(s3_server, bucket):
    client = s3_server.client()
    for key in ("a/x.warc.gz", "a/b/y.warc.gz", "a/b/c/z.wet.gz", "a/notes.txt", "ab/w.warc.gz"):
        client.put_object(Bucket=bucket, Key=key, Body=b"-")
    expand = partial(expand_crawl_inputs, storage=Storage())
    uri = f"s3://{bucket}/"
    assert expand([uri + "a"]) == [uri + k for k in ("a/b/c/z.wet.gz", "a/b/y.warc.gz", "a/x.warc.gz")]
    assert expand([uri + "a/*.warc.gz"]) == [uri + "a/x.warc.gz"]
    assert expand([uri + "a/**/*.warc.gz"]) == [uri + "a/b/y.warc.gz", uri + "a/x.warc.gz"]
    assert expand([uri + "a?/*"]) == [uri + "ab/w.warc.gz"]
    assert expand([uri + "a/notes.txt"]) == [uri + "a/notes.txt"]  # named: taken whatever its suffix
    with pytest.raises(FileNotFoundError, match="no such object, or no WARC, ARC or WET objects"):
        expand([uri + "nothing/"])


def test_a_paths_listing_names_objects_under_its_base_url(s3_server, bucket, crawl_files, tmp_path):
    upload(s3_server, bucket, crawl_files[1:2], "crawl-data/CC-MAIN-2024-22/warc")
    listing = tmp_path / "warc.paths.gz"
    listing.write_bytes(gzip.compress(f"crawl-data/CC-MAIN-2024-22/warc/{CRAWL_FILES[1]}\n".encode()))
    upload(s3_server, bucket, [listing], "crawl-data/CC-MAIN-2024-22")
    storage = Storage(StorageConfig(paths_base_url=f"s3://{bucket}/"))
    expected = [f"s3://{bucket}/crawl-data/CC-MAIN-2024-22/warc/{CRAWL_FILES[1]}"]
    assert expand_crawl_inputs([str(listing)], storage) == expected  # a local listing
    listed = f"s3://{bucket}/crawl-data/CC-MAIN-2024-22/warc.paths.gz"
    assert expand_crawl_inputs([listed], storage) == expected  # the listing itself an object
    base = f"storage.paths_base_url=s3://{bucket}/"
    result = run_source("extract", [listed], tmp_path / "out", base)
    assert result.stats.kept == 1 and result.stats.docs_in == 4  # warcinfo, request, response, metadata
    assert pq.read_table(result.output, columns=["dump"]).column("dump").to_pylist() == ["CC-MAIN-2024-22"]


def test_an_object_is_identified_by_key_size_and_modification_time(s3_server, bucket):
    s3_server.client().put_object(Bucket=bucket, Key="in/a.warc.gz", Body=b"12345")
    uri = f"s3://{bucket}/in/a.warc.gz"
    key, size, mtime = Storage().identity(uri).split("|")
    assert (key, size) == (uri, "5") and int(mtime) > 0


def test_a_stage_pickled_as_spark_ships_it_reads_objects_in_the_new_process(s3_server, bucket, crawl_files):
    """Spark pickles the stage to its executors: the storage config travels, the client and the
    listing cache do not (an S3 client cannot be pickled, and the cache is the driver's)."""
    uri = upload(s3_server, bucket, crawl_files[2:], "wet")[0]
    stage = build_stage(stage_spec("extract"), load_config(None, [f"storage.endpoint_url={s3_server.endpoint}"]))
    assert stage.input_files([f"s3://{bucket}/wet/"]) == [uri]
    shipped = pickle.loads(pickle.dumps(stage))
    assert shipped.storage.config.endpoint_url == s3_server.endpoint and shipped.storage._infos == {}
    rows = [row for row, verdict in shipped.read(uri, StageStats("extract")) if verdict is None]
    assert [row["url"] for row in rows] == ["https://an.wikipedia.org/wiki/Escopete"]  # the WET page


def test_the_pipeline_lists_objects_and_tells_vanished_ones(s3_server, bucket):
    client = s3_server.client()
    for key in ("in/a.warc.gz", "in/b.warc.gz"):
        client.put_object(Bucket=bucket, Key=key, Body=b"-")
    storage = Storage()
    files = list_crawl_files([f"s3://{bucket}/in/"], partial(expand_crawl_inputs, storage=storage))
    assert files == [f"s3://{bucket}/in/a.warc.gz", f"s3://{bucket}/in/b.warc.gz"]
    client.delete_object(Bucket=bucket, Key="in/b.warc.gz")
    assert present_files(files, Storage()) == (files[:1], files[1:])
    assert list_crawl_files([f"s3://{bucket}/not-yet/"], partial(expand_crawl_inputs, storage=storage)) == []
