"""mix with the local executor on real documents: shares checked against documents.parquet and the
.idx lengths, refusals, repeats, weights, phases, several inputs, partitioning and resume."""

from __future__ import annotations

import json
import re

import mix_fixtures
import numpy as np
import pyarrow.compute as pc
import pytest
from conftest import PROJECT_ROOT
from mix_fixtures import labelled_documents, mix_config, read_output, write_labelled
from tokenizers import Tokenizer

from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.mix import stage as mix_stage
from corpus_pipeline.mix.plan import MixTargetsError
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.reader import TokenShards
from corpus_pipeline.tokenize.verify import verify_shards

tokenizer_path = mix_fixtures.tokenizer_path  # the session fixture, found as a module attribute

TARGETS = {"news": 0.5, "web": 0.2, "daily": 0.3}


def mix(source, output, tokenizer, **settings):
    return run_stage("mix", source, output, mix_config(**settings), LocalExecutor(), tokenizer=tokenizer)


def token_shares(documents, lengths, column="source") -> dict[str, float]:
    groups = documents.column(column).to_pylist()
    return {g: lengths[[x == g for x in groups]].sum() / lengths.sum() for g in set(groups)}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_labelled(tmp_path_factory.mktemp("mix") / "docs", labelled_documents())


def test_achieved_shares_match_the_targets_in_documents_parquet_and_the_idx(tmp_path, corpus, tokenizer_path):
    result = mix([corpus], tmp_path / "mix", tokenizer_path, targets=TARGETS)
    documents, lengths, manifest = read_output(result.output)
    assert verify_shards(result.output).ok
    # documents.parquet lists the shards' sequences in order: its counts + the EOD are the .idx lengths.
    assert (documents.column("token_count").to_numpy() + 1 == lengths).all()
    for group, share in token_shares(documents, lengths).items():
        assert abs(share - TARGETS[group]) < 0.01, (group, share)
        assert manifest["mix"]["groups"][group]["achieved"] == pytest.approx(share, abs=1e-6)
        assert manifest["mix"]["groups"][group]["target"] == TARGETS[group]
    # The global shuffle: every full shard holds every source (web, the smallest at 20 %, has ~6
    # documents in a shard of 30; the last shard may hold a few documents only).
    bounds = np.cumsum([0] + [shard["documents"] for shard in manifest["shards"]])
    full = [(start, stop) for start, stop in zip(bounds[:-1], bounds[1:], strict=True) if stop - start >= 25]
    assert len(full) >= 3
    for start, stop in full:
        assert set(documents.column("source").slice(start, stop - start).to_pylist()) == set(TARGETS)
    # The trainer's reader finds each document's own tokens (the copies come from the first pass).
    texts = {doc["id"]: doc["text"] for doc in labelled_documents()}
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    shards = TokenShards(result.output)
    for number in (0, len(documents) // 2, len(documents) - 1):
        expected = tokenizer.encode(texts[documents.column("id")[number].as_py()], add_special_tokens=False).ids
        assert shards.document(number).tolist() == expected
    assert result.stats.docs_in == result.stats.kept + sum(result.stats.dropped.values()) == 100
    # Text tokens per language of what the shards hold, repeats counted (the report's chart).
    by_language: dict[str, int] = {}
    for row in documents.select(["language", "token_count"]).to_pylist():
        by_language[row["language"] or "unknown"] = (
            by_language.get(row["language"] or "unknown", 0) + row["token_count"]
        )
    assert result.stats.extra["tokens_by_language"] == by_language and len(by_language) >= 2
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (dev tool) validates the manifest schema")
    jsonschema.validate(manifest, json.loads((PROJECT_ROOT / "schemas" / "manifest.schema.json").read_text()))


def test_targets_the_data_cannot_meet_are_refused_with_the_numbers_and_nothing_written(
    tmp_path, corpus, tokenizer_path
):
    output = tmp_path / "out" / "mix"
    with pytest.raises(MixTargetsError) as refused:
        mix([corpus], output, tokenizer_path, targets=TARGETS, total_tokens=400_000)
    found = re.search(
        r"daily: 30\.0 % asked, ([\d.]+) % available, 4 passes allowed give at most ([\d.]+) %", str(refused.value)
    )
    assert found, str(refused.value)
    assert float(found[2]) == pytest.approx(4 * float(found[1]), abs=0.25)  # both rounded to 0.1
    assert not output.parent.exists() or not list(output.parent.iterdir())


def test_repeats_are_whole_documents_numbered_in_shard_order_under_the_cap(tmp_path, corpus, tokenizer_path):
    # daily is ~50 % of one pass; asking 80 % of it repeats it, capped at 3 passes.
    targets = {"daily": 0.8, "news": 0.1, "web": 0.1}
    result = mix([corpus], tmp_path / "mix", tokenizer_path, targets=targets, max_repeats=3)
    documents, _, manifest = read_output(result.output)
    daily = documents.filter(pc.equal(documents.column("source"), "daily"))
    assert 1 < manifest["mix"]["groups"]["daily"]["repeat_factor"] <= 3
    for doc_id in set(daily.column("id").to_pylist()):
        copies = daily.filter(pc.equal(daily.column("id"), doc_id))
        assert copies.column("repeat").to_pylist() == list(range(copies.num_rows))  # in shard order
        assert copies.num_rows <= 3 and len(set(copies.column("token_count").to_pylist())) == 1
    # Documents of news and web past the end of their partial pass are rejected with the reason.
    assert result.stats.dropped["not_selected"] > 0
    assert (result.output / "_rejected" / "reason=not_selected" / "plan.parquet").exists()


def test_quality_tiers_and_rehydration_weight_whole_documents(tmp_path, corpus, tokenizer_path):
    result = mix(
        [corpus],
        tmp_path / "mix",
        tokenizer_path,
        quality_tiers={"column": "quality_score", "tiers": [{"min": 0.8, "weight": 2}]},
        rehydration=[{"min": 2, "weight": 3}],
    )
    documents, _, _ = read_output(result.output)
    copies = dict(
        zip(*np.unique(documents.column("id").to_numpy(zero_copy_only=False), return_counts=True), strict=True)
    )
    for number, doc in enumerate(labelled_documents()):
        expected = (2 if number % 4 == 0 else 1) * (3 if number % 5 == 0 else 1)
        assert copies[doc["id"]] == expected, (number, copies[doc["id"]])


def test_curriculum_phases_are_written_as_shard_groups_in_order(tmp_path, corpus, tokenizer_path):
    phases = [
        {"name": "broad", "share": 0.7, "targets": {"news": 0.4, "web": 0.4, "daily": 0.2}},
        {"name": "anneal", "share": 0.3, "targets": {"news": 0.8, "daily": 0.2}},
    ]
    result = mix([corpus], tmp_path / "mix", tokenizer_path, phases=phases)
    documents, lengths, manifest = read_output(result.output)
    phase = documents.column("phase").to_pylist()
    assert phase == sorted(phase, key=["broad", "anneal"].index)  # every broad document, then anneal
    written = [shard["name"] for shard in manifest["shards"]]
    assert manifest["mix"]["phases"][0]["shards"] + manifest["mix"]["phases"][1]["shards"] == written
    for number, settings in enumerate(phases):
        mask = np.array([p == settings["name"] for p in phase])
        assert abs(lengths[mask].sum() / lengths.sum() - settings["share"]) < 0.01
        for group, share in token_shares(documents.filter(mask), lengths[mask]).items():
            assert abs(share - settings["targets"][group]) < 0.01, (settings["name"], group, share)
        assert manifest["mix"]["phases"][number]["targets"] == dict(sorted(settings["targets"].items()))


def output_bytes(directory) -> dict[str, bytes]:
    names = ["manifest.json", "documents.parquet", *(p.name for p in sorted(directory.glob("tokens_*")))]
    return {name: (directory / name).read_bytes() for name in names}


def test_the_output_does_not_depend_on_partitioning_tasks_or_how_sources_are_split(tmp_path, tokenizer_path):
    docs = labelled_documents()
    outputs = []
    for parts, task_rows in ((2, 5_000), (7, 3)):
        source = write_labelled(tmp_path / f"in{parts}", docs if parts == 2 else docs[::-1], parts=parts)
        config = mix_config(task_rows=task_rows, targets=TARGETS)
        outputs.append(
            run_stage("mix", [source], tmp_path / f"mix{parts}", config, LocalExecutor(), tokenizer=tokenizer_path)
        )
    # Two inputs (one per language) are the same corpus as one.
    english = write_labelled(tmp_path / "en", [d for d in docs if d["language"] == "en"], parts=2)
    chinese = write_labelled(tmp_path / "zh", [d for d in docs if d["language"] == "zh"], parts=1)
    outputs.append(mix([chinese, english], tmp_path / "two_inputs", tokenizer_path, targets=TARGETS))
    first = output_bytes(outputs[0].output)
    assert len(first) > 4
    for other in outputs[1:]:
        assert output_bytes(other.output) == first


def test_a_run_killed_while_writing_shards_resumes_to_the_same_bytes(tmp_path, corpus, tokenizer_path, monkeypatch):
    clean = mix([corpus], tmp_path / "clean", tokenizer_path, targets=TARGETS)
    written = []

    def dies_at_the_third_shard(job, task):
        if len(written) == 2:
            raise KeyboardInterrupt("killed")
        written.append(task.name)
        return real_write_shard(job, task)

    real_write_shard = mix_stage.write_shard
    monkeypatch.setattr(mix_stage, "write_shard", dies_at_the_third_shard)
    with pytest.raises(KeyboardInterrupt):
        mix([corpus], tmp_path / "resumed", tokenizer_path, targets=TARGETS)
    monkeypatch.setattr(mix_stage, "write_shard", real_write_shard)
    encoded = []
    real_encode = mix_stage.encode_part
    monkeypatch.setattr(mix_stage, "encode_part", lambda job, task: encoded.append(task) or real_encode(job, task))
    resumed = mix([corpus], tmp_path / "resumed", tokenizer_path, targets=TARGETS)
    assert encoded == []  # the first pass was done: nothing encoded again
    assert output_bytes(resumed.output) == output_bytes(clean.output)
    assert mix([corpus], tmp_path / "resumed", tokenizer_path, targets=TARGETS).skipped


def test_inputs_that_cannot_be_mixed_are_refused_with_the_reason(tmp_path, corpus, tokenizer_path):
    with pytest.raises(ValueError, match="5 rows repeat an id already in the inputs"):
        mix([corpus, write_labelled(tmp_path / "again", labelled_documents()[:5])], tmp_path / "m1", tokenizer_path)
    plain = write_labelled(tmp_path / "plain", labelled_documents()[:5])
    with pytest.raises(ValueError, match="has no column 'fineweb_score' \\(mix.quality_tiers\\)"):
        mix(
            [plain],
            tmp_path / "m2",
            tokenizer_path,
            quality_tiers={"column": "fineweb_score", "tiers": [{"weight": 2}]},
        )


def test_an_input_without_documents_gives_shards_without_documents(tmp_path, tokenizer_path):
    result = mix([write_labelled(tmp_path / "empty", [], parts=1)], tmp_path / "mix", tokenizer_path)
    documents, lengths, manifest = read_output(result.output)
    assert documents.num_rows == len(lengths) == manifest["documents"] == 0 and manifest["shards"] == []
    assert verify_shards(result.output).ok


def test_documents_encoded_once_are_taken_from_the_cache_for_the_same_shards(tmp_path, corpus, tokenizer_path):
    """mix's encoded cache (the nightly's re-mix of the published corpus): a second mix over the
    same input and a new one encodes only the new input, and its shards are those of a mix without
    the cache, byte for byte."""
    cache = tmp_path / "cache"
    later = [{**doc, "id": f"later-{doc['id']}"} for doc in labelled_documents(english=10, chinese=10)[::2]]
    more = write_labelled(tmp_path / "more", later, parts=1)
    config = mix_config(targets=TARGETS)

    def mixed(inputs, output, encoded_cache):
        return run_stage(
            "mix", inputs, output, config, LocalExecutor(), tokenizer=tokenizer_path, encoded_cache=encoded_cache
        )

    first = mixed([corpus], tmp_path / "first", cache)
    second = mixed([corpus, more], tmp_path / "second", cache)
    plain = mixed([corpus, more], tmp_path / "plain", None)
    counted = {name: result.stats.extra["encoding"] for name, result in (("first", first), ("second", second))}
    assert counted["first"] == {"encoded_documents": first.stats.docs_in}
    assert counted["second"] == {"cached_documents": first.stats.docs_in, "encoded_documents": len(later)}
    shards = {p.name: p.read_bytes() for p in second.output.glob("*.bin")}
    assert shards and shards == {p.name: p.read_bytes() for p in plain.output.glob("*.bin")}
    assert (second.output / "documents.parquet").read_bytes() == (plain.output / "documents.parquet").read_bytes()


def test_a_resumed_mix_still_counts_cached_documents_and_the_cache_keeps_only_the_last_mix(
    tmp_path, corpus, tokenizer_path, monkeypatch
):
    cache = tmp_path / "cache"
    config = mix_config(targets=TARGETS)
    more = write_labelled(tmp_path / "more", labelled_documents(english=4, chinese=4), parts=1)

    def mixed(inputs, output):
        return run_stage("mix", inputs, output, config, LocalExecutor(), tokenizer=tokenizer_path, encoded_cache=cache)

    first = mixed([corpus], tmp_path / "first")
    entries = sorted(p.name for p in cache.iterdir())
    real_write_shard = mix_stage.write_shard
    monkeypatch.setattr(mix_stage, "write_shard", lambda job, task: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):  # killed after taking every task from the cache
        mixed([corpus], tmp_path / "second")
    monkeypatch.setattr(mix_stage, "write_shard", real_write_shard)
    resumed = mixed([corpus], tmp_path / "second")
    assert resumed.stats.extra["encoding"] == {"cached_documents": first.stats.docs_in}
    assert resumed.stats.task_seconds == 0  # spent the night the documents were encoded
    assert sorted(p.name for p in cache.iterdir()) == entries
    mixed([more], tmp_path / "third")
    left = sorted(p.name for p in cache.iterdir())
    assert len(left) == 1 and not set(left) & set(entries)  # the corpus's entries were not used


def test_the_encoded_cache_in_a_bucket_serves_a_second_mix_and_keeps_only_the_last_mixs_entries(
    tmp_path, corpus, tokenizer_path, bucket
):
    """A data_root on a store keeps mix's cache there too: objects uploaded, downloaded into the
    next mix's work directory, and pruned as a local cache is."""
    cache, storage = f"s3://{bucket}/nightly/mix_encoded", Storage()
    config = mix_config(targets=TARGETS)
    more = write_labelled(tmp_path / "more", labelled_documents(english=4, chinese=4), parts=1)

    def mixed(inputs, output, encoded_cache=cache):
        return run_stage(
            "mix", inputs, output, config, LocalExecutor(), tokenizer=tokenizer_path, encoded_cache=encoded_cache
        )

    first = mixed([corpus], tmp_path / "first")
    objects = storage.list_under(cache)
    assert first.stats.extra["encoding"] == {"encoded_documents": first.stats.docs_in}
    assert sum(uri.endswith("/encoded.json") for uri in objects) == first.stats.tasks
    second = mixed([corpus], tmp_path / "second")
    assert second.stats.extra["encoding"] == {"cached_documents": first.stats.docs_in}
    assert output_bytes(second.output) == output_bytes(mixed([corpus], tmp_path / "plain", None).output)
    assert storage.list_under(cache) == objects
    mixed([more], tmp_path / "third")
    left = storage.list_under(cache)
    assert left and not set(left) & set(objects)
