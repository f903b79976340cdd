"""Put on PYTHONPATH of a pipeline process (and so of its Spark Python workers, which inherit the
environment): the commit of task FAIL_COMMIT_OF fails, as a disk that refuses the write would, for as
long as the file FAIL_COMMIT_WHILE exists. The engine itself has no fault-injection switch."""

import os

if os.environ.get("FAIL_COMMIT_OF"):
    from corpus_pipeline.engine.store import task_output

    _commit = task_output.TaskAttempt.commit

    def _failing_commit(self, stats):
        if self.task_name == os.environ["FAIL_COMMIT_OF"] and os.path.exists(os.environ["FAIL_COMMIT_WHILE"]):
            raise OSError(f"injected fault: the disk refused the commit of {self.task_name}")
        return _commit(self, stats)

    task_output.TaskAttempt.commit = _failing_commit
