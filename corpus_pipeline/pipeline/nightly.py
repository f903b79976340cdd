"""`corpus-pipeline nightly`: the incremental refresh that cron runs.

Under an exclusive lock: list the crawl files under `nightly.inputs`, keep those the published
snapshot does not hold yet, run the whole pipeline on them in `<data_root>/runs/nightly-<hash>`
(the hash of the new files, so a rerun after a crash resumes that run) with dedup against the
cross-snapshot index, and publish only if every gate passed: a new snapshot, CURRENT switched to
it, the index updated, old snapshots retired. Every night appends one line to
`<data_root>/nightly/history.jsonl`, and every published snapshot has one (a night killed after its
switch gets its line from the next night); a night that ran also leaves its run record.

The switch of CURRENT is the commit point. The index is brought up to date right after it and
again at the start of every night, before the night decides whether anything is new (an increment
the index holds is not added again), so a crash between the two is repaired, and the index never
holds documents CURRENT does not: were it updated first, a crash before the switch would make the
retried night drop its own documents as already published.

With mix targets the night's mix reads every published increment's documents besides the night's
own, so the published shards are a mix of the whole corpus to the targets, and a night without new
documents in a targeted group publishes like any other; mix keeps its encoded tasks in
`<data_root>/nightly/mix_encoded/`, so a document is encoded the night it arrives only.

With data_root on a store (`s3://bucket/prefix`) the same code runs: a snapshot names the run's
objects where they are instead of linking them (pipeline/snapshots.py) and CURRENT is a pointer
object; the history is rewritten whole each night; the index is `<data_root>/index/`
(dedup/index.py). The lock is a lease object `<data_root>/nightly/lock` there (storage/locks.py),
so two drivers on two machines exclude each other too.
"""

from __future__ import annotations

import hashlib
import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from corpus_pipeline import exit_codes, failures
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.task_plan import file_identity
from corpus_pipeline.engine.store.layout import RUN_RECORD
from corpus_pipeline.engine.store.stage_dir import Location, child, location
from corpus_pipeline.failures import RunRefused
from corpus_pipeline.inputs import expand_crawl_inputs
from corpus_pipeline.pipeline.input_files import list_crawl_files
from corpus_pipeline.pipeline.preflight import check_config
from corpus_pipeline.pipeline.record import utc_now
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locks import LockHeld, hold

Log = Callable[[str], None]


@dataclass(frozen=True)
class NightlyLayout:
    data_root: Location

    @property
    def lock(self) -> Location:
        """A flock on this file, or on a store a lease object of this key (storage/locks.py): two
        drivers on two machines exclude each other too."""
        return child(self.data_root, "nightly/lock")

    @property
    def history(self) -> Location:
        return child(self.data_root, "nightly/history.jsonl")

    @property
    def corpus(self) -> Location:
        return child(self.data_root, "corpus")

    @property
    def index(self) -> Location:
        return child(self.data_root, "index")

    @property
    def incoming(self) -> Location:
        return child(self.data_root, "incoming")

    @property
    def mix_encoded(self) -> Location:
        """Mix's encoded tasks, kept from night to night (mix/encoded_cache.py)."""
        return child(self.data_root, "nightly/mix_encoded")


def new_inputs(files: list[str], processed: set[str], storage: Storage) -> dict[str, str]:
    """identity (path|size|mtime_ns) -> path of the files not yet published. A file rewritten
    since (new size or mtime) counts as new; dedup against the index drops what it repeats."""
    found = {}
    for path in files:
        try:
            identity = file_identity(path, storage)
        except FileNotFoundError:  # vanished since it was listed: neither new nor processed
            continue
        if identity not in processed:
            found[identity] = path
    return found


def run_nightly(
    config: PipelineConfig, runner: str, log: Log, debug: bool = False, work: failures.Work | None = None
) -> int:
    """One night under the data root's lock; `debug`: tracebacks too; `work`: the verb's (failures.py)."""
    work = work or failures.Work()
    layout = NightlyLayout(location(config.data_root))
    try:
        with hold(Storage(config.storage), str(layout.lock), "another nightly run"):
            return _night(config, runner, layout, log, debug, work)
    except LockHeld as held:
        log(f"corpus-pipeline nightly: {held}; this run did nothing (exit {exit_codes.LOCKED})")
        return exit_codes.LOCKED


def _night(
    config: PipelineConfig, runner: str, layout: NightlyLayout, log: Log, debug: bool, work: failures.Work
) -> int:
    entry = {"started_at": utc_now()}  # the night's line in history.jsonl, filled in as it goes
    try:
        code = _refresh(config, runner, layout, log, entry, work)
    except Exception as error:  # one line in the log (the traceback with --debug); the history says what failed
        if debug:
            traceback.print_exc()
        code = exit_codes.exit_code(error, work.started)
        status = "refused" if code == exit_codes.USAGE else "failed"
        entry.update(status=status, reason=f"{type(error).__name__}: {failures.one_line(error)}"[:500])
    entry.update(exit_code=code, finished_at=utc_now())
    _append_history(layout, json.dumps(entry, ensure_ascii=False) + "\n", Storage(config.storage))
    log(f"nightly: {entry['status']} (exit {code}){': ' + entry['reason'] if entry.get('reason') else ''}")
    return code


