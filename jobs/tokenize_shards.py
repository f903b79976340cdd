"""spark-submit entry point for the tokenize stage: the same arguments as `corpus-pipeline tokenize`.

Not `jobs/tokenize.py`: spark-submit puts this folder first on sys.path, where a tokenize.py would
shadow Python's own `tokenize` module (imported by linecache) and break every job in the folder.

    spark-submit --master spark://HOST:7077 jobs/tokenize_shards.py \
        --input DOCS --tokenizer T.json --output DIR [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["tokenize", *sys.argv[1:]]))
