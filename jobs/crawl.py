"""spark-submit entry point for the crawl: the arguments of `corpus-pipeline crawl`, on Spark.

spark-submit --master spark://HOST:7077 jobs/crawl.py --seeds seeds.txt --output DIR [--config C]

Seeds are split by registered domain into Spark tasks; each task runs scrapy in its own process.
"""

import argparse
import sys

from corpus_pipeline.config import load_config
from corpus_pipeline.crawl.cli import register


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jobs/crawl.py")
    register(parser.add_subparsers(dest="verb", required=True))
    # --runner spark first: a --runner given on the command line still wins (argparse keeps the last).
    args = parser.parse_args(["crawl", "--runner", "spark", *argv])
    return args.handler(args, load_config(args.config, args.overrides))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
