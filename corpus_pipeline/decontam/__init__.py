"""Benchmark decontamination: find evaluation items in the corpus, remove them, report them."""
