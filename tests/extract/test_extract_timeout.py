"""extract's per-page time limit. The hanging page blocks trafilatura inside C (time.sleep never
returns to Python, so no signal-based timeout could end it): only killing the worker process does."""

from __future__ import annotations

import gc
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import pydantic
import pytest
from conftest import html_page, shared_data, write_warc

from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.extract.timed_worker import close_shared_workers
from corpus_pipeline.stats import StageStats

ARTICLE = "<p>" + "The council published the audited accounts of the harbour authority for the year. " * 6 + "</p>"
HANG, RAISE, KILLED = "hang-in-c", "raise-in-extractor", "killed-like-by-the-oom-killer"
LIMIT = 0.5


def child_pids() -> set[int]:
    """Processes whose parent is this one, zombies included (a zombie is a child nobody reaped)."""
    children = set()
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError):
            continue  # the process ended while we looked
        if ppid == os.getpid():
            children.add(int(entry))
    return children


@pytest.fixture
def misbehaving_trafilatura(monkeypatch):
    """trafilatura.extract, the function the forked worker calls, hanging, raising or dying on a
    page that says so; the child inherits the patch with the rest of the parent's memory."""
    import trafilatura

    close_shared_workers()  # a worker forked before the patch would not have it
    real = trafilatura.extract

    def extract(html, **kwargs):
        if HANG in html:
            time.sleep(10**6)
        if RAISE in html:
            raise ValueError("unbalanced markup")
        if KILLED in html:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(html, **kwargs)

    monkeypatch.setattr(trafilatura, "extract", extract)
    yield
    close_shared_workers()  # nor may a patched one serve a later test


def trafilatura_stage(**options) -> ExtractStage:
    """The faults are planted in trafilatura.extract: these pages must go to trafilatura (the
    default hybrid gives English articles to resiliparse)."""
    return ExtractStage(ExtractConfig(engine="trafilatura", **options))


class StageHung(Exception):
    pass


@pytest.fixture
def deadline():
    """Fail, not hang, if the limit does not work: the alarm is in this process, never the worker."""

    def expire(*_):
        raise StageHung("the time limit did not work")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def pages_warc(tmp_path, markers: list[str]):
    records = [
        {
            "url": f"https://port.example/{i}-{marker or 'ok'}",
            "payload": html_page(ARTICLE + f"<p>Page {i}. {marker}</p>").encode(),
            "content_type": "text/html",
        }
        for i, marker in enumerate(markers)
    ]
    return write_warc(tmp_path / "pages.warc.gz", records)


def read_balanced(stage: ExtractStage, path) -> list:
    stats = StageStats("extract")
    rows = list(stage.read(str(path), stats))
    stats.kept = sum(verdict is None for _, verdict in rows)
    stats.dropped.update(verdict.reason for _, verdict in rows if verdict is not None)
    stats.check_balanced()
    assert stats.docs_in == len(rows)
    return rows


def test_a_hanging_page_times_out_and_the_pages_around_it_are_extracted(tmp_path, misbehaving_trafilatura, deadline):
    warc = pages_warc(tmp_path, ["", HANG, "", HANG, ""])
    before = child_pids()
    started = time.perf_counter()
    rows = read_balanced(trafilatura_stage(timeout_seconds=LIMIT), warc)
    elapsed = time.perf_counter() - started
    assert [verdict.reason if verdict else None for _, verdict in rows] == [
        None,
        "extract_timeout",
        None,
        "extract_timeout",
        None,
    ]
    for i in (0, 2, 4):
        assert f"Page {i}." in rows[i][0]["text"] and "harbour authority" in rows[i][0]["text"]
    assert rows[1][1].detail == f"https://port.example/1-{HANG}: no result within {LIMIT} s"
    assert rows[1][0]["url"] == f"https://port.example/1-{HANG}" and rows[1][0]["text"] == ""
    # the worker decodes the payload; a page whose answer never came is decoded here for its charset
    assert [row["charset"] for row, _ in rows] == ["utf-8:default"] * 5
    assert elapsed < 2 * LIMIT + 3  # two limits, two forks, five small pages
    assert len(child_pids() - before) == 1  # the worker forked after the second timeout, kept
    close_shared_workers()
    assert child_pids() == before  # killed and reaped: the killed ones too, no zombie


