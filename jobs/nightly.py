"""spark-submit entry point for `corpus-pipeline nightly`, with the same arguments.

spark-submit --master spark://HOST:7077 jobs/nightly.py --config C [--set KEY=VALUE]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["nightly", *sys.argv[1:]]))
