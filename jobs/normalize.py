"""spark-submit entry point for the normalize stage: the same arguments as `corpus-pipeline normalize`.

spark-submit --master spark://HOST:7077 jobs/normalize.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["normalize", *sys.argv[1:]]))
