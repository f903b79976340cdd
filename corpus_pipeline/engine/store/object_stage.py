"""A stage directory on an object store (`s3://bucket/prefix`), where nothing can be renamed.

The same lifecycle as a local StageDir (appears only complete, skipped when done, resumes), kept by
writing objects in an order instead of renaming directories (schemas/stage_dir.md, "On an object
store"):

1. a task attempt writes its intent `_work/<fingerprint16>/attempts/<attempt>.json` (the keys it
   is about to upload: so every object under the prefix is named by something of ours, and the
   output guard can tell a killed attempt's objects from a user's), uploads its files under keys
   of its own, `part-00003.<attempt>.parquet`, then writes its commit record
   `_work/<fingerprint16>/tasks/<task>.<identity8>.json` (which files,
   which counters) last: a record names only files that are complete;
2. the stage commits by writing `_SUCCESS` last: the manifest, naming every logical file of the
   stage (`part-00003.parquet`) and the object that holds it. Readers open a stage through its
   manifest only (stage_files), never through a listing, so an attempt's files, another attempt's,
   or a previous run's are never mistaken for output;
3. then every object under the prefix that the manifest does not name is deleted (stale attempts,
   the replaced output, the commit records).

Until step 2 the previous `_SUCCESS` and the objects it names stay untouched: a reader sees the old
output, then the new one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from corpus_pipeline import __version__
from corpus_pipeline.engine.store.layout import (
    ATTEMPTS_DIR,
    COMMITTED_DIR,
    KEPT_HERE,
    STATS_DIR,
    STATS_FILE,
    STEPS_DIR,
    SUCCESS,
    WORK,
)
from corpus_pipeline.engine.store.output_guard import OutputClaim, named_by_work_area, read_marker
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locks import LEASE_NAME

TASKS = "tasks"
INTENTS = "attempts"
RETIRED = "retired.json"  # the replaced output's objects, written before the new manifest


def join(base: str, relative: str) -> str:
    return f"{base.rstrip('/')}/{relative}"


def attempt_key(relative: str, attempt: str) -> str:
    """The object of logical file `relative` written by `attempt`: the tag before the suffix, so a
    listing still shows what each object is (`part-00003.1f2e3d4c5b6a.parquet`)."""
    folder, _, name = relative.rpartition("/")
    stem, dot, suffix = name.partition(".")
    tagged = f"{stem}.{attempt}{dot}{suffix}"
    return f"{folder}/{tagged}" if folder else tagged


def record_name(task: str, identity: str) -> str:
    # The identity's digest in the name: a resumed driver learns every task's identity from one
    # listing instead of one GET per task (10,000 tasks: 10 LIST requests instead of 10,000 GETs).
    return f"{task}.{hashlib.sha256(identity.encode()).hexdigest()[:8]}.json"


def commit_area(output: str, fingerprint: str) -> str:
    return join(output, f"{WORK}/{fingerprint[:16]}")


def upload_task(
    storage: Storage,
    area: str,
    areas: dict[str, str],
    task: str,
    identity: str,
    files: dict[str, dict[str, Path]],
    stats: dict[str, StageStats],
) -> None:
    """Upload one finished attempt (`files`: per stage, logical name -> local file; `areas`: per
    stage, the commit area of its output), then its record, with its counters per stage, in `area`
    (the chain's last stage's). Each output's area first gets the attempt's intent."""
    attempt = uuid.uuid4().hex[:12]
    keys = {stage: {relative: attempt_key(relative, attempt) for relative in named} for stage, named in files.items()}
    for target in sorted({areas[stage] for stage, named in keys.items() if named}):
        mine = {stage: named for stage, named in keys.items() if areas[stage] == target}
        storage.put_bytes(join(target, f"{INTENTS}/{attempt}.json"), json.dumps({"task": task, "files": mine}).encode())
    for stage, named in files.items():
        output = output_of_area(areas[stage])
        for relative, local in sorted(named.items()):
            storage.put_file(str(local), join(output, keys[stage][relative]))
    counters = {stage: counts.to_dict() for stage, counts in stats.items()}
    record = {"task": task, "identity": identity, "attempt": attempt, "files": keys, "stats": counters}
    storage.put_bytes(join(area, f"{TASKS}/{record_name(task, identity)}"), json.dumps(record).encode())


def output_of_area(area: str) -> str:
    """The stage prefix a commit area `<stage>/_work/<fingerprint16>` belongs to."""
    return area.rsplit(f"/{WORK}/", 1)[0]


def task_record(storage: Storage, area: str, task: str, identity: str) -> dict | None:
    try:
        return json.loads(storage.read_bytes(join(area, f"{TASKS}/{record_name(task, identity)}")))
    except FileNotFoundError:
        return None


def forget_stale_records(storage: Storage, area: str, planned: dict[str, str]) -> None:
    """Delete the records of tasks not in the plan, or recorded for another input slice."""
    wanted = {record_name(task, identity) for task, identity in planned.items()}
    stale = [uri for uri in storage.list_under(join(area, TASKS)) if uri.rpartition("/")[2] not in wanted]
    storage.delete(stale)


@dataclass
class ObjectStageDir(OutputClaim):
    output: str
    fingerprint: str
    storage: Storage
    _records: dict[str, list[dict]] = field(default_factory=dict, repr=False)

    @property
    def work(self) -> str:
        """Where this fingerprint's tasks commit (what a local StageDir's work directory is)."""
        return commit_area(self.output, self.fingerprint)

    def is_done(self) -> bool:
        manifest = read_marker(self.output, self.storage)
        if manifest is None or manifest.get("fingerprint") != self.fingerprint:
            return False
        self._clean(manifest)  # a driver killed after the commit and before its cleanup
        return True

    def kept_here(self) -> bool:
        return (read_marker(self.output, self.storage) or {}).get("kept", KEPT_HERE) == KEPT_HERE

    def done_stats(self) -> StageStats:
        return StageStats.from_dict(read_marker(self.output, self.storage)["stats"])

    def begin(self) -> None:
        """The commit area, keeping this fingerprint's records (their tasks are reused); the records
        of another input or config are useless now."""
        mine = self.work + "/"
        others = [u for u in self.storage.list_under(join(self.output, WORK)) if not u.startswith(mine)]
        self._discard(others, read_marker(self.output, self.storage))

    def _discard(self, work_objects: list[str], manifest: dict | None) -> None:
        """Delete commit-area objects and the objects their records, intents and retire lists name,
        but never one that `manifest` (the published output) names: only what we wrote goes."""
        base = self.output + "/"
        relative = [uri[len(base) :] for uri in work_objects]
        named = named_by_work_area(base, relative, self.storage)
        keep = {*(manifest or {}).get("files", {}).values(), SUCCESS, LEASE_NAME}  # the lease: its holder removes it
        self.storage.delete([base + key for key in sorted(named - keep)] + work_objects)

    def abandon(self, work: ObjectWork | None = None) -> None:
        """A stage refused after it began: the files its attempts named, then its commit area and
        its scratch directory, go (a rerun of the same config is refused again: nothing of it is
        reusable)."""
        self._discard(self.storage.list_under(self.work), read_marker(self.output, self.storage))
        self.storage.delete_prefix(self.work)
        if work is not None:
            work.close()

    def has_committed_tasks(self) -> bool:
        """Whether a rerun could reuse work of this attempt: a commit record in its area, or a step
        begun (engine/sub_steps.py)."""
        return any(self.storage.list_under(join(self.work, folder)) for folder in (TASKS, STEPS_DIR))

    # What the lifecycle asks of a placement (StageDir answers the same calls).
    tasks_share_work = False  # tasks commit records; their files are uploaded, never shared

    def global_work(self) -> ObjectWork:
        self.begin()
        return ObjectWork(self.output, self.fingerprint, self.storage)

    def forget_stale_tasks(self, chain: list, planned: dict[str, str]) -> None:
        forget_stale_records(self.storage, self.work, planned)

    def task_areas(self, names: list[str], chain: list) -> tuple:
        """Each stage's commit area, where an attempt writes its intent before it uploads."""
        return tuple((name, stage_dir.work) for name, stage_dir in zip(names, chain, strict=True))

    def settle_tasks(self, stage_works: dict, task_names: list[str]) -> None:
        """Nothing to move: the records name each task's objects where they are."""

    def fused_marker(self) -> dict:
        return {"area": self.work}  # where the pass's tasks committed, for every stage

    def task_seconds(self, stage_name: str, last: ObjectStageDir) -> float:
        records = last.records()
        return sum(r["stats"][stage_name].get("task_seconds", 0.0) for r in records if stage_name in r["stats"])

    def records(self, area: str | None = None) -> list[dict]:
        """The commit records of every finished task (read once: a fused pass merges them per stage)."""
        area = area or self.work
        if area not in self._records:
            uris = sorted(self.storage.list_under(join(area, TASKS)))
            self._records[area] = [json.loads(data) for data in self.storage.read_many(uris)]
        return self._records[area]

    def complete(
        self,
        stage_name: str,
        wall_seconds: float,
        work: ObjectWork | None = None,
        kept: str = KEPT_HERE,
        area: str | None = None,
        **marker,
    ) -> StageStats:
        """Merge the committed tasks' counters and files into the manifest (not yet written:
        `publish` writes it). `area`: where the tasks committed when that is not this stage's own
        commit area (a fused pass: the last stage's)."""
        records = self.records(area)
        stats = StageStats(stage_name)
        files: dict[str, str] = {}
        tasks: dict[str, str] = {}
        for record in records:
            if stage_name in record["stats"]:
                stats.merge(StageStats.from_dict(record["stats"][stage_name]))
            files.update(record["files"].get(stage_name, {}))
            if area is None:  # files of a global stage's tasks outside its document files
                files.update(record["files"].get("", {}))
            tasks[record["task"]] = record["identity"]
        files.update(work.renamed(files) if work else {})
        driver = work.driver_files() if work else []
        tag = self.fingerprint[:12]
        stats_key = attempt_key(STATS_FILE, tag)
        # The driver's own uploads are named before they start, like a task attempt's.
        uploads = {relative: attempt_key(relative, tag) for relative, _ in driver} | {STATS_FILE: stats_key}
        intent = {"files": {"": uploads}}
        self.storage.put_bytes(join(self.work, f"{INTENTS}/driver.json"), json.dumps(intent).encode())
        for relative, local in driver:
            if relative.startswith(f"{STATS_DIR}/"):
                stats.merge(StageStats.read(local))
            key = attempt_key(relative, tag)
            self.storage.put_file(str(local), join(self.output, key))
            files[relative] = key
        stats.check_balanced()
        stats.seconds = wall_seconds
        self.storage.put_bytes(join(self.output, stats_key), (json.dumps(stats.to_dict(), indent=2) + "\n").encode())
        files[STATS_FILE] = stats_key
        self._manifest = {
            "stage": stage_name,
            "fingerprint": self.fingerprint,
            "version": __version__,
            "kept": kept,
            **marker,
            "stats": stats.to_dict(),
            "tasks": dict(sorted(tasks.items())),
            "files": dict(sorted(files.items())),
        }
        return stats

    def publish(self) -> None:
        """The commit point: one PUT of the manifest. Before it, the objects of the output it
        replaces are listed in the commit area (a driver killed after the PUT still knows them);
        after it, they go, with the attempts that lost and the commit area."""
        previous = read_marker(self.output, self.storage)
        if previous is not None:
            retired = sorted(set(previous.get("files", {}).values()) - set(self._manifest["files"].values()))
            self.storage.put_bytes(join(self.work, RETIRED), json.dumps({"keys": retired}).encode())
        body = json.dumps(self._manifest, indent=2, ensure_ascii=False) + "\n"
        self.storage.put_bytes(join(self.output, SUCCESS), body.encode("utf-8"))
        self._clean(self._manifest)

    def _clean(self, manifest: dict) -> None:
        self._discard(self.storage.list_under(join(self.output, WORK)), manifest)
        # pyarrow leaves an empty folder marker (`.../tasks/`) where it deleted a folder's last object.
        self.storage.delete_prefix(join(self.output, WORK))

    def finish(self, stage_name: str, wall_seconds: float, work: ObjectWork | None = None, **marker) -> StageStats:
        stats = self.complete(stage_name, wall_seconds, work, **marker)
        self.publish()
        if work is not None:
            work.close()  # its scratch directory, uploaded now
        return stats