def _append_history(layout: NightlyLayout, line: str, storage: Storage) -> None:
    # No append on a store: read, then write whole (one line a night: 365 lines, ~150 KB a year).
    try:
        before = storage.read_bytes(str(layout.history))
    except FileNotFoundError:
        before = b""
    storage.put_bytes(str(layout.history), before + line.encode("utf-8"))


def current_snapshot(layout: NightlyLayout, storage: Storage):
    """The published snapshot, or None."""
    from corpus_pipeline.pipeline import snapshots

    return snapshots.current_snapshot(layout.corpus, storage)


def _source_files(config: PipelineConfig, layout: NightlyLayout) -> dict[str | None, list[str]]:
    """Every input file of the night by source: pipeline.sources' files, or (None) the crawl files
    under nightly.inputs."""
    if not config.pipeline.sources:
        expand = partial(expand_crawl_inputs, storage=Storage(config.storage))
        return {None: list_crawl_files(config.nightly.inputs or [str(layout.incoming)], expand)}
    from corpus_pipeline.config.sources import source_config, source_stage
    from corpus_pipeline.engine.registry import stage_spec
    from corpus_pipeline.stage_runner import build_stage

    files = {}
    for source in config.pipeline.sources:
        if source.kind == "crawl":
            raise RunRefused(f"source {source.name}: the nightly reads files; crawl into a folder a warc source reads")
        stage = build_stage(stage_spec(source_stage(source)), source_config(config, source))
        files[source.name] = list_crawl_files(source.paths, stage.input_files)
    return files


def _night_config(config: PipelineConfig, new: dict[str | None, dict[str, str]]) -> PipelineConfig:
    """The config of the night's run: its new files as pipeline.inputs (one crawl source), or as
    the paths of the sources that have new files (the others sit the night out)."""
    if None in new:
        run = config.pipeline.model_copy(update={"inputs": sorted(new[None].values()), "seeds": None})
    else:
        sources = [
            source.model_copy(update={"paths": sorted(new[source.name].values())})
            for source in config.pipeline.sources
            if new.get(source.name)
        ]
        run = config.pipeline.model_copy(update={"sources": sources})
    return config.model_copy(update={"pipeline": run})


def _refresh(
    config: PipelineConfig, runner: str, layout: NightlyLayout, log: Log, entry: dict, work: failures.Work
) -> int:
    if config.nightly.min_shares and not config.mix.builds_the_shards:
        raise RunRefused("nightly.min_shares bounds mix shares: set mix.targets (or mix.phases) too")
    check_config(config)  # before the index repair: a bad tokenizer or eval set is exit 2, nothing done
    storage = Storage(config.storage)
    current = current_snapshot(layout, storage)
    if current is not None:  # repaired before anything is decided: a night with nothing new too
        repaired = _repair_index(config, runner, layout, current, storage, work)
        if repaired:
            entry["index_repaired"] = repaired
        _record_unrecorded_publish(layout, current, storage)
    processed = current.processed_inputs() if current else set()
    by_source = _source_files(config, layout)
    new = {name: found for name, files in by_source.items() if (found := new_inputs(files, processed, storage))}
    if not new:
        where = f"all in snapshot {current.name}" if current else "none published yet"
        listed = sum(len(files) for files in by_source.values())
        entry.update(status="nothing_new", reason=f"{listed} input files, {where}")
        return exit_codes.NOTHING_NEW
    return _process(_night_config(config, new), runner, layout, current, new, log, entry, work)


def _repair_index(
    config: PipelineConfig, runner: str, layout: NightlyLayout, current, storage: Storage, work: failures.Work
) -> list[str]:
    """The increments of CURRENT the index lacks (a night killed between its switch of CURRENT and
    its index update), added; an executor (Spark, under `--runner spark`) only when one lacks."""
    from corpus_pipeline.dedup.index import missing_from_index, publish_to_index
    from corpus_pipeline.stage_runner import make_executor

    missing = missing_from_index(layout.index, current.document_dirs(), storage)
    if missing:
        executor = make_executor(config, runner, work)
        for documents in missing:
            publish_to_index(documents, layout.index, config.dedup, executor, storage)
    return [str(documents) for documents in missing]


