"""Every figure of the report, gathered from a run directory (and the previous snapshot's, for drift).

A stage that did not run leaves its figures None, which the page shows as "not run"; everything
else is read from what the stages wrote: `_stats.json`, small Parquet columns, the token manifest
and shards. Nothing here formats anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import corpus_pipeline.report.corpus_figures as corpus
import corpus_pipeline.report.token_figures as tokens
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.registry import STAGES as REGISTRY
from corpus_pipeline.engine.registry import resolve
from corpus_pipeline.gates import GateReport, evaluate_gates
from corpus_pipeline.report.bars import Bars, ranked, top_with_other
from corpus_pipeline.report.decontam_figures import DecontaminationFigures
from corpus_pipeline.report.diversity import DiversityFigures, cluster_drift, diversity_figures
from corpus_pipeline.report.drift import DriftCheck, Profile, compare
from corpus_pipeline.report.examples import ExampleGroup, Redactor, borderline_kept, stage_examples
from corpus_pipeline.report.funnel import FunnelRow, funnel_rows, text_bytes_per_token
from corpus_pipeline.report.histogram import Histogram
from corpus_pipeline.report.run_dir import DOCUMENT_STAGES, StageRun, crawl_runs, read_run
from corpus_pipeline.report.source_figures import (
    GroupTable,
    MixShare,
    group_tables,
    mix_shares,
    source_funnels,
    source_runs,
)
from corpus_pipeline.report.training_figures import TrainingRun, training_runs
from corpus_pipeline.storage import Storage


@dataclass
class RunFigures:
    run_dir: Path
    stages: dict[str, StageRun]
    funnel: list[FunnelRow]
    final_stage: str | None = None  # the last document stage that finished
    languages_detected: Bars | None = None  # every document langid saw
    languages_final: Bars | None = None
    domains: Bars | None = None  # the `domain` column
    hosts: Bars | None = None  # URL hosts
    quality_histograms: list[Histogram] | None = None
    quality_not_computed: list[str] = field(default_factory=list)  # signals null for every document
    quality_all_zero: list[str] = field(default_factory=list)  # signals 0 for every document: no histogram
    clusters: Bars | None = None
    duplicate_rate: float | None = None
    pii: tuple[Bars, Bars] | None = None
    shards: Bars | Histogram | None = None
    token_languages: Bars | None = None
    top_tokens: Bars | None = None
    examples: list[ExampleGroup] = field(default_factory=list)
    groups: list[GroupTable] | None = None  # documents and tokens per source, domain, language
    source_funnels: dict[str, list[FunnelRow]] = field(default_factory=dict)  # pipeline.sources' stages
    mix: list[MixShare] | None = None  # None: the run has no mix
    min_shares: dict[str, float] = field(default_factory=dict)  # nightly.min_shares: the publish bounds
    decontamination: DecontaminationFigures | None = None
    gates: GateReport | None = None
    gates_error: str | None = None
    profile: Profile = field(default_factory=Profile)
    previous_dir: Path | None = None
    drift: list[DriftCheck] | None = None  # None: no previous snapshot given
    diversity: DiversityFigures | None = None  # None: not measured, for `diversity_skipped`
    diversity_skipped: str | None = None
    training: list[TrainingRun] = field(default_factory=list)  # models trained in the run directory

    @property
    def alerts(self) -> list[DriftCheck]:
        return [check for check in self.drift or [] if check.alert]


# Stages that stand in for each other: a run reads with extract or ingest, writes shards with
# tokenize or mix; the one of a pair that did not run is not "not run" when the other ran.
_ROLES = {spec.name: "source" if spec.kind == "source" else spec.output for spec in REGISTRY}
# An opt-in stage (embed) that did not run was not asked for: left out, not "not run".
_OPT_IN = {spec.name for spec in REGISTRY if spec.opt_in}


def _replaced(row: FunnelRow, funnel: list[FunnelRow]) -> bool:
    role = _ROLES.get(row.stage)
    return role in ("source", "tokens") and any(other.done and _ROLES.get(other.stage) == role for other in funnel)


def shards_stage(stages: dict[str, StageRun]) -> StageRun:
    """The stage whose shards the run trains on: mix when it ran, else tokenize."""
    return stages["mix"] if stages["mix"].done else stages["tokenize"]


def _langid_runs(stages: dict[str, StageRun]) -> list[StageRun]:
    """The langid stages that ran on the corpus: the run's, or those of its sources."""
    runs = [stages["langid"], *(run["langid"] for run in source_runs(stages["langid"].directory.parent).values())]
    return [run for run in runs if run.done]


def profile_of(stages: dict[str, StageRun]) -> Profile:
    """The drift figures of one snapshot (the token distribution costs one pass over the shards)."""
    profile = Profile(duplicate_rate=corpus.duplicate_rate(stages["dedup"]))
    final = corpus.final_corpus(stages)
    if final is not None and _langid_runs(stages):
        profile.language_counts = corpus.language_counts(final)
    if final is not None:  # drift compares URL hosts (report.drift.domain_share), as before
        profile.domain_counts = corpus.host_counts(final)
    if shards_stage(stages).done:
        manifest = tokens.manifest_of(shards_stage(stages))
        distribution = tokens.token_distribution(shards_stage(stages), manifest)
        profile.token_counts, profile.token_labels = distribution.counts, distribution.shown
        if "mix" in manifest:
            profile.mix_shares = {share.group: share.achieved for share in mix_shares(manifest)}
    return profile