class ObjectWork:
    """What a global stage writes through while it runs on an object store: files the driver
    writes (a tokenizer, a manifest) go to a scratch directory (`storage.scratch_dir`) and are
    uploaded when the stage completes; files its tasks committed are read through their records; a
    rename only changes which logical name an object gets in the manifest. A stage whose tasks need
    a directory while they run (crawl, mix) runs whole in the scratch directory (`local_dir`), with
    the local commit protocol, and is uploaded the same way."""

    def __init__(self, output: str, fingerprint: str, storage: Storage):
        self.output, self.fingerprint, self.storage = output, fingerprint, storage
        self.task_target = commit_area(output, fingerprint)
        root = Path(storage.config.scratch_dir or tempfile.gettempdir())
        # Named by output and fingerprint: a rerun on this machine finds it, another output never.
        where = hashlib.sha256(output.encode()).hexdigest()[:8]
        # Made by the first file written there: a chain stage (its tasks commit records) never does.
        self.scratch = root / f"corpus-pipeline-{where}-{fingerprint[:16]}"
        self._renames: dict[str, str] = {}
        self._committed: dict[str, str] | None = None

    def file(self, relative: str) -> Path:
        path = self.scratch / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def committed(self) -> dict[str, str]:
        """Logical name -> key, of every file the committed tasks wrote."""
        if self._committed is None:
            records = ObjectStageDir(self.output, self.fingerprint, self.storage).records()
            self._committed = {
                k: v for record in records for named in record["files"].values() for k, v in named.items()
            }
        return self._committed

    def read_bytes(self, relative: str) -> bytes | None:
        if (self.scratch / relative).is_file():
            return (self.scratch / relative).read_bytes()
        key = self.committed().get(self._source_of(relative))
        return None if key is None else self.storage.read_bytes(join(self.output, key))

    def rename(self, source: str, target: str) -> None:
        self._renames[target] = source

    def _source_of(self, relative: str) -> str:
        return self._renames.get(relative, relative)

    def renamed(self, files: dict[str, str]) -> dict[str, str]:
        """The manifest entries after the renames: each target gets its source's object, which loses
        its own name."""
        for source in self._renames.values():
            files.pop(source, None)
        return {target: self.committed()[source] for target, source in self._renames.items()}

    def driver_files(self) -> list[tuple[str, Path]]:
        files = [(p.relative_to(self.scratch).as_posix(), p) for p in self.scratch.rglob("*") if p.is_file()]
        # Not the local protocol's attempt directories, which a task that lost leaves (task_output.py).
        return sorted((name, path) for name, path in files if name.split("/")[0] not in (ATTEMPTS_DIR, COMMITTED_DIR))

    @property
    def driver_dir(self) -> Path:
        """Where the driver writes the stage's own files (uploaded when it completes)."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        return self.scratch

    def local_dir(self, stage: str) -> Path:
        """The directory a stage's tasks share while it runs: the scratch directory."""
        return self.driver_dir

    def step_output(self, name: str) -> str:
        """In the commit area, where every executor reads it and the commit's cleanup removes it."""
        return join(self.task_target, f"{STEPS_DIR}/{name}")

    def drop_steps(self) -> None:
        self.storage.delete_prefix(join(self.task_target, STEPS_DIR))

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
