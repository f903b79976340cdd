"""A driver killed with SIGKILL in the middle of a stage writing to a bucket (real S3 API server on
loopback), then rerun: the committed tasks are reused, the output is byte for byte what an
uninterrupted run writes, and nothing of the dead attempt is left under the prefix."""

from __future__ import annotations

import pytest
from conftest import html_page, object_keys, run_and_kill_when, write_warc
from s3_inputs import logical_bytes, task_uploads

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.store.stage_dir import read_success
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

# 12 files of 40 pages: ~0.3 s of extract each here, so a poll every 20 ms finds the first commit
# record well before the last task ends.
FILES, PAGES = 12, 40


def _warcs(tmp_path):
    paths = []
    for number in range(FILES):
        records = []
        for page in range(PAGES):
            words = f"Notice {number}.{page}: the ferry timetable changes for the winter season, as follows. "
            body = html_page(f"<p>{words * 10}</p>").encode()
            records.append({"url": f"https://port{number}.example/{page}", "payload": body})
        paths.append(write_warc(tmp_path / f"crawl-{number:02d}.warc.gz", records))
    return paths


@pytest.mark.slow  # a CLI run in a child process, killed
def test_kill_9_while_extract_writes_to_a_bucket_then_rerun_resumes_to_identical_bytes(
    s3_server, bucket, tmp_path, monkeypatch
):
    inputs = [str(path) for path in _warcs(tmp_path)]
    output = f"s3://{bucket}/extract"
    arguments = ["extract", "--runner", "local", "--output", output, "--input", *inputs]
    client = s3_server.client()

    def committed() -> int:
        listed = client.list_objects_v2(Bucket=bucket, Prefix="extract/_work/")
        return sum("/tasks/" in key["Key"] for key in listed.get("Contents", []))

    run_and_kill_when(arguments, lambda: committed() >= 1, "a first commit record", tmp_path / "killed.log")
    done_before = committed()
    assert 1 <= done_before < FILES, "the kill came after the stage finished"
    assert "_SUCCESS" not in object_keys(s3_server, bucket, "extract/")

    uploads = task_uploads(monkeypatch)
    resumed = run_stage("extract", inputs, output, load_config(None, []), LocalExecutor())
    assert resumed.stats.kept == FILES * PAGES
    assert len(uploads) == FILES - done_before  # the committed tasks were not run again

    clean = f"s3://{bucket}/clean"
    run_stage("extract", inputs, clean, load_config(None, []), LocalExecutor())
    assert logical_bytes(output) == logical_bytes(clean)
    # The dead attempt's files (uploaded, never recorded) and every record are gone.
    assert object_keys(s3_server, bucket, "extract/") == {
        "_SUCCESS",
        *read_success(output, storage=Storage())["files"].values(),
    }


def test_an_output_in_a_missing_bucket_or_with_refused_credentials_is_a_clear_error(
    s3_server, bucket, tmp_path, monkeypatch
):
    from corpus_pipeline.storage import StorageAccessError

    inputs = [str(path) for path in _warcs(tmp_path)[:1]]
    with pytest.raises(StorageAccessError, match="s3://no-such-bucket-here: no such bucket"):
        run_stage("extract", inputs, "s3://no-such-bucket-here/extract", load_config(None, []), LocalExecutor())
    secret = "wrong-secret-for-this-test-0123456789"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    with pytest.raises(StorageAccessError, match=f"s3://{bucket}: access denied") as refused:
        run_stage("extract", inputs, f"s3://{bucket}/extract", load_config(None, []), LocalExecutor())
    assert secret not in str(refused.value)
