"""PII and secrets: detection (one module per family), overlap resolution and redaction
(`detector.py`), the `pii` stage, its runner and CLI. Per-document code only: no Spark here."""
