"""corpus_pipeline: web crawls to clean, deduplicated, tokenized pretraining corpora, on Spark."""

__version__ = "0.1.0"
