"""Repeated options accumulate, in every verb: `--eval humaneval --eval my.jsonl` checks both."""

from __future__ import annotations

import argparse

import pytest

from corpus_pipeline.cli import build_parser


def _verb_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(verb path, parser) for every verb and sub-verb of the CLI."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _verb_parsers(sub, (*path, name))


def _multi_value_options():
    found = []
    for path, parser in _verb_parsers(build_parser()):
        for action in parser._actions:
            if action.option_strings and (action.nargs in ("+", "*") or isinstance(action, argparse._AppendAction)):
                found.append(pytest.param(path, action, id=f"{' '.join(path)} {action.option_strings[0]}"))
    return found


MULTI_VALUE = _multi_value_options()


def test_the_cli_has_the_multi_value_options_the_issue_names():
    ids = {param.id for param in MULTI_VALUE}
    for expected in (
        "decontaminate --eval",
        "extract --input",
        "dedup --input",
        "mix --input",
        "ingest --input",
        "quality train-classifier --positive",
        "run --set",
        "report --set",
    ):
        assert expected in ids


def _minimal_argv(path: tuple[str, ...], parser: argparse.ArgumentParser, skip: argparse.Action) -> list[str]:
    """The verb with a value for each required argument other than `skip`."""
    argv = list(path)
    for action in parser._actions:
        if action is skip or isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
            continue
        if not action.option_strings:
            argv.append("x")
        elif action.required:
            argv += [action.option_strings[0], "x"]
    return argv


@pytest.mark.parametrize(("path", "action"), MULTI_VALUE)
def test_a_repeated_option_accumulates(path, action):
    parser = dict(_verb_parsers(build_parser()))[path]
    flag = action.option_strings[0]
    first, second, third = (
        ("a=1", "b=2", "c=3") if action.dest.endswith("overrides") or flag == "--label" else ("a", "b", "c")
    )
    repeated = [flag, first, flag, second]
    if action.nargs in ("+", "*"):
        repeated.append(third)  # a second occurrence with two values: all three are kept
    argv = _minimal_argv(path, parser, action) + repeated
    args = build_parser().parse_args(argv)
    value = [str(item) for item in getattr(args, action.dest)]
    expected = [first, second, third] if action.nargs in ("+", "*") else [first, second]
    assert [v.rstrip("/") for v in value][-len(expected) :] == expected
