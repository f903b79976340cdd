"""spark-submit entry point for the langid stage: the same arguments as `corpus-pipeline langid`.

spark-submit --master spark://HOST:7077 jobs/langid.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["langid", *sys.argv[1:]]))
