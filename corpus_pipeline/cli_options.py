"""The options every verb that reads the pipeline config shares: defined here once."""

from __future__ import annotations

import argparse

from corpus_pipeline.engine.config import RUNNERS


def add_many(parser: argparse.ArgumentParser, *flags: str, **options) -> argparse.Action:
    """An option that takes several values and accumulates when repeated: `--eval a --eval b c`
    is [a, b, c]. (argparse's plain `nargs="+"` keeps only the last occurrence, so the first
    `--eval humaneval` of two was dropped without a word.) Every multi-value option is made here."""
    return parser.add_argument(*flags, nargs="+", action="extend", **options)


def add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="YAML config (configs/demo.yaml); defaults apply without one")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config value, e.g. --set langid.min_score=0.7 (repeatable)",
    )
    # What the verb has done (failures.Work) and --debug: `main` sets both; a handler called with
    # the parsed arguments alone (a test's) runs with its executors' own Work and no tracebacks.
    parser.set_defaults(work=None, debug=False)


def add_runner_options(parser: argparse.ArgumentParser, runner_default: str = "spark") -> None:
    """--config, --set and --runner."""
    add_config_options(parser)
    parser.add_argument(
        "--runner",
        choices=RUNNERS,
        default=runner_default,
        help="spark: a Spark job (local[*] unless spark-submit set a master); local: this process only",
    )
