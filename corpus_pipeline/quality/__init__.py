"""Quality signals, keep rules, blocklists, the fastText quality classifier and corpus-level gates."""
