"""The `normalize` stage: Unicode form, mojibake repair, invisible characters, whitespace, and
boilerplate lines (C4-style patterns)."""
