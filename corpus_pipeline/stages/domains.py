"""A document's domain: the first `domains.rules` entry matching its URL's host and path, else the
label of the domain classifier (`domains.classifier`) when its probability reaches `min_score`, else
the default domain of its source. Both source stages (extract, ingest) are given a `domains:`
section and label by its `DomainRules`."""

from __future__ import annotations

import fnmatch
import os
import re
from urllib.parse import urlsplit

from corpus_pipeline.config import DomainsConfig


class DomainRules:
    """The compiled rules of one `domains:` section (built once per stage, not per document). The
    classifier's fastText model is loaded in the process that labels, once (quality.classifier)."""

    def __init__(self, config: DomainsConfig | None = None):
        config = self.config = config or DomainsConfig()
        # fnmatch's own cache holds 32,768 patterns, but translating once keeps the per-URL cost
        # to two regex calls per rule tried.
        self._rules = [
            (re.compile(fnmatch.translate(r.host.lower())), re.compile(r.path) if r.path else None, r.domain)
            for r in config.rules
        ]
        self.classifier = config.classifier
        if self.classifier.model_path is not None and not os.path.exists(self.classifier.model_path):
            raise FileNotFoundError(f"domains.classifier.model_path: {self.classifier.model_path} does not exist")

    def __bool__(self) -> bool:
        """False: every document gets its source's default domain."""
        return bool(self._rules) or self.needs_text

    @property
    def needs_text(self) -> bool:
        return self.classifier.model_path is not None

    def domain_of(self, url: str | None, default: str, text: str | None = None) -> str:
        return self._by_url(url) or self._by_text(text) or default

    def domains_of(self, urls: list[str | None], default: str, texts: list[str] | None = None) -> list[str]:
        texts = texts if texts is not None else [None] * len(urls)
        return [self.domain_of(url, default, text) for url, text in zip(urls, texts, strict=True)]

    def _by_url(self, url: str | None) -> str | None:
        if not self._rules or not url:
            return None
        try:
            parts = urlsplit(url)
        except ValueError:  # an unbalanced "[" in the host: no rule can match it
            return None
        host = (parts.hostname or "").rstrip(".")
        path = parts.path or "/"
        for host_pattern, path_pattern, domain in self._rules:
            if host_pattern.match(host) and (path_pattern is None or path_pattern.search(path)):
                return domain
        return None

    def _by_text(self, text: str | None) -> str | None:
        if not self.needs_text or not text:
            return None
        from corpus_pipeline.fasttext_models import LABEL_PREFIX, classifier_tokens, load_model

        labels, scores = load_model(self.classifier.model_path).predict(" ".join(classifier_tokens(text)))
        if not labels or float(scores[0]) < self.classifier.min_score:
            return None
        return labels[0].removeprefix(LABEL_PREFIX)
