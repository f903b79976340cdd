"""spark-submit entry point for the tokenize stage: the same arguments as `corpus-pipeline tokenize`.

spark-submit --master spark://HOST:7077 jobs/tokenize.py --input DOCS --tokenizer T.json --output DIR [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["tokenize", *sys.argv[1:]]))
