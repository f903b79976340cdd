"""The names of a stage directory's files (schemas/stage_dir.md), in one place for the local
lifecycle (stage_dir.py, task_output.py) and the object-store one (object_stage.py)."""

SUCCESS = "_SUCCESS"
STATS_FILE = "_stats.json"
KEPT_HERE = "here"  # `kept` of a _SUCCESS whose directory holds its kept documents
STATS_DIR = "_tasks"
REJECTED_DIR = "_rejected"
ATTEMPTS_DIR = "_attempts"
COMMITTED_DIR = "_committed"
WORK = "_work"  # an object-store stage's commit area (engine/store/object_stage.py)
# A global stage's materialized steps (engine/sub_steps.py), in its work area until it completes.
STEPS_DIR = "_steps"
WORK_OWNER = "_work_owner.json"  # in a local work directory until its _SUCCESS: which output made it
RUN_RECORD = "run_record.json"  # what `run` did, at the top of its run directory (pipeline/record.py)
