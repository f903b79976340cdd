"""CLI verbs of the tokenize package beyond its stages: shards verify, shards inspect.

`register(verbs)` adds them to the sub-parsers of `corpus_pipeline.cli.build_parser`; each sets
`handler(args, config) -> exit code`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from corpus_pipeline.config import PipelineConfig

EXIT_OK, EXIT_FAULTS = 0, 1


def register(verbs) -> None:
    shards = verbs.add_parser("shards", help="check or look into a token-shard directory")
    actions = shards.add_subparsers(dest="shards_action", required=True)
    verify = actions.add_parser("verify", help="headers, sizes, pointers, ids, end-of-document tokens, checksums")
    verify.add_argument("directory", help="a token-shard directory, or an s3:// one (copied to the shard cache first)")
    verify.add_argument("--no-checksums", action="store_true", help="skip sha256 (the token checks still read .bin)")
    verify.set_defaults(handler=_verify, config=None, overrides=[])
    inspect = actions.add_parser("inspect", help="counts, length histogram, first documents decoded")
    inspect.add_argument("directory", help="a token-shard directory, or an s3:// one (copied to the shard cache first)")
    inspect.add_argument("--documents", type=int, default=3, help="how many documents to decode (default 3)")
    inspect.set_defaults(handler=_inspect, config=None, overrides=[])


def _local(directory: str) -> Path:
    """A local directory as it is; an s3:// one through the shard cache (shard_cache.py), where every
    file is checked against the token manifest's size and sha256 as it is copied."""
    from corpus_pipeline.storage import Storage
    from corpus_pipeline.storage.locations import local_path
    from corpus_pipeline.tokenize.shard_cache import cached_shards, default_cache_dir

    if (local := local_path(directory)) is not None:
        return local
    copy = cached_shards(directory, default_cache_dir(), Storage())
    print(copy.format())
    return copy.directory


def _verify(args: argparse.Namespace, config: PipelineConfig | None) -> int:
    from corpus_pipeline.tokenize.shard_cache import ShardCacheError
    from corpus_pipeline.tokenize.verify import verify_shards

    try:
        directory = _local(args.directory)
    except ShardCacheError as error:  # an object that is not what its stage committed: a fault
        print(f"shards verify: {error}")
        return EXIT_FAULTS
    report = verify_shards(directory, checksums=not args.no_checksums)
    print(report.format())
    return EXIT_OK if report.ok else EXIT_FAULTS


def _inspect(args: argparse.Namespace, config: PipelineConfig | None) -> int:
    from corpus_pipeline.tokenize.shard_inspect import inspect_shards

    print(inspect_shards(_local(args.directory), documents=args.documents))
    return EXIT_OK
