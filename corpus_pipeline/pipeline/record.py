"""The run record, `<run_dir>/run_record.json`: what a run was given, what each step did, how it
ended and why. Rewritten (atomically) after every step, so a killed run leaves a record of where
it stopped; a rerun counts its attempt and replaces it (on a store: one object, PUT whole)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from corpus_pipeline.engine.store.layout import RUN_RECORD
from corpus_pipeline.engine.store.stage_dir import Location, child
from corpus_pipeline.pipeline.context import RunPlan, StepOutcome
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import read_json, write_json
from corpus_pipeline.storage.locations import shown


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class RunRecord:
    path: Location
    data: dict
    storage: Storage  # what the record is written through

    @classmethod
    def start(cls, plan: RunPlan) -> RunRecord:
        path = child(plan.run_dir, RUN_RECORD)
        storage = Storage(plan.config.storage)
        earlier = read_json(path, storage)
        data = {
            "run_id": str(plan.run_dir).rpartition("/")[2],
            "run_dir": shown(plan.run_dir),
            "status": "running",
            "attempt": (earlier or {}).get("attempt", 0) + 1,
            "started_at": utc_now(),
            "finished_at": None,
            "runner": plan.runner,
            "inputs": list(plan.inputs),
            "seeds": str(plan.seeds) if plan.seeds else None,
            "tokenizer": str(plan.tokenizer) if plan.tokenizer else None,
            "dedup_index": str(plan.index_dir) if plan.index_dir else None,
            # With pipeline.sources: each one as configured; its steps carry its name ("source").
            "sources": [source.model_dump(mode="json") for source in plan.sources],
            "current_step": None,
            "steps": [],
            "error": None,
        }
        record = cls(path, data, storage)
        record.save()
        return record

    def save(self) -> None:
        write_json(self.path, self.data, self.storage)

    def step_started(self, name: str) -> None:
        self.data["current_step"] = name
        self.save()

    def step_done(self, name: str, outcome: StepOutcome, seconds: float, source: str | None = None) -> None:
        entry = {"step": name, "status": outcome.status, "seconds": round(seconds, 3)}
        if source is not None:
            entry["source"] = source
        if outcome.output is not None:
            entry["output"] = str(outcome.output)
        if outcome.stats is not None:
            stats = outcome.stats
            entry["documents"] = {"in": stats.docs_in, "kept": stats.kept, "dropped": dict(stats.dropped)}
        entry.update(outcome.notes)
        self.data["steps"].append(entry)
        self.data["current_step"] = None
        self.save()

    def add_section(self, name: str, section: dict) -> None:
        self.data[name] = section
        self.save()

    def finish(self, status: str, reason: str | None = None, **sections) -> None:
        self.data.update(status=status, finished_at=utc_now(), reason=reason, **sections)
        self.save()

    def fail(self, step: str | None, error: BaseException) -> None:
        message = str(error) or repr(error)
        self.data["error"] = {"step": step, "type": type(error).__name__, "message": message[:2000]}
        where = f"step {step}" if step else "the run"
        self.finish("failed", f"{where} failed: {type(error).__name__}: {message[:300]}")
