"""spark-submit entry point for the extract stage: the same arguments as `corpus-pipeline extract`.

spark-submit --master spark://HOST:7077 jobs/extract.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["extract", *sys.argv[1:]]))
