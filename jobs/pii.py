"""spark-submit entry point for the pii stage: the same arguments as `corpus-pipeline pii`.

spark-submit --master spark://HOST:7077 jobs/pii.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["pii", *sys.argv[1:]]))
