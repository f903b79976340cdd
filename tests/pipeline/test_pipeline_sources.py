"""`run` over several sources (pipeline.sources) with --runner local, on small real data: a Common
Crawl WARC excerpt, People's Daily as JSON lines, a FineWeb-style Parquet mirror of five of its
articles, and gensim's Wikipedia dump; each source up to normalize in its own directory, one dedup,
per-source config after it, mix to target shares of the sources."""

from __future__ import annotations

import json

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import executor_environment, object_keys
from multi_source_inputs import EMAIL, MIRRORED, multi_source_config, multi_source_overrides
from stage_fixtures import stage_dir
from store_checks import unnamed_objects

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import SUCCEEDED, run_pipeline
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark  # dedup's decisions are Spark jobs whatever the runner


@pytest.fixture(scope="module")
def multi_source_run(tmp_path_factory, spark):
    root = tmp_path_factory.mktemp("sources")
    config = multi_source_config(root)
    result = run_pipeline(RunPlan.from_config(config, "local"))
    return result, root / "runs" / config.run_id


def test_every_source_runs_its_own_steps_then_one_dedup_and_one_corpus(multi_source_run):
    result, run_dir = multi_source_run
    assert result.status == SUCCEEDED
    steps = {(s.get("source"), s["step"]): s for s in result.record.data["steps"]}
    assert steps[("wiki", "ingest")]["status"] == "ran" and steps[("wiki", "extract")]["status"] == "not needed"
    assert steps[("wiki", "normalize")]["status"] == "not needed"  # wiki skips it
    assert steps[("web", "extract")]["output"] == str(stage_dir(run_dir / "sources" / "web", "extract"))
    assert not (stage_dir(run_dir / "sources" / "wiki", "normalize")).exists()
    kept_before_dedup = sum(
        steps[(name, last)]["documents"]["kept"]
        for name, last in (("web", "normalize"), ("news", "normalize"), ("mirror", "normalize"), ("wiki", "langid"))
    )
    assert steps[(None, "dedup")]["documents"]["in"] == kept_before_dedup
    assert [source["name"] for source in result.record.data["sources"]] == ["web", "news", "mirror", "wiki"]


def test_dedup_keeps_the_priority_sources_copy_and_each_source_keeps_its_own_pii_config(multi_source_run):
    result, run_dir = multi_source_run
    rejected = pq.read_table(stage_dir(run_dir, "dedup") / "_rejected" / "reason=exact_duplicate")
    # The mirror's five copies go; the news articles they copy stay (news has the higher priority).
    assert rejected.column("source").to_pylist() == ["mirror"] * MIRRORED
    # Ingested ids carry their source's prefix (ingest.id_prefix "news:" in pipeline.sources).
    originals = [f"news:pd-{n}" for n in range(MIRRORED)]
    assert sorted(rejected.column("reject_detail").to_pylist()) == originals
    deduplicated = pq.read_table(stage_dir(run_dir, "dedup"), columns=["id", "source"])
    assert set(originals) <= set(deduplicated.column("id").to_pylist())

    final = pq.read_table(result.context.documents, columns=["source", "domain", "text"]).to_pylist()
    with_address = {
        row["source"]: row["text"]
        for row in final
        if "Write to the desk" in row["text"] or "Questions to" in row["text"]
    }
    assert EMAIL in with_address["news"]  # news: pii.redact=false, its own override
    assert "<EMAIL>" in with_address["mirror"] and EMAIL not in with_address["mirror"]
    domains = {(row["source"], row["domain"]) for row in final}
    assert {("news", "news"), ("wiki", "encyclopedia"), ("mirror", "web")} <= domains


def test_the_run_ends_in_mix_shards_at_the_target_shares_of_its_sources(multi_source_run):
    result, run_dir = multi_source_run
    steps = {s["step"]: s for s in result.record.data["steps"] if "source" not in s}
    assert steps["tokenize"]["status"] == "not needed" and steps["mix"]["status"] == "ran"
    assert result.context.tokens == run_dir / "mix"
    mix = json.loads((run_dir / "mix" / "manifest.json").read_text())["mix"]
    documents = pq.read_table(run_dir / "mix" / "documents.parquet", columns=["source", "token_count"])
    # Whole documents: a group ends at the document nearest its budget, so it misses it by half
    # its largest document at most. Here that is coarse (a Wikipedia article is ~6 % of the 360k
    # tokens), so the bound is checked, not 1 point (tests/mix checks 1 point on finer data).
    largest: dict[str, int] = {}
    for row in documents.to_pylist():
        largest[row["source"]] = max(largest.get(row["source"], 0), row["token_count"])
    for name, target in {"wiki": 0.5, "news": 0.3, "web": 0.2}.items():
        budget = target * mix["budget_tokens"]
        assert abs(mix["groups"][name]["tokens"] - budget) <= (largest[name] + 1) / 2
    assert set(pc.unique(documents.column("source")).to_pylist()) == {"wiki", "news", "web"}
    page = (run_dir / "report" / "index.html").read_text(encoding="utf-8")
    assert "each source up to dedup" in page and "<td>wiki</td><td>ingest</td><td>206</td>" in page
    assert "<td>wiki</td><td>50.0%</td>" in page  # the mix table: target against achieved
    assert "<td>extract</td><td>not run</td>" not in page  # it ran, in the sources


def test_the_same_run_with_data_root_in_a_bucket_writes_the_same_mix_shards(
    multi_source_run, spark, s3_server, bucket, tmp_path
):
    """Every source's directories, the one dedup and the mix (its tasks in the scratch directory,
    the finished stage uploaded) in the bucket: the shards byte for byte the local run's."""
    result, run_dir = multi_source_run
    root = f"s3://{bucket}/root"
    config = load_config(None, [*multi_source_overrides(tmp_path), f"data_root={root}"])
    with executor_environment(spark, s3_server.environment()):
        on_store = run_pipeline(RunPlan.from_config(config, "local"), log=lambda line: None)
    assert on_store.status == SUCCEEDED
    assert on_store.context.tokens == f"{root}/runs/{config.run_id}/mix"
    storage = Storage()
    files = stage_files(on_store.context.tokens, storage=Storage())
    shards = {name: storage.read_bytes(str(uri)) for name, uri in files.items() if name.endswith((".bin", ".idx"))}
    assert shards == {path.name: path.read_bytes() for path in sorted((run_dir / "mix").glob("*.[bi][id][nx]"))}
    sources = object_keys(s3_server, bucket, f"root/runs/{config.run_id}/sources/")
    assert {key.split("/")[0] for key in sources} == {"web", "news", "mirror", "wiki"}
    assert unnamed_objects(s3_server, bucket, f"root/runs/{config.run_id}/") == set()
