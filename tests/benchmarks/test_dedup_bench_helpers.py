"""The dedup benchmarks' helpers: the generated corpus and its labels, datatrove's decisions turned
into kept-for maps, Spark event-log summaries, and the process-tree memory sampler."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_dedup_scale import event_log_summary, stop  # noqa: E402
from dedup_accuracy import datatrove_representatives  # noqa: E402
from dedup_corpus import DedupCorpus, write_stage  # noqa: E402
from process_memory import TreeMemorySampler  # noqa: E402

from corpus_pipeline.dedup.shingles import document_shingles, jaccard  # noqa: E402
from corpus_pipeline.engine.store.stage_dir import input_parts, read_success  # noqa: E402
from corpus_pipeline.storage import Storage


@pytest.fixture()
def corpus(tmp_path) -> DedupCorpus:
    """30 pages of 300 distinct words each (lines of 60), so every shared 5-gram is a shared unit."""
    words = [f"w{i}" for i in range(9_000)]
    pages = []
    for p in range(30):
        lines = [" ".join(words[p * 300 + line * 60 : p * 300 + line * 60 + 60]) for line in range(5)]
        pages.append({"id": f"page-{p}", "url": f"https://example.org/{p}", "text": "\n".join(lines)})
    source = tmp_path / "pages.jsonl"
    source.write_text("".join(json.dumps(page) + "\n" for page in pages), encoding="utf-8")
    return DedupCorpus(seed=3, source=source)


def test_corpus_is_deterministic_with_labelled_copies_of_earlier_documents(corpus):
    first, second = list(corpus.documents(400)), list(corpus.documents(400))
    assert [g.doc for g in first] == [g.doc for g in second]
    ids = [g.doc["id"] for g in first]
    assert len(set(ids)) == 400
    assert [g.doc["id"] for g in first if not g.source_id][:30] == [f"page-{p}" for p in range(30)]
    copies = [g for g in first if g.source_id]
    assert 20 <= len(copies) <= 70  # PLANTED_SHARE = 0.1 of 400
    text = {g.doc["id"]: g.doc["text"] for g in first}
    for copy in copies:
        assert ids.index(copy.source_id) < ids.index(copy.doc["id"])
        copied, source = (document_shingles(text[i], None, 5, 5) for i in (copy.doc["id"], copy.source_id))
        assert 0.2 < jaccard(copied, source) < 1.0  # 2-15% of the words edited


def test_mosaics_are_not_near_duplicates_of_each_other(corpus):
    generated = [g.doc for g in corpus.documents(300) if not g.source_id and g.doc["id"].startswith("gen-")]
    shingles = [document_shingles(doc["text"], None, 5, 5) for doc in generated[:60]]
    assert max(jaccard(a, b) for i, a in enumerate(shingles) for b in shingles[i + 1 :]) < 0.3


def test_write_stage_streams_every_document_into_parts(corpus, tmp_path):
    directory = tmp_path / "stage"
    written = write_stage(corpus.documents(250), directory, parts=3, identity=corpus.identity(250))
    assert written == 250
    parts = input_parts(directory, storage=Storage())
    assert len(parts) == 3
    ids = [i for part in parts for i in pq.read_table(part, columns=["id"]).column("id").to_pylist()]
    assert sorted(ids) == sorted(g.doc["id"] for g in corpus.documents(250))
    assert read_success(directory, storage=Storage())["fingerprint"] == corpus.identity(250) != corpus.identity(251)


def test_datatrove_clusters_become_the_kept_document_of_each_member():
    rep = datatrove_representatives(["a", "b", "c", "d"], removed=["b", "c"], clusters={"a": 7, "b": 7, "c": 7})
    assert rep == {"a": "a", "b": "a", "c": "a", "d": "d"}
    with pytest.raises(ValueError, match="kept two documents"):
        datatrove_representatives(["a", "b"], removed=[], clusters={"a": 1, "b": 1})
    with pytest.raises(ValueError, match="outside any cluster"):
        datatrove_representatives(["a", "b"], removed=["b"], clusters={})


def _job(job_id: int, stage_id: int, name: str, start: int, end: int | None, tasks: int = 2) -> list[dict]:
    events = [
        {
            "Event": "SparkListenerJobStart",
            "Job ID": job_id,
            "Submission Time": start,
            "Stage Infos": [{"Stage ID": stage_id, "Stage Name": name}],
        },
        {
            "Event": "SparkListenerStageSubmitted",
            "Stage Info": {"Stage ID": stage_id, "Stage Name": name, "Number of Tasks": tasks},
        },
    ]
    if end is not None:
        events += [
            {"Event": "SparkListenerTaskEnd", "Stage ID": stage_id, "Task End Reason": {"Reason": "Success"}},
            {"Event": "SparkListenerStageCompleted", "Stage Info": {"Stage ID": stage_id, "Completion Time": end}},
            {
                "Event": "SparkListenerJobEnd",
                "Job ID": job_id,
                "Completion Time": end,
                "Job Result": {"Result": "JobSucceeded"},
            },
        ]
    return events


def test_event_log_splits_the_stage_into_signatures_decisions_and_writing(tmp_path):
    shuffle = "$anonfun$withThreadLocalCaptured$1 at CompletableFuture.java:1768"  # an adaptive shuffle job
    events = (
        _job(0, 0, shuffle, 0, 2_000)
        + _job(1, 1, "localCheckpoint at NativeMethodAccessorImpl.java:0", 2_000, 10_000)
        + _job(2, 2, shuffle, 10_500, 12_000)
        + _job(3, 3, "localCheckpoint at NativeMethodAccessorImpl.java:0", 12_000, 15_000)
        + _job(4, 4, "collect at spark_job.py:125", 16_000, 20_000)
    )
    folder = tmp_path / "eventlog_v2_local-1"
    folder.mkdir()
    (folder / "events_1_local-1").write_text("\n".join(map(json.dumps, events)) + "\n")
    summary = event_log_summary(tmp_path)
    assert summary["phases"] == {"before_signatures_s": 2.0, "signatures_s": 8.0, "decisions_s": 5.0, "write_s": 5.0}
    assert summary["job_s"] == [2.0, 8.0, 1.5, 3.0, 4.0]
    assert summary["between_jobs_s"] == 1.5
    assert summary["running_at_end"] == []


def test_event_log_of_a_stopped_run_names_the_running_stage_and_its_finished_tasks(tmp_path):
    running = _job(0, 0, "localCheckpoint at NativeMethodAccessorImpl.java:0", 0, None, tasks=20)
    running[1]["Stage Info"]["Submission Time"] = 1_000
    success = {"Event": "SparkListenerTaskEnd", "Stage ID": 0, "Task End Reason": {"Reason": "Success"}}
    running += [{**success, "Task Info": {"Finish Time": ms}} for ms in (20_000, 40_000, 61_000)]
    running += [{"Event": "SparkListenerTaskEnd", "Stage ID": 0, "Task End Reason": {"Reason": "TaskKilled"}}]
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "events_1_app").write_text("\n".join(map(json.dumps, running)) + '\n{"Event": "SparkListenerTa')
    summary = event_log_summary(tmp_path)
    assert summary["jobs_done"] == 0 and summary["phases"] == {}
    assert summary["running_at_end"] == [
        {
            "stage": 0,
            "name": "localCheckpoint at NativeMethodAccessorImpl.java:0",
            "tasks_done": 3,
            "tasks": 20,
            "job": 0,
            "elapsed_s": 60.0,  # 3 of 20 tasks in the first 60 s of the stage
            "projected_s": 400.0,
        }
    ]


def test_memory_sampler_sees_a_child_holding_200_mb():
    child = subprocess.Popen([sys.executable, "-c", "import time; block = bytearray(200 << 20); time.sleep(2)"])
    with TreeMemorySampler(child.pid) as sampler:
        child.wait()
    peaks = sampler.peaks
    assert peaks.samples >= 2
    assert peaks.hwm_mb["driver_python"] >= 200
    assert peaks.rss_mb["driver_python"] >= 200 and peaks.tree_rss_mb >= peaks.rss_mb["driver_python"]
    assert peaks.rss_mb["driver_jvm"] == 0


def test_stop_ends_the_child_and_a_grandchild_in_a_session_of_its_own(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    script = (
        "import subprocess, sys, time; "
        "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True); "
        f"open({str(pid_file)!r}, 'w').write(str(g.pid)); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    while not pid_file.exists() or not pid_file.read_text():
        time.sleep(0.05)
    grandchild = int(pid_file.read_text())
    stop(child, grace_s=5)
    assert child.poll() is not None
    assert not Path(f"/proc/{grandchild}").exists() or "Z" in Path(f"/proc/{grandchild}/stat").read_text().split()[2]
