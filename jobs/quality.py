"""spark-submit entry point for the quality stage: the same arguments as `corpus-pipeline quality`.

spark-submit --master spark://HOST:7077 jobs/quality.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["quality", *sys.argv[1:]]))
