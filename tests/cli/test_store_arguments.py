"""Verbs that take a run or stage directory keep an s3:// location whole (a Path folds `s3://` to `s3:/`)."""

import pytest

from corpus_pipeline.cli import build_parser


@pytest.mark.parametrize("verb", ["gates", "report"])
def test_a_run_directory_in_a_bucket_reaches_the_verb_unfolded(verb):
    args = build_parser().parse_args([verb, "s3://bucket/root/runs/demo"])
    assert str(args.run_dir) == "s3://bucket/root/runs/demo"
