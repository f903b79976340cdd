"""`corpus-pipeline export --input STAGE --output DIR --format parquet|jsonl`: a finished stage's
documents (a mix's in shard order) as a dataset repository, local or `s3://`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from corpus_pipeline.cli_options import add_config_options
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.registry import STAGES
from corpus_pipeline.engine.store.stage_dir import (
    Location,
    MissingInputError,
    child,
    location,
    read_stage_bytes,
    read_success,
)
from corpus_pipeline.storage import Storage

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
# Text bytes per shard (before compression): ~80-120 MB files of zstd Parquet, well under the Hub's
# advice of files below 5 GB, and enough shards for `datasets` to read in parallel.
DEFAULT_SHARD_MB = 256


def register(verbs) -> None:
    export = verbs.add_parser(
        "export", help="a finished stage's documents as a dataset (data/train-*.parquet|.jsonl.zst + README.md)"
    )
    export.add_argument("--input", required=True, type=location, help="a finished stage directory (a mix: shard order)")
    export.add_argument(
        "--output", required=True, type=location, help="a new or empty folder, or an empty s3:// prefix"
    )
    export.add_argument("--format", choices=("parquet", "jsonl"), default="parquet", help="parquet, or jsonl (zstd)")
    export.add_argument("--shard-mb", type=float, default=DEFAULT_SHARD_MB, help="text megabytes per shard")
    add_config_options(export)
    export.set_defaults(handler=export_verb)


def _funnel(stage_dir: Location, storage: Storage) -> dict:
    """The figures of the stage and of the finished stages beside it (a run directory's), in order."""
    figures = {}
    # The run's stages beside it, by the registry's directory names (a listing of the parent could
    # be a whole home folder).
    parent = location(str(stage_dir).rstrip("/").rpartition("/")[0] or ".")
    siblings = [child(parent, spec.directory) for spec in STAGES if "{" not in spec.directory]
    for directory in siblings if stage_dir in siblings else [stage_dir]:
        try:
            name = read_success(directory, storage).get("stage", Path(str(directory)).name)
            figures[name] = json.loads(read_stage_bytes(directory, "_stats.json", storage))
        except (MissingInputError, OSError, ValueError):
            continue
    return figures


def export_verb(args, config: PipelineConfig) -> int:
    from corpus_pipeline.export.card import CardFigures, render
    from corpus_pipeline.export.documents import stage_documents
    from corpus_pipeline.export.write import ExportOutputExists, write_export

    storage = Storage(config.storage)
    try:
        documents = stage_documents(args.input, storage)
    except MissingInputError as error:
        print(f"corpus-pipeline export: {error}", file=sys.stderr)
        return EXIT_USAGE
    made = {
        "stage": documents.stage,
        "input": str(args.input),
        "funnel": _funnel(args.input, storage),
        "config": config.model_dump(mode="json", exclude_defaults=True),
    }

    def card(figures, written) -> str:
        return render(figures, written.files, args.format, made)

    figures = CardFigures()
    try:
        written = write_export(
            documents, args.output, args.format, int(args.shard_mb * (1 << 20)), figures, card, storage
        )
    except ExportOutputExists as error:
        print(f"corpus-pipeline export: {error}", file=sys.stderr)
        return EXIT_USAGE
    shards = f"{len(written.files)} shard" + ("" if len(written.files) == 1 else "s")
    print(f"export: {sum(written.rows):,} documents in {shards} -> {args.output}")
    # A mix's sequences repeat documents by design (its `repeat` column); any other repeat is news.
    repeated = None if documents.mix is not None else figures.ids.warning("export", str(args.input))
    if repeated:
        print(repeated, file=sys.stderr)
    return EXIT_OK
