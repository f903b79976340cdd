"""spark-submit entry point for `corpus-pipeline run` (the whole pipeline), with the same arguments.

spark-submit --master spark://HOST:7077 jobs/pipeline.py --config C [--set KEY=VALUE]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", *sys.argv[1:]]))