def _record_unrecorded_publish(layout: NightlyLayout, current, storage: Storage) -> None:
    """CURRENT's history line, when the night that published it was killed before writing it: every
    published snapshot has its line (this one's says when it was published and that it is late)."""
    try:
        lines = storage.read_bytes(str(layout.history)).decode("utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    if any(json.loads(line).get("snapshot") == current.name for line in lines if line.strip()):
        return
    info = current.info
    entry = {
        "run_id": info["increments"][-1]["run_id"],
        "previous_snapshot": info["previous"],
        "status": "published",
        "snapshot": current.name,
        "documents": info["documents"],
        "tokens": info["tokens"],
        "published_at": info["published_at"],
        "recorded_late": f"{utc_now()}: the night that published it ended before writing this line",
    }
    _append_history(layout, json.dumps(entry, ensure_ascii=False) + "\n", storage)


def _previous_run(config: PipelineConfig, current) -> Location | None:
    """The run that made the published snapshot's latest increment: the report's drift baseline."""
    if current is None or not current.info["increments"]:
        return None
    run_dir = child(location(config.data_root), f"runs/{current.info['increments'][-1]['run_id']}")
    return run_dir if Storage(config.storage).exists(str(child(run_dir, RUN_RECORD))) else None


def _process(
    config, runner, layout: NightlyLayout, current, by_source: dict, log: Log, entry: dict, work: failures.Work
) -> int:
    # Imported here: a night that finds the lock taken or nothing new exits without loading them.
    from corpus_pipeline.pipeline.console import run_summary
    from corpus_pipeline.pipeline.context import RunPlan
    from corpus_pipeline.pipeline.runner import GATE_FAILED, run_pipeline
    from corpus_pipeline.pipeline.share_gate import share_shortfalls

    new = {identity: path for files in by_source.values() for identity, path in files.items()}
    run_id = "nightly-" + hashlib.sha256("\n".join(sorted(new)).encode()).hexdigest()[:12]
    section = {"new_inputs": len(new), "previous_snapshot": current.name if current else None}
    entry.update(run_id=run_id, **section)
    given = config.pipeline.tokenizer
    # Without a given tokenizer, every night after the first reuses the published one, so the
    # increments of a snapshot share one vocabulary.
    tokenizer = location(given) if given else (current.tokenizer if current is not None else None)
    # With mix targets, the night's shards are a mix of the whole published corpus: every
    # increment's documents with the night's, each encoded once (on a store, every night: mix
    # keeps its encoded tasks on a local file system only).
    remix = config.mix.builds_the_shards and current is not None
    plan = replace(
        RunPlan.from_config(config.model_copy(update={"run_id": run_id}), runner, work=work),
        tokenizer=tokenizer,
        index_dir=layout.index,
        previous_run=_previous_run(config, current),
        published_documents=tuple(location(d) for d in current.document_dirs()) if remix else (),
        mix_encoded_cache=layout.mix_encoded,
    )
    if plan.sources:
        section["new_inputs_by_source"] = {name: len(files) for name, files in by_source.items()}
    log(f"nightly: {len(new)} new input files -> {plan.run_dir}")
    result = run_pipeline(plan, log=log)
    log(run_summary(result))
    if result.status == GATE_FAILED:
        reason = result.record.data["reason"]
    else:  # the shares are known once mix wrote the shards: after the run's own gates
        reason = "; ".join(share_shortfalls(result.context.tokens, config.nightly.min_shares, Storage(config.storage)))
    if reason:
        result.record.add_section("nightly", {**section, "published": False, "why": f"{reason}; CURRENT unchanged"})
        entry.update(status="gate_failed", reason=reason)
        return exit_codes.GATE_FAILED
    try:
        snapshot, retired = _publish(config, layout, current, run_id, result.context, sorted(new))
    except Exception as error:
        result.record.add_section("nightly", {**section, "published": False, "why": f"publish failed: {error}"})
        raise
    published = {"snapshot": snapshot.name, "documents": snapshot.info["documents"], "tokens": snapshot.info["tokens"]}
    result.record.add_section("nightly", {**section, **published, "published": True, "retired_snapshots": retired})
    entry.update(status="published", **published)
    return exit_codes.SUCCESS


def _publish(config, layout: NightlyLayout, current, run_id: str, context, inputs: list[str]):
    """(the new snapshot, the names of those retired): CURRENT switched, then the index updated by
    the run's executor (in this process under `--runner local`: no JVM)."""
    from corpus_pipeline.dedup.index import publish_to_index
    from corpus_pipeline.pipeline.snapshots import Increment, publish_snapshot, retire_old_snapshots

    storage = Storage(config.storage)
    increment = Increment(run_id, context.documents, context.tokens, inputs, config.mix.builds_the_shards)
    snapshot = publish_snapshot(layout.corpus, current, increment, storage)
    publish_to_index(snapshot.document_dirs()[-1], layout.index, config.dedup, context.executor, storage)
    return snapshot, retire_old_snapshots(layout.corpus, config.nightly.keep_snapshots, storage)
