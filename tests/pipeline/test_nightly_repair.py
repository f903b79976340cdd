"""The nightly's start of every night: a night killed between its switch of CURRENT and its index
update (and its history line) is repaired by the next night, also one that finds nothing new; under
`--runner local` no night asks for a SparkSession, the index's signatures included."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

from pipeline_inputs import small_config, write_demo_warc

from corpus_pipeline import exit_codes
from corpus_pipeline.dedup.index import missing_from_index, published_folders
from corpus_pipeline.pipeline.nightly import NightlyLayout, run_nightly
from corpus_pipeline.pipeline.snapshots import current_snapshot
from corpus_pipeline.storage import Storage


def _no_session(*args, **kwargs):
    raise AssertionError("a SparkSession was asked for under --runner local")


def _night(data_root: Path) -> int:
    with mock.patch("corpus_pipeline.engine.exec.session.get_spark", _no_session):
        return run_nightly(small_config(data_root), "local", log=lambda line: None)


def _history(layout: NightlyLayout) -> list[dict]:
    return [json.loads(line) for line in layout.history.read_text(encoding="utf-8").splitlines()]


def test_a_night_killed_after_its_switch_is_repaired_by_the_next_night_with_nothing_new(tmp_path):
    layout, storage = NightlyLayout(tmp_path), Storage()
    write_demo_warc(tmp_path / "incoming" / "night-1.warc.gz", seed=0)
    assert _night(tmp_path) == exit_codes.SUCCESS
    write_demo_warc(tmp_path / "incoming" / "night-2.warc.gz", seed=1)
    # Killed (not an exception the night handles) right after CURRENT was switched: before the
    # index update and the night's history line.
    with mock.patch("corpus_pipeline.dedup.index.publish_to_index", side_effect=KeyboardInterrupt):
        try:
            _night(tmp_path)
        except KeyboardInterrupt:
            pass
    killed = current_snapshot(layout.corpus, storage)
    assert len(killed.info["increments"]) == 2 and len(published_folders(layout.index, storage)) == 1
    assert [entry.get("snapshot") for entry in _history(layout)] == [killed.info["previous"]]

    for _ in range(2):  # two reruns, nothing new for either
        assert _night(tmp_path) == exit_codes.NOTHING_NEW
    assert current_snapshot(layout.corpus, storage).name == killed.name
    assert missing_from_index(layout.index, killed.document_dirs(), storage) == []
    assert len(published_folders(layout.index, storage)) == 2
    history = _history(layout)
    assert [entry["status"] for entry in history] == ["published", "published", "nothing_new", "nothing_new"]
    late = history[1]
    assert late["snapshot"] == killed.name and late["documents"] == killed.info["documents"]
    assert "ended before writing this line" in late["recorded_late"]
    assert history[2]["index_repaired"] == [str(killed.document_dirs()[-1])] and "index_repaired" not in history[3]
