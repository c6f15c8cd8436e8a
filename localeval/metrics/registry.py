"""Metrics by name, as the CLI and configs refer to them (spaCy-style registry)."""

from __future__ import annotations

from typing import Any

from localeval.metrics.answer_correctness import AnswerCorrectness
from localeval.metrics.answer_relevancy import AnswerRelevancy
from localeval.metrics.base import Metric
from localeval.metrics.chunk_recall import ChunkRecall
from localeval.metrics.claim_support import JudgedMetric
from localeval.metrics.context_precision import ContextPrecision
from localeval.metrics.context_recall import ContextRecall
from localeval.metrics.context_relevance import ContextRelevance
from localeval.metrics.entity_recall import ContextEntityRecall
from localeval.metrics.factual_correctness import FactualCorrectness
from localeval.metrics.faithfulness import Faithfulness
from localeval.metrics.precision_recall import PrecisionRecall
from localeval.metrics.question_recall import QuestionRecall
from localeval.metrics.ragchecker import LOWER_IS_BETTER, RAGChecker
from localeval.metrics.retrieval import RetrievalMetrics
from localeval.metrics.semantic_similarity import SemanticSimilarity
from localeval.metrics.trace import TraceCompleteness, TraceUtilization
from localeval.metrics.thresholds import GENERIC_KINDS, did_you_mean

METRICS: dict[str, type[Metric]] = {
    ContextRecall.name: ContextRecall,
    Faithfulness.name: Faithfulness,
    ChunkRecall.name: ChunkRecall,
    ContextPrecision.name: ContextPrecision,
    PrecisionRecall.name: PrecisionRecall,
    ContextEntityRecall.name: ContextEntityRecall,
    RetrievalMetrics.name: RetrievalMetrics,
    ContextRelevance.name: ContextRelevance,
    QuestionRecall.name: QuestionRecall,
    FactualCorrectness.name: FactualCorrectness,
    AnswerRelevancy.name: AnswerRelevancy,
    SemanticSimilarity.name: SemanticSimilarity,
    AnswerCorrectness.name: AnswerCorrectness,
    RAGChecker.name: RAGChecker,
    TraceUtilization.name: TraceUtilization,
    TraceCompleteness.name: TraceCompleteness,
}


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
}


def resolve_name(name: str) -> tuple[type[Metric], dict[str, Any]]:
    """The metric class for ``name`` (ours or a RAGAS alias) and the options the alias implies."""
    key = name.strip().lower()
    options: dict[str, Any] = {}
    if key in ALIASES:
        key, options = ALIASES[key]
    try:
        return METRICS[key], dict(options)
    except KeyError:
        names = sorted({*METRICS, *ALIASES})
        raise ValueError(f"unknown metric {name!r}{did_you_mean(key, names)}; available: {', '.join(names)}") from None


def threshold_uses(name: str) -> list[tuple[str, str]]:
    """``(kind, per-metric key)`` of each decision the metric ``name`` makes (none for a
    metric that does not ask the judge)."""
    cls, _ = resolve_name(name)
    return cls.threshold_uses() if issubclass(cls, JudgedMetric) else []


def known_threshold_keys() -> list[str]:
    """Every threshold key some metric reads: the generic kinds and the per-metric keys."""
    keys = set(GENERIC_KINDS)
    for name in METRICS:
        keys.update(key for _, key in threshold_uses(name))
    return sorted(keys)


def higher_is_better(metric: str | Metric) -> bool:
    """Whether a higher score is better for ``metric``: a name (ours or a RAGAS alias, with the
    options the alias implies, so ``noise_sensitivity`` reads lower-is-better) or a metric."""
    if isinstance(metric, Metric):
        return bool(metric.higher_is_better)
    cls, implied = resolve_name(metric)
    if cls is RAGChecker:
        return implied.get("score", "f1") not in LOWER_IS_BETTER
    return bool(cls.higher_is_better)


def get_metric(name: str, **options: Any) -> Metric:
    """Build the metric registered under ``name`` (or a RAGAS alias) with its options."""
    cls, implied = resolve_name(name)
    return cls(**{**implied, **options})