def test_an_error_or_a_crash_in_the_worker_is_extract_error_and_the_next_page_goes_on(
    tmp_path, misbehaving_trafilatura, deadline
):
    warc = pages_warc(tmp_path, [RAISE, KILLED, ""])
    before = child_pids()
    rows = read_balanced(trafilatura_stage(timeout_seconds=LIMIT), warc)
    assert [(verdict.reason, verdict.detail) if verdict else None for _, verdict in rows] == [
        ("extract_error", "ValueError: unbalanced markup"),
        ("extract_error", f"the worker process died (exit code -{signal.SIGKILL.value})"),
        None,
    ]
    assert [row["charset"] for row, _ in rows] == ["utf-8:default"] * 3
    close_shared_workers()
    assert child_pids() == before


def test_the_worker_is_forked_on_first_use_never_pickled_and_serves_the_next_tasks(tmp_path):
    warc = pages_warc(tmp_path, ["", "", ""])
    stage = trafilatura_stage(timeout_seconds=5)
    close_shared_workers()
    before = child_pids()
    rows = stage.read(str(warc), StageStats("extract"))
    assert child_pids() == before  # nothing runs until the task reads its first page
    first, verdict = next(rows)
    assert verdict is None and "Page 0." in first["text"]
    (worker,) = child_pids() - before
    assert pickle.loads(pickle.dumps(stage)).config == stage.config  # a live worker is no part of it
    rows.close()  # the consumer stops early, as when writing the task's output fails
    again = trafilatura_stage(timeout_seconds=5)  # the next task, a stage built anew
    assert len(read_balanced(again, warc)) == 3 and child_pids() - before == {worker}
    other = trafilatura_stage(timeout_seconds=5, min_text_chars=10)  # other settings
    assert len(read_balanced(other, warc)) == 3 and len(child_pids() - before) == 2
    close_shared_workers()
    assert child_pids() == before


def test_the_worker_dies_with_its_parent_even_mid_call(tmp_path):
    script = textwrap.dedent(
        """
        import time
        from corpus_pipeline.extract.timed_worker import TimedWorker
        worker = TimedWorker(time.sleep)
        worker.call(5, 0)
        print(worker.pid, flush=True)
        worker.call(100, 10**6)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker_pid = int(parent.stdout.readline())
    time.sleep(0.2)  # the parent is now blocked waiting on the sleeping worker
    parent.kill()
    parent.wait()
    for _ in range(100):
        if not alive(worker_pid):
            return
        time.sleep(0.05)
    pytest.fail(f"worker {worker_pid} outlived its killed parent")


def test_the_worker_freezes_what_it_inherited_so_its_collector_never_walks_it():
    from corpus_pipeline.extract.timed_worker import TimedWorker

    with TimedWorker(gc.get_freeze_count) as worker:
        assert worker.call(5) > 0
    assert gc.get_freeze_count() == 0  # the parent's own collector is as it was


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie waits for init: it is dead
    except FileNotFoundError:
        return False


def test_the_worker_extracts_real_pages_exactly_as_trafilatura_in_process():
    path = shared_data("web/pages.warc.gz")

    def first_rows(timeout):
        rows = trafilatura_stage(timeout_seconds=timeout).read(str(path), StageStats("extract"))
        return [(row, verdict) for (row, verdict), _ in zip(rows, range(40), strict=False)]

    in_process, worker = first_rows(None), first_rows(30)
    assert sum(verdict is None for _, verdict in worker) >= 30
    assert worker == in_process


@pytest.mark.parametrize("value", [0, -1.5])
def test_timeout_must_be_positive_or_none(value):
    with pytest.raises(pydantic.ValidationError):
        ExtractConfig(timeout_seconds=value)
    assert ExtractConfig(timeout_seconds=None).timeout_seconds is None
    assert ExtractConfig().timeout_seconds == 5.0
