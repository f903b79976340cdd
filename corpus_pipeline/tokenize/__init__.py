"""Byte-level BPE training and tokenization into Megatron-LM indexed-dataset shards (.bin/.idx).

Pure helpers here (pre-tokenization, encoding, the shard format, reader, verifier); the only module
that imports pyspark is `spark_jobs`, and only the runner imports it.
"""
