"""SimHash dedup on Spark: block tables against brute force, the bucket guard, and the stage end to
end (kept and dropped sets, clusters, determinism across partitionings)."""

from __future__ import annotations

import itertools
import json
import random

import pyarrow.parquet as pq
import pytest
from dedup_runs import assert_same_bytes, dedup_at_partitionings

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.config import SimhashConfig
from corpus_pipeline.dedup.shingles import document_shingles
from corpus_pipeline.dedup.simhash import hamming_distance, simhash
from corpus_pipeline.dedup.simhash_decisions import verified_pairs

pytestmark = pytest.mark.spark

WORDS = [f"word{i}" for i in range(3000)]
HANZI = [chr(0x4E00 + i) for i in range(2000)]


def _signed(value: int) -> int:
    return value - (1 << 64) if value >> 63 else value


def _fingerprints(spark, values: list[int]):
    rows = [(f"d{i:04d}", _signed(v)) for i, v in enumerate(values)]
    return spark.createDataFrame(rows, "id string, simhash long")


@pytest.mark.parametrize("max_distance", [3, 6])
def test_block_tables_find_exactly_the_pairs_brute_force_finds(spark, max_distance):
    rng = random.Random(max_distance)
    values = [rng.getrandbits(64) for _ in range(300)]
    for original in values[:120]:  # copies 0 to 9 bits away: some within the distance, some not
        copy = original
        for bit in rng.sample(range(64), rng.randint(0, 9)):
            copy ^= 1 << bit
        values.append(copy)
    brute = {
        (f"d{i:04d}", f"d{j:04d}"): hamming_distance(values[i], values[j])
        for i, j in itertools.combinations(range(len(values)), 2)
        if hamming_distance(values[i], values[j]) <= max_distance
    }
    config = SimhashConfig(max_distance=max_distance)
    found = {(r.src, r.dst): r.distance for r in verified_pairs(_fingerprints(spark, values), config).collect()}
    assert found == brute
    assert 30 < len(brute) < 120


def test_a_huge_bucket_costs_window_pairs_per_member_and_stays_chained(spark):
    """150 identical fingerprints (a template page) in every bucket: each member meets its next 4."""
    found = verified_pairs(_fingerprints(spark, [12345] * 150), SimhashConfig(window=4)).collect()
    assert len(found) == 150 * 4 - (4 + 3 + 2 + 1)
    assert {(r.src, r.dst) for r in found} >= {(f"d{i:04d}", f"d{i + 1:04d}") for i in range(149)}


def _corpus() -> tuple[list[dict], dict[str, str], dict[str, str]]:
    """Distinct English and Chinese documents, lightly edited copies and exact copies ->
    (docs, simhash drops: id -> kept id, exact drops: id -> kept id). Which edited copies are
    within 3 bits is read from the fingerprints themselves: the stage must agree with them."""
    rng = random.Random(4)
    docs, simhash_drops, exact_drops = [], {}, {}
    for i in range(40):
        text = " ".join(rng.choices(WORDS, k=600))
        docs.append({"id": f"en{i:03d}", "text": text, "language": "en", "date": "2021-05-01T00:00:00Z"})
    for i in range(12):
        docs.append({"id": f"zh{i:03d}", "text": "".join(rng.choices(HANZI, k=1500)), "language": "zh"})
    copies = []
    for i in range(20):  # i words replaced; even copies fetched later (original kept), odd earlier
        words = docs[i]["text"].split()
        for position in rng.sample(range(len(words)), 1 + i // 3):
            words[position] = "edited"
        date = "2022-01-01T00:00:00Z" if i % 2 == 0 else "2020-01-01T00:00:00Z"
        copies.append(({"id": f"n{i:03d}", "text": " ".join(words), "language": "en", "date": date}, docs[i]))
    for i in range(40, 52):  # Chinese: 1 to 3 characters changed; no dates, so the smaller id stays
        text = docs[i]["text"]
        for position in rng.sample(range(len(text)), 1 + (i % 3)):
            text = text[:position] + "变" + text[position + 1 :]
        copies.append(({"id": f"c{i:03d}", "text": text, "language": "zh"}, docs[i]))
    for copy, original in copies:
        shingles = [document_shingles(d["text"], d["language"], 5, 5) for d in (copy, original)]
        if hamming_distance(*(simhash(s) for s in shingles)) <= 3:
            later, earlier = sorted((copy, original), key=lambda d: (d.get("date") or "~", d["id"]), reverse=True)
            simhash_drops[later["id"]] = earlier["id"]
        docs.append(copy)
    for i in range(20, 26):  # exact copies (case and punctuation differ), fetched later
        docs.append({"id": f"x{i:03d}", "text": docs[i]["text"].upper() + "!", "language": "en", "date": "2023"})
        exact_drops[f"x{i:03d}"] = docs[i]["id"]
    return docs, simhash_drops, exact_drops


def _read(directory, pattern):
    return [row for part in sorted(directory.glob(pattern)) for row in pq.read_table(part).to_pylist()]


def test_simhash_stage_drops_copies_within_k_bits_whatever_the_partitioning(spark, tmp_path):
    docs, simhash_drops, exact_drops = _corpus()
    copies = sum(doc["id"][0] in "nc" for doc in docs)
    assert 10 <= len(simhash_drops) < copies  # some copies are near enough, some are not
    config = PipelineConfig.model_validate({"dedup": {"output_parts": 3, "methods": ["exact", "simhash"]}})
    outputs = dedup_at_partitionings(spark, docs, config, tmp_path)
    out = outputs[0]
    stats = json.loads((out / "_stats.json").read_text())
    assert stats["dropped"] == {"exact_duplicate": len(exact_drops), "simhash_duplicate": len(simhash_drops)}
    assert stats["docs_in"] == len(docs) == stats["kept"] + len(exact_drops) + len(simhash_drops)
    rejected = {row["id"]: row["reject_detail"] for row in _read(out, "_rejected/reason=*/*.parquet")}
    assert rejected == simhash_drops | exact_drops
    kept = {row["id"]: row for row in _read(out, "part-*.parquet")}
    for dropped_id, kept_id in simhash_drops.items():
        assert kept[kept_id]["dup_cluster_size"] == 2
        assert kept[kept_id]["dup_cluster_id"] == min(dropped_id, kept_id)
    assert_same_bytes(outputs)
