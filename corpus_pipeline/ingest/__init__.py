"""Existing datasets into documents: the `ingest` source stage (`stage.py`) and one reader per
format (JSON lines, Parquet, plain text, MediaWiki XML dumps). No Spark here."""
