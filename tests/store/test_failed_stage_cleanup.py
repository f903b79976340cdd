"""A stage that fails before any task committed leaves nothing behind; one that fails after keeps
its committed tasks for the rerun, which reuses them."""

from __future__ import annotations

from store_inputs import ingest, write_dataset

from corpus_pipeline.cli import EXIT_ERROR, EXIT_OK
from corpus_pipeline.engine import lifecycle
from corpus_pipeline.engine.store import task_output


def _failing_at(monkeypatch, task_number: int) -> list[str]:
    real, ran = lifecycle.run_chain_task, []

    def run(chain, task):
        ran.append(task.name)
        if len(ran) == task_number:
            raise RuntimeError("executor lost")
        return real(chain, task)

    monkeypatch.setattr(lifecycle, "run_chain_task", run)
    return ran


def test_a_stage_failing_before_any_commit_leaves_no_work_directory(tmp_path, monkeypatch, capsys):
    inputs = [write_dataset(tmp_path / "in" / f"{n}.jsonl") for n in range(2)]
    _failing_at(monkeypatch, 1)
    assert ingest(inputs, tmp_path / "out") == EXIT_ERROR
    assert "executor lost" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_a_stage_failing_after_a_commit_keeps_it_and_the_rerun_reuses_it(tmp_path, monkeypatch):
    inputs = [write_dataset(tmp_path / "in" / f"{n}.jsonl") for n in range(2)]
    _failing_at(monkeypatch, 2)
    assert ingest(inputs, tmp_path / "out") == EXIT_ERROR
    assert len(list(tmp_path.glob(".out.inprogress-*"))) == 1
    monkeypatch.undo()
    committed, commit = [], task_output.TaskAttempt.commit

    def counted(attempt, stats):
        committed.append(attempt.task_name)
        return commit(attempt, stats)

    monkeypatch.setattr(task_output.TaskAttempt, "commit", counted)
    assert ingest(inputs, tmp_path / "out") == EXIT_OK
    assert committed == ["part-00001"]  # the first task was reused
