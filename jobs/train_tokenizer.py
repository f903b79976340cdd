"""spark-submit entry point for the train-tokenizer stage: the same arguments as `corpus-pipeline train-tokenizer`.

spark-submit --master spark://HOST:7077 jobs/train_tokenizer.py --input ... --output ... [--config C]
"""

import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["train-tokenizer", *sys.argv[1:]]))
