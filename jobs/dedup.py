"""spark-submit entry point for the dedup stage: the same arguments as `corpus-pipeline dedup`.

spark-submit --master spark://HOST:7077 jobs/dedup.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["dedup", *sys.argv[1:]]))