def _examples(stages: dict[str, StageRun], config: PipelineConfig) -> list[ExampleGroup]:
    count = config.report.examples_per_rule
    if count == 0:
        return []
    redactor = Redactor(config.pii, config.report.example_chars)
    groups = []
    for name in DOCUMENT_STAGES:
        # decontaminate's texts hold eval items: its section shows reject details only.
        if stages[name].done and name != "decontaminate":
            groups += stage_examples(stages[name], redactor, count)
    if stages["quality"].done:
        groups += borderline_kept(stages["quality"], config.quality, redactor, count)
    return groups


def _gates(figures: RunFigures, config: PipelineConfig) -> None:
    if not figures.stages["quality"].done:
        return
    final = corpus.final_corpus(figures.stages)  # by its _SUCCESS, whatever its directory is called
    try:
        figures.gates = evaluate_gates(figures.run_dir, config, Storage(config.storage), corpus=final.directory)
    except (FileNotFoundError, ValueError) as error:
        figures.gates_error = str(error)


def collect(run_dir: Path, config: PipelineConfig, previous: Path | None = None) -> RunFigures:
    stages = read_run(run_dir)
    report = config.report
    # The crawl heads the funnel (its pages fetched and dropped), of the run or of its web source.
    crawls = crawl_runs(run_dir)
    funnel = funnel_rows({"crawl": crawls[None], **stages} if None in crawls else stages)
    figures = RunFigures(run_dir, stages, funnel, profile=profile_of(stages))
    final = corpus.final_corpus(stages)
    figures.final_stage = final.name if final else None
    profile = figures.profile
    if _langid_runs(stages):
        detected = Counter()
        for run in _langid_runs(stages):
            detected.update(run.stats.extra.get("languages", {}))
        figures.languages_detected = Bars("languages detected (every document langid saw)", ranked(detected))
        figures.languages_final = Bars(f"languages of the final corpus ({final.name})", ranked(profile.language_counts))
    if final is not None:
        domains = top_with_other(corpus.domain_counts(final), report.top_domains)
        figures.domains = Bars(f"domains of the final corpus ({final.name}, the domain column)", domains)
        hosts = top_with_other(profile.domain_counts, report.top_domains)
        figures.hosts = Bars(f"URL hosts of the final corpus ({final.name})", hosts)
    for spec in REGISTRY:  # each stage's own section, by its registry entry
        if spec.report is not None and stages[spec.name].done:
            resolve(spec.report)(figures, stages[spec.name], config)
    shards = shards_stage(stages)
    if shards.done:
        manifest = tokens.manifest_of(shards)
        figures.shards = tokens.shard_plot(manifest, report.histogram_bins)
        figures.token_languages = tokens.language_bars(shards)
        distribution = tokens.TokenDistribution(profile.token_counts, profile.token_labels)
        figures.top_tokens = tokens.top_token_bars(distribution, report.top_tokens)
        figures.mix = mix_shares(manifest) if "mix" in manifest else None
        figures.min_shares = dict(config.nightly.min_shares)
    if final is not None:
        figures.groups = group_tables(final, shards)
    runs = source_runs(run_dir)
    runs.update({name: {"crawl": crawls[name], **runs[name]} for name in crawls if name in runs})
    figures.source_funnels = source_funnels(runs, text_bytes_per_token(stages))
    # A run of pipeline.sources ran extract, ingest, langid... in its sources: not "not run" here,
    # and the funnel runs from each source's first stage ("web/extract") through dedup to the shards.
    in_sources = {row.stage for funnel in figures.source_funnels.values() for row in funnel}
    funnel = figures.funnel
    sources_read = any(_ROLES.get(stage) == "source" for stage in in_sources)  # extract or ingest there

    def shown(row: FunnelRow) -> bool:
        read_in_sources = sources_read and _ROLES.get(row.stage) == "source"
        left_out = row.stage in in_sources or read_in_sources or _replaced(row, funnel) or row.stage in _OPT_IN
        return row.done or not left_out

    funnel = [row for row in funnel if shown(row)]
    from_sources = [
        replace(row, stage=f"{name}/{row.stage}") for name, rows in figures.source_funnels.items() for row in rows
    ]
    at = next((n for n, row in enumerate(funnel) if row.stage not in in_sources and row.stage != "crawl"), 0)
    figures.funnel = funnel[:at] + from_sources + funnel[at:]
    figures.examples = _examples(stages, config)
    _gates(figures, config)
    previous_stages = read_run(previous) if previous is not None else None
    if previous_stages is not None:
        figures.previous_dir = previous
        figures.drift = compare(profile_of(previous_stages), profile, report.drift, report.top_domains)
    _diversity(figures, final, previous_stages, config)
    figures.training = training_runs(run_dir)
    return figures


def _diversity(
    figures: RunFigures, final: StageRun | None, previous: dict[str, StageRun] | None, config: PipelineConfig
) -> None:
    """Topic clusters and their drift, when report.diversity is on and the encoder loads; else why not."""
    settings = config.report.diversity
    if not settings.enabled:
        figures.diversity_skipped = (
            "not measured: report.diversity.enabled is false (it embeds a sample of the corpus with a "
            "transformer, ~18 documents/s on 2 CPU cores)"
        )
        return
    if final is None:
        figures.diversity_skipped = "not measured: no document stage finished"
        return
    from corpus_pipeline.embeddings.encoder import EncoderUnavailable, load_encoder

    try:
        encoder = load_encoder(settings.model, settings.device)
    except EncoderUnavailable as error:
        figures.diversity_skipped = f"not measured: {error}"
        return
    redactor = Redactor(config.pii, config.report.example_chars)
    figures.diversity = diversity_figures(final, settings, encoder, redactor)
    previous_final = corpus.final_corpus(previous) if previous is not None else None
    if figures.drift is not None and previous_final is not None:
        bound, shown = config.report.drift.cluster_share, config.report.top_domains
        figures.drift.append(cluster_drift(figures.diversity, previous_final, settings, encoder, bound, shown))
