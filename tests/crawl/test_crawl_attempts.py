"""Two attempts of one crawl task at once (a Spark retry, a `spark.speculation` copy): each writes
its WARC files in an attempt directory of its own, the first to finish commits, the other's files
are discarded, so the stage holds exactly one attempt's records."""

from __future__ import annotations

import threading

import pytest
from crawl_helpers import loopback_config, run_crawl, warc_records

from corpus_pipeline.crawl import runner, stage
from corpus_pipeline.demo.server import DemoServer
from corpus_pipeline.engine.store.layout import ATTEMPTS_DIR, COMMITTED_DIR


def test_two_attempts_of_a_task_never_mix_their_warc_files(tmp_path, monkeypatch):
    real = runner.run_task_process
    started = threading.Barrier(2, timeout=60)

    def speculative(spec):
        # The executor runs the task twice at the same time, as Spark does for a straggler.
        results, errors = [], []

        def attempt():
            try:
                started.wait()
                results.append(real(spec))
            except Exception as error:  # noqa: BLE001 - the test reports it below
                errors.append(error)

        threads = [threading.Thread(target=attempt) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        assert len(results) == 2
        return results[0]

    monkeypatch.setattr(stage, "run_task_process", speculative)
    with DemoServer(max_articles_per_source=1) as server:
        (tmp_path / "seeds.txt").write_text(server.base_url + "/\n")
        config = loopback_config()
        twice = run_crawl(tmp_path / "seeds.txt", tmp_path / "twice", config)
        monkeypatch.setattr(stage, "run_task_process", real)
        once = run_crawl(tmp_path / "seeds.txt", tmp_path / "once", config)
    fetched = [h["WARC-Target-URI"] for kind, h, _, _ in warc_records(twice.output) if kind == "response"]
    assert len(fetched) == len(set(fetched)), "two attempts' records in one stage"
    assert sorted(fetched) == sorted(
        h["WARC-Target-URI"] for kind, h, _, _ in warc_records(once.output) if kind == "response"
    )
    assert twice.stats.docs_in == once.stats.docs_in
    assert not (twice.output / ATTEMPTS_DIR).exists() and not (twice.output / COMMITTED_DIR).exists()


def test_a_failed_attempt_leaves_no_warc_file_for_the_retry_to_mix_with(tmp_path, monkeypatch):
    real_run = runner.subprocess.run
    calls = []

    def flaky(command, **kwargs):
        calls.append(command)
        if len(calls) == 1:  # the first worker dies after writing part of a WARC file
            spec = runner.json.loads(open(command[-1], encoding="utf-8").read())
            with open(f"{spec['warc_dir']}/partial.warc.gz", "wb") as partial:
                partial.write(b"\x1f\x8b half a member")
            return runner.subprocess.CompletedProcess(command, 1)
        return real_run(command, **kwargs)

    monkeypatch.setattr(runner.subprocess, "run", flaky)
    with DemoServer(max_articles_per_source=1) as server:
        (tmp_path / "seeds.txt").write_text(server.base_url + "/\n")
        with pytest.raises(runner.CrawlTaskError, match="failed"):
            run_crawl(tmp_path / "seeds.txt", tmp_path / "out", loopback_config())
        result = run_crawl(tmp_path / "seeds.txt", tmp_path / "out", loopback_config())
    assert not list((result.output / "warc").glob("partial*"))
    assert warc_records(result.output)  # every file reads whole, digests checked
