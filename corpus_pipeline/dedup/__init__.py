"""Deduplication: exact and MinHash near-duplicate removal on Spark (see spark_job.py)."""
