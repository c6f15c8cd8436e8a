"""Which decision threshold a judged metric uses, and why.

A judge stores generic thresholds (``entailment``, ``relevance``) and may store per-metric
ones (``faithfulness``, ``context_recall``, ``chunk_recall_relevance`` ...), chosen on
development data. A user gives thresholds the same way (``--threshold``, ``[thresholds]``,
``evaluate(thresholds=...)``). The order, first match wins:

1. the metric's own ``threshold=`` argument;
2. a user-given per-metric key, then a user-given generic key: a value the user typed always
   beats a value stored with the judge, so ``--threshold entailment=0.85`` moves every
   entailment decision, faithfulness' and context recall's included;
3. the judge's stored per-metric key, then its stored generic key;
4. 0.5 (a judge that stores nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

# The declarations' home (data only, no metric imported); re-exported here where they were.
from localeval.catalog import GENERIC_KINDS, check_threshold_keys, did_you_mean

__all__ = ["GENERIC_KINDS", "ThresholdChoice", "check_threshold_keys", "check_thresholds_read", "choose_threshold", "unread_thresholds",
           "did_you_mean", "with_verdict"]

FALLBACK = 0.5


class ThresholdChoice(NamedTuple):
    value: float
    key: str
    """The key the value was read from (``"faithfulness"``, ``"entailment"``)."""
    source: str
    """``"given"`` (by the user), ``"stored"`` (with the judge) or ``"fallback"``."""


def choose_threshold(stored: Mapping[str, float], given: Mapping[str, float], key: str, kind: str) -> ThresholdChoice:
    """The threshold for a decision of ``kind`` whose per-metric key is ``key`` (see the module)."""
    for table, source in ((given, "given"), (stored, "stored")):
        for name in (key, kind):
            if name in table:
                return ThresholdChoice(float(table[name]), name, source)
    return ThresholdChoice(FALLBACK, kind, "fallback")


def unread_thresholds(thresholds: Mapping[str, float], uses: Mapping[str, Iterable[tuple[str, str]]]) -> tuple[list[str], str]:
    """The given keys none of the run's metrics reads (``uses``: output name -> its ``(kind,
    per-metric key)`` decisions), and what each metric reads, in words."""
    read = {name: sorted({key for pair in pairs for key in pair}) for name, pairs in uses.items()}
    keys = {key for found in read.values() for key in found}
    said = "; ".join(f"{name} reads {', '.join(found)}" for name, found in read.items() if found)
    return [name for name in thresholds if name not in keys], said or "none of them asks the judge"


def check_thresholds_read(thresholds: Mapping[str, float], uses: Mapping[str, Iterable[tuple[str, str]]]) -> None:
    """Raise ValueError for a given key that none of the run's metrics reads, naming which
    metric reads which key: a ``relevance=0.5`` on a run of claim metrics would otherwise
    change nothing, silently."""
    unread, said = unread_thresholds(thresholds, uses)
    if unread:
        raise ValueError(f"threshold {', '.join(map(repr, unread))} is read by none of the chosen metrics ({said})")


class ThresholdUse(NamedTuple):
    """One decision of one metric: what `localeval config` lists."""

    metric: str
    kind: str
    own_key: str
    """The metric's per-metric key for this decision (read before the generic ``kind``)."""
    choice: ThresholdChoice


def thresholds_in_force(metrics: Iterable[str], stored: Mapping[str, float], given: Mapping[str, float],
                        verdict_threshold: float | None = None) -> list[ThresholdUse]:
    """For each metric name (unknown names are skipped: the run reports them), each of its
    decisions with the threshold it will use; ``verdict_threshold``: the judge stores a learned
    verdict, which the claim metrics' entailment decisions fall back to
    (`JudgedMetric._judge_threshold`)."""
    from localeval.metrics.registry import resolve_name, threshold_uses

    out: list[ThresholdUse] = []
    for name in metrics:
        try:
            cls, _ = resolve_name(name)
        except ValueError:
            continue
        table = with_verdict(stored, verdict_threshold if getattr(cls, "reads_verdict", False) else None)
        for kind, key in threshold_uses(name):
            out.append(ThresholdUse(name, kind, key, choose_threshold(table, given, key, kind)))
    return out


def with_verdict(stored: Mapping[str, float], verdict_threshold: float | None) -> Mapping[str, float]:
    """A judge's stored thresholds as a metric whose claims a learned verdict decides reads
    them: its generic ``entailment`` is the verdict's threshold (its claims' probabilities are
    P(supported), not raw P(entailment)); unchanged when ``verdict_threshold`` is ``None``."""
    return stored if verdict_threshold is None else {**stored, "entailment": verdict_threshold}
