"""Keep rules: signals against the bounds in `quality.rules`, per domain and language; and noise
retention.

The signals are computed once and stored as columns, so re-tuning a bound re-runs this, not the
signals. A rule's key is its drop reason; the first rule out of bounds, in config order, decides.
A null signal decides nothing (no stop-word list for the language, no classifier configured).
A document's `domain` picks its rule set (`QualityConfig.domain_rules`: `quality.rules` with the
domain's changes); a domain without changes, or no domain, gets `quality.rules`.
"""

from __future__ import annotations

import xxhash

from corpus_pipeline.quality.keep_rules import KeepRule
from corpus_pipeline.stages.base import Drop

Check = tuple[str, str, float | None, float | None]  # rule name, signal, min, max


class KeepRules:
    def __init__(
        self,
        rules: dict[str, KeepRule],
        known_signals: set[str],
        by_domain: dict[str, dict[str, KeepRule]] | None = None,
    ):
        """`by_domain`: domain -> its whole rule set, for the domains whose rules differ from `rules`."""
        self.rules = rules
        self.by_domain = by_domain or {}
        for where, rule_set in (
            ("quality.rules", rules),
            *((f"quality.rules_by_domain.{d}", r) for d, r in self.by_domain.items()),
        ):
            unknown = {name: rule.signal for name, rule in rule_set.items() if rule.signal not in known_signals}
            if unknown:
                raise ValueError(f"{where} refer to unknown signals {unknown}; known signals: {sorted(known_signals)}")
        self._checks: dict[tuple[str | None, str | None], list[Check]] = {}

    def checks(self, language: str | None, domain: str | None = None) -> list[Check]:
        """The enabled rules with the bounds that apply to `language` in `domain`, resolved once."""
        domain = domain if domain in self.by_domain else None
        key = (language, domain)
        if key not in self._checks:
            checks = []
            rules = self.by_domain[domain] if domain is not None else self.rules
            for name, rule in rules.items():
                low, high, enabled = rule.min, rule.max, rule.enabled
                override = rule.by_language.get(language) if language is not None else None
                if override is not None:  # only what the override sets replaces the rule's own
                    given = override.model_fields_set
                    low = override.min if "min" in given else low
                    high = override.max if "max" in given else high
                    enabled = override.enabled if "enabled" in given else enabled
                if enabled and (low is not None or high is not None):
                    checks.append((name, rule.signal, low, high))
            self._checks[key] = checks
        return self._checks[key]

    def verdict(self, signals: dict, language: str | None, domain: str | None = None) -> Drop | None:
        for name, signal, low, high in self.checks(language, domain):
            value = signals.get(signal)
            if value is None:
                continue
            if low is not None and value < low:
                return Drop(name, f"{signal}={value:.4g} < min {low:g} ({language or 'no language'})")
            if high is not None and value > high:
                return Drop(name, f"{signal}={value:.4g} > max {high:g} ({language or 'no language'})")
        return None


def retained_as_noise(doc_id: str, fraction: float, seed: int) -> bool:
    """Whether this rejected document is one of the seeded `fraction` kept as noise: a hash of the
    id, so the same documents are kept on every rerun and under any partitioning."""
    if fraction <= 0.0:
        return False
    return xxhash.xxh64_intdigest(doc_id.encode("utf-8", "surrogatepass"), seed=seed) < fraction * 2.0**64
