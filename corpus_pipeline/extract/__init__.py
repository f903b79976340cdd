"""The `extract` stage: WARC/WET/ARC records -> documents (the main text of each HTML page, by the
engine `extract.engine` names), with the per-page time limit that isolates a hanging parse."""
