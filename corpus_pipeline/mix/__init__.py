"""mix: token shards built to target shares of sources, domains and languages (see stage.py)."""
