"""Every metric's declaration, as data: its versioned name, the run options it honours, the
threshold keys it reads and which way its score improves.

This module imports nothing of localeval's, so the layers that check a user's input before
anything loads (`localeval.options`, `localeval.config`, the CLI's argument checks, reports
that colour a difference) read it without importing a metric, a judge or torch. The metric
classes register under these names with ``@register_metric("context_recall.v1")``
(`localeval.metrics.base`), which takes the options and the direction from here and refuses a
class whose threshold decisions differ from its declaration, so class and data cannot drift.

Names are versioned as spaCy's registered functions are (``context_recall.v1``): a metric whose
scores change meaning gets a new version beside the old one, and a plain name
(``context_recall``), which is what users type, resolves to the newest version. The stored
identity of a metric's results (`localeval.runner.stored`) keeps the plain name, so stored
results of runs made before versions existed are still found.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = ["ALIASES", "GENERIC_KINDS", "METRIC_SPECS", "SCORING_OPTIONS", "MetricSpec", "check_threshold_keys",
           "did_you_mean", "higher_is_better", "known_threshold_keys", "metric_spec", "plain_names",
           "resolve_alias"]

GENERIC_KINDS: tuple[str, ...] = ("entailment", "relevance")
"""The kinds of decision a judge stores a generic threshold for."""

SCORING_OPTIONS: tuple[str, ...] = ("max_units", "exhaustive", "candidates", "locate", "contrasts", "screen")
"""The `RunOptions` fields that change what a judged metric scores; each metric honours the
ones its declaration lists (tests/test_metric_options.py checks each one)."""

_CLAIMS = ("max_units", "exhaustive", "candidates", "locate", "contrasts")


class MetricSpec(NamedTuple):
    """One metric version's declaration."""

    name: str
    """Versioned: ``"<plain name>.v<N>"``."""
    module: str
    """Where its class is registered (imported on first use of the name)."""
    options: tuple[str, ...] = ()
    """The `SCORING_OPTIONS` it honours."""
    thresholds: tuple[tuple[str, str], ...] = ()
    """``(kind, per-metric key)`` of each decision it makes (none: it does not ask the judge)."""
    higher_is_better: bool = True
    lower_is_better: Mapping[str, tuple[str, ...]] = {}
    """Option values that turn the direction round (RAGChecker's ``score``: its noise figures)."""

    @property
    def plain(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def version(self) -> int:
        return int(self.name.rpartition(".v")[2])


_NOISE = ("noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination", "self_knowledge")

METRIC_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec("context_recall.v1", "localeval.metrics.context_recall", _CLAIMS, (("entailment", "context_recall"),)),
    MetricSpec("faithfulness.v1", "localeval.metrics.faithfulness", _CLAIMS, (("entailment", "faithfulness"),)),
    # No evidence sentence is located (a reflected sentence is its own evidence): no ``locate``.
    MetricSpec("chunk_recall.v1", "localeval.metrics.chunk_recall", ("max_units", "exhaustive", "candidates", "contrasts"),
               (("entailment", "chunk_recall"), ("relevance", "chunk_recall_relevance"))),
    MetricSpec("context_precision.v1", "localeval.metrics.context_precision", _CLAIMS,
               (("entailment", "context_precision"), ("relevance", "context_precision_relevance"))),
    MetricSpec("precision_recall.v1", "localeval.metrics.precision_recall", _CLAIMS,
               (("entailment", "context_precision"), ("entailment", "context_recall"))),
    MetricSpec("context_entity_recall.v1", "localeval.metrics.entity_recall"),
    MetricSpec("retrieval.v1", "localeval.metrics.retrieval"),
    MetricSpec("context_relevance.v1", "localeval.metrics.context_relevance", ("screen",),
               (("relevance", "context_relevance"),)),
    MetricSpec("question_recall.v1", "localeval.metrics.question_recall", (), (("relevance", "question_recall"),)),
    MetricSpec("factual_correctness.v1", "localeval.metrics.factual_correctness", _CLAIMS,
               (("entailment", "factual_correctness"),)),
    MetricSpec("answer_relevancy.v1", "localeval.metrics.answer_relevancy", (), (("relevance", "answer_relevancy"),)),
    MetricSpec("semantic_similarity.v1", "localeval.metrics.semantic_similarity"),
    MetricSpec("answer_correctness.v1", "localeval.metrics.answer_correctness", _CLAIMS,
               (("entailment", "factual_correctness"),)),
    MetricSpec("ragchecker.v1", "localeval.metrics.ragchecker", _CLAIMS, (("entailment", "factual_correctness"),),
               lower_is_better={"score": _NOISE}),
    MetricSpec("trace_utilization.v1", "localeval.metrics.trace", _CLAIMS, (("entailment", "trace_utilization"),)),
    MetricSpec("trace_completeness.v1", "localeval.metrics.trace", (*_CLAIMS, "screen"),
               (("entailment", "trace_utilization"), ("relevance", "context_relevance"))),
)

