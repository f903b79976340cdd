"""The steps of a run, in the registry's order (engine/registry.py), with the gates before the first
stage that consumes the corpus, then training and the report. Each stage step calls the same
`run_stage`/`run_fused` as its CLI verb, make target and spark-submit job, and the stage's own
lifecycle (fingerprint, `_SUCCESS` last, per-task resume) decides whether it runs, resumes or is
reused, so a rerun after a crash continues from the first unfinished stage.

A stage's step is the one its registry entry names (`StageSpec.step`: pipeline/stage_steps.py, for
the stages whose inputs are not just the previous documents), else `document_step`
(pipeline/document_steps.py): a new document stage is its registry entry.
"""

from __future__ import annotations

from corpus_pipeline.engine import registry
from corpus_pipeline.engine.registry import StageSpec, resolve
from corpus_pipeline.engine.store.stage_dir import child
from corpus_pipeline.pipeline.context import RunContext, Step, StepOutcome
from corpus_pipeline.pipeline.document_steps import document_step
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import write_json

GATES_FILE = "gates.json"


def gates(ctx: RunContext) -> StepOutcome:
    """Every stage's gates over the final corpus (corpus_pipeline/gates.py); recomputed every time (they
    read four columns and the decontaminate stage's stats)."""
    from corpus_pipeline.gates import evaluate_gates

    report = evaluate_gates(ctx.run_dir, ctx.config, Storage(ctx.config.storage), corpus=ctx.documents)
    path = child(ctx.run_dir, GATES_FILE)
    write_json(path, report.to_dict(), Storage(ctx.config.storage))
    ctx.gates_passed = report.passed
    failed = [
        f"{g.language} {g.name} = {'not measured' if g.value is None else f'{g.value:.4g}'}, bound {g.bound}"
        for g in report.gates
        if not g.passed
    ]
    if not report.documents:
        failed.insert(0, "the corpus has no documents")
    return StepOutcome("ran", path, notes={"passed": report.passed, "documents": report.documents, "failed": failed})


def train_model(ctx: RunContext) -> StepOutcome:
    """A model trained on the run's shards (pipeline.train_config): the proof that the corpus trains.
    Reused when an earlier attempt finished on the same shards; resumed from its checkpoint when it
    was interrupted."""
    settings = ctx.config.pipeline
    if settings.train_config is None:
        return StepOutcome("not needed", notes={"why": "no pipeline.train_config"})
    from corpus_pipeline.train.checkpoint import CHECKPOINT_FILE
    from corpus_pipeline.train.config import load_train_config
    from corpus_pipeline.train.distributed import setup_distributed
    from corpus_pipeline.train.train import finished_run, train

    config = load_train_config(settings.train_config, settings.train_overrides)
    out = ctx.run_dir / f"train_{config.preset}"
    ctx.model = out
    done = finished_run(out, ctx.tokens, config)
    if done is not None:
        return StepOutcome("reused", out, notes={"val_loss": done["val_loss"], "steps": done["step"]})
    result = train(ctx.tokens, out, config, setup_distributed(config.device), resume=(out / CHECKPOINT_FILE).exists())
    return StepOutcome(
        "ran",
        out,
        notes={
            "val_loss": result.val_loss,
            "steps": result.step,
            "tokens": result.tokens_seen,
            "parameters": result.parameters,
        },
    )


def report(ctx: RunContext) -> StepOutcome:
    """The HTML report, also (above all) when a gate failed: it says why."""
    from corpus_pipeline.report.write import write_report

    result = write_report(ctx.run_dir, ctx.config, ctx.plan.previous_run)
    alerts = [f"{check.name}: {check.detail}" for check in result.figures.alerts]
    return StepOutcome("ran", result.path, notes={"drift_alerts": alerts})


def per_source_stages() -> tuple[str, ...]:
    """The stages each source runs on its own (pipeline.sources): those before the first stage that
    reads many inputs (dedup, which reads every source's documents as one corpus)."""
    stages = registry.STAGES
    first_of_all = next(n for n, spec in enumerate(stages) if spec.many_inputs)
    return tuple(spec.name for spec in stages[:first_of_all])


def _stage_step(spec: StageSpec) -> Step:
    run = resolve(spec.step) if spec.step else document_step(spec.name)
    return Step(spec.name, run, needs_passing_gates=spec.consumes_corpus, per_source=spec.name in per_source_stages())


def pipeline_steps() -> tuple[Step, ...]:
    """Every registry stage in order (as registered when called), the gates before the first that
    consumes the corpus, then the model and the report."""
    steps: list[Step] = []
    for spec in registry.STAGES:
        if spec.consumes_corpus and all(step.name != "gates" for step in steps):
            steps.append(Step("gates", gates))
        steps.append(_stage_step(spec))
    steps.append(Step("train", train_model, needs_passing_gates=True))
    steps.append(Step("report", report))
    return tuple(steps)


STEPS: tuple[Step, ...] = pipeline_steps()
