"""One `corpus-pipeline <stage>` verb per registry entry, all with the same options:

    corpus-pipeline STAGE --input IN --output OUT [stage options] [--config C] [--set K=V] [--runner R]
    corpus-pipeline STAGE --run-dir RUN [...]   # input and output from the registry: the previous
                                                # stage's directory of RUN and this stage's own

`jobs/stage.py STAGE ...` (spark-submit) and `make STAGE` call the same verb.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from corpus_pipeline.cli_options import add_many, add_runner_options
from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.engine.registry import STAGES, StageSpec
from corpus_pipeline.engine.stage_order import previous_documents_stage
from corpus_pipeline.engine.store.stage_dir import Location, MissingInputError, child, location, read_success
from corpus_pipeline.failures import UsageError
from corpus_pipeline.ingest.formats import formats_text
from corpus_pipeline.storage import Storage

EXIT_OK = 0
_INPUT_HELP = {
    "files": "WARC/WET/ARC files, globs or directories (--run-dir: default <data_root>/crawl)",
    "datasets": f"dataset files, globs or directories: {formats_text()}",
    "documents": "a stage output directory (--run-dir: the previous stage's)",
    "seeds": "seeds file: one URL a line (# comments); .xml: a sitemap",
}


def register(verbs) -> dict[str, argparse.ArgumentParser]:
    """Add a verb per stage; returns the parsers by stage name (a family may add sub-commands)."""
    parsers = {}
    for spec in STAGES:
        parser = verbs.add_parser(spec.name, help=spec.help)
        names = ("--input", "--seeds") if spec.input == "seeds" else ("--input",)
        help_text = _INPUT_HELP[spec.input]
        if spec.many_inputs:  # dedup and mix read several stages (a run's sources) as one corpus
            help_text = "one or more stage output directories, read as one corpus (--run-dir: the previous stage's)"
        if spec.input in ("files", "datasets") or spec.many_inputs:
            add_many(parser, *names, dest="input", help=help_text)
        else:
            parser.add_argument(*names, dest="input", help=help_text)
        parser.add_argument("--output", type=_location, help="the stage directory to write (a path or s3://...)")
        parser.add_argument("--run-dir", type=_location, help="take --input and --output from this run directory")
        for option in spec.options:
            if option.many:
                add_many(parser, option.flag, help=option.help)
            else:
                parser.add_argument(option.flag, help=option.help)
        add_runner_options(parser, spec.default_runner)
        parser.set_defaults(handler=run_stage_verb, stage=spec.name)
        parsers[spec.name] = parser
    return parsers


def _location(value: str) -> Location:
    try:
        return location(value)
    except ValueError as error:  # argparse would print "invalid value" without the reason
        raise argparse.ArgumentTypeError(str(error)) from None


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _in_run(spec: StageSpec, run_dir: Location, config: PipelineConfig, relative: str) -> Location:
    if relative.startswith("{"):
        return location(relative.format(data_root=config.data_root, run_id=config.run_id))
    return child(run_dir, relative)


def resolve_paths(args: argparse.Namespace, spec: StageSpec, config: PipelineConfig) -> tuple[object, Path, dict]:
    """(input, output, stage options) from the arguments, `--run-dir` filling what is not given."""
    source, output, run_dir = args.input, args.output, args.run_dir
    if run_dir is not None:
        output = output or _in_run(spec, run_dir, config, spec.directory)
        if source is None and spec.input == "files":
            source = [str(child(location(config.data_root), "crawl"))]
        elif source is None and spec.input == "documents":
            source = _in_run(spec, run_dir, config, _previous_directory(spec, run_dir, Storage(config.storage)))
    if source is None and spec.input == "datasets" and run_dir is not None:
        raise UsageError(f"{spec.name}: --input is required: the dataset files (make {spec.name} INPUT=...)")
    if source is None or output is None:
        raise UsageError(f"{spec.name}: --input and --output are required (or --run-dir RUN)")
    options = {}
    for option in spec.options:
        value = getattr(args, _dest(option.flag))
        if value is None and run_dir is not None and option.run_dir_default is not None:
            value = _in_run(spec, run_dir, config, option.run_dir_default)
        if value is None and option.required:
            raise UsageError(f"{spec.name}: {option.flag} is required")
        if value is not None and option.config_key is None:
            options[_dest(option.flag)] = [str(v) for v in value] if option.many else location(value)
    if spec.many_inputs:
        source = [location(path) for path in (source if isinstance(source, list) else [source])]
    elif spec.input == "documents":
        source = location(source)
    return source, location(output), options


def _finished(directory: Location, storage: Storage) -> bool:
    try:
        read_success(directory, storage)
        return True
    except MissingInputError:
        return False


def _previous_directory(spec: StageSpec, run_dir: Location, storage: Storage) -> str:
    """The directory of the run that `spec` reads: the previous stage's, or the source stage's that ran."""
    finished = lambda directory: _finished(child(run_dir, directory), storage)  # noqa: E731
    try:
        return previous_documents_stage(spec.name, finished).directory
    except ValueError as error:
        raise UsageError(str(error)) from None


def _with_option_overrides(args: argparse.Namespace, spec: StageSpec, config: PipelineConfig) -> PipelineConfig:
    shorthands = [
        f"{option.config_key}={getattr(args, _dest(option.flag))}"
        for option in spec.options
        if option.config_key is not None and getattr(args, _dest(option.flag)) is not None
    ]
    if not shorthands:
        return config
    return load_config(args.config, [*args.overrides, *shorthands])


def run_stage_verb(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.engine.registry import stage_spec
    from corpus_pipeline.stage_runner import make_executor, run_stage, stage_class
    from corpus_pipeline.summary import format_funnel

    spec = stage_spec(args.stage)
    # A UsageError or ConfigError here is exit 2 (cli.main maps every failure: corpus_pipeline/failures.py).
    config = _with_option_overrides(args, spec, config)
    source, output, options = resolve_paths(args, spec, config)
    result = run_stage(spec.name, source, output, config, make_executor(config, args.runner, args.work), **options)
    print(format_funnel([result.stats], {result.stats.stage} if result.skipped else set()))
    print(f"{result.stats.stage}: {result.output}")
    describe = getattr(stage_class(spec), "describe", None)  # a stage's own summary of its output
    summary = describe(result.output, Storage(config.storage)) if describe is not None else ""
    if summary:
        print(summary)
    outcome = getattr(stage_class(spec), "outcome", None)  # a stage's own verdict (ingest: kept none)
    if outcome is None:
        return EXIT_OK
    code, message = outcome(result.stats)
    if message:
        print(message, file=sys.stderr)
    return code