# Names RAGAS users type, mapped to ours (with the options that make them mean the same).
ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "llm_context_recall": ("context_recall", {}),
    "non_llm_context_recall": ("context_recall", {}),
    "context_relevancy": ("context_relevance", {}),
    "llm_context_precision_with_reference": ("context_precision", {"mode": "reference"}),
    # RAGAS judges these against the response (did the answer use the chunk?), not the question.
    "llm_context_precision_without_reference": ("context_precision", {"mode": "response"}),
    "context_utilization": ("context_precision", {"mode": "response"}),
    "retrieval_metrics": ("retrieval", {}),
    # RAGAS ResponseRelevancy (DeepEval's AnswerRelevancy is already our name).
    "response_relevancy": ("answer_relevancy", {}),
    "response_relevance": ("answer_relevancy", {}),
    "answer_similarity": ("semantic_similarity", {}),
    # RAGAS NoiseSensitivity (mode="relevant" is its default) is one of RAGChecker's figures.
    "noise_sensitivity": ("ragchecker", {"score": "noise_sensitivity_relevant"}),
    "noise_sensitivity_relevant": ("ragchecker", {"score": "noise_sensitivity_relevant"}),
    "noise_sensitivity_irrelevant": ("ragchecker", {"score": "noise_sensitivity_irrelevant"}),
    "rag_checker": ("ragchecker", {}),
    # RAGAS FactualCorrectness(mode=...) as names, so the CLI can ask for each figure.
    "factual_correctness_precision": ("factual_correctness", {"mode": "precision"}),
    "factual_correctness_recall": ("factual_correctness", {"mode": "recall"}),
    # RAGAS' own reading (the reference alone decides), for the CLI and configuration files.
    "factual_correctness_reference_only": ("factual_correctness", {"check_contexts": False}),
}

_VERSIONED = re.compile(r"^[a-z_]+\.v[1-9][0-9]*$")
_BY_NAME: dict[str, MetricSpec] = {spec.name: spec for spec in METRIC_SPECS}
_NEWEST: dict[str, MetricSpec] = {}
for _spec in METRIC_SPECS:
    assert _VERSIONED.match(_spec.name), _spec.name
    if _spec.plain not in _NEWEST or _spec.version > _NEWEST[_spec.plain].version:
        _NEWEST[_spec.plain] = _spec


def plain_names() -> list[str]:
    """The metrics' plain names (what users type), in declaration order."""
    return list(_NEWEST)


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or ``""``."""
    close = difflib.get_close_matches(name.strip().lower(), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def resolve_alias(name: str) -> tuple[MetricSpec, dict[str, Any]]:
    """The declaration ``name`` means (a plain name: its newest version; a versioned name; a
    RAGAS alias) and the options an alias implies. Unknown: ValueError naming the choices."""
    key = name.strip().lower()
    options: dict[str, Any] = {}
    if key in ALIASES:
        key, options = ALIASES[key]
    spec = _BY_NAME.get(key) or _NEWEST.get(key)
    if spec is None:
        names = sorted({*_NEWEST, *ALIASES})
        raise ValueError(f"unknown metric {name!r}{did_you_mean(key, names)}; available: {', '.join(names)}")
    return spec, dict(options)


def metric_spec(name: str) -> MetricSpec:
    """The declaration ``name`` (plain, versioned or alias) resolves to."""
    return resolve_alias(name)[0]


def higher_is_better(name: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether a higher score is better for the metric ``name`` built with ``options`` (an
    alias's implied options count: ``noise_sensitivity`` reads lower-is-better)."""
    spec, implied = resolve_alias(name)
    given = {**implied, **(options or {})}
    flipped = any(given.get(option) in values for option, values in spec.lower_is_better.items())
    return spec.higher_is_better != flipped


def known_threshold_keys() -> list[str]:
    """Every threshold key some metric reads: the generic kinds and the per-metric keys."""
    return sorted({*GENERIC_KINDS, *(key for spec in METRIC_SPECS for _, key in spec.thresholds)})


def check_threshold_keys(thresholds: Mapping[str, float], known: Iterable[str] | None = None) -> None:
    """Raise ValueError for a key no metric reads (``known``: by default every metric's), or a
    value outside [0, 1]."""
    known = sorted(set(known_threshold_keys() if known is None else known))
    for name, value in thresholds.items():
        if name not in known:
            raise ValueError(
                f"unknown threshold {name!r}{did_you_mean(name, known)}; known thresholds: {', '.join(known)}"
            )
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"threshold {name!r} must be in [0, 1], got {value}")
