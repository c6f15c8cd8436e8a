"""Metrics: small objects that turn the judges' verdicts into explained scores."""

from localeval.metrics.answer_correctness import AnswerCorrectness, AnswerCorrectnessResult
from localeval.metrics.answer_relevancy import AnswerRelevancy, AnswerRelevancyResult
from localeval.metrics.base import Metric, MetricResult
from localeval.metrics.chunk_recall import ChunkRecall, ChunkRecallEvaluation, ChunkRecallResult
from localeval.metrics.judged import ClaimAttribution
from localeval.metrics.context_precision import ContextPrecision, ContextPrecisionResult
from localeval.metrics.context_recall import ContextRecall, ContextRecallResult
from localeval.metrics.context_relevance import ContextRelevance, ContextRelevanceResult
from localeval.metrics.entity_recall import ContextEntityRecall, ContextEntityRecallResult
from localeval.metrics.factual_correctness import FactualCorrectness, FactualCorrectnessResult
from localeval.metrics.faithfulness import Faithfulness, FaithfulnessResult
from localeval.metrics.precision_recall import PrecisionRecall, PrecisionRecallResult
from localeval.metrics.question_recall import QuestionRecall, QuestionRecallResult
from localeval.metrics.ragchecker import RAGChecker, RAGCheckerResult
from localeval.metrics.registry import METRICS, get_metric
from localeval.metrics.retrieval import RetrievalMetrics, RetrievalResult
from localeval.metrics.semantic_similarity import SemanticSimilarity, SemanticSimilarityResult
from localeval.metrics.trace import (
    TraceCompleteness,
    TraceCompletenessResult,
    TraceSentence,
    TraceUtilization,
    TraceUtilizationResult,
)

__all__ = [
    "METRICS",
    "AnswerCorrectness",
    "AnswerCorrectnessResult",
    "AnswerRelevancy",
    "AnswerRelevancyResult",
    "ChunkRecall",
    "ChunkRecallEvaluation",
    "ChunkRecallResult",
    "ClaimAttribution",
    "ContextEntityRecall",
    "ContextEntityRecallResult",
    "ContextPrecision",
    "ContextPrecisionResult",
    "ContextRecall",
    "ContextRecallResult",
    "ContextRelevance",
    "ContextRelevanceResult",
    "FactualCorrectness",
    "FactualCorrectnessResult",
    "Faithfulness",
    "FaithfulnessResult",
    "Metric",
    "MetricResult",
    "PrecisionRecall",
    "PrecisionRecallResult",
    "QuestionRecall",
    "QuestionRecallResult",
    "RAGChecker",
    "RAGCheckerResult",
    "RetrievalMetrics",
    "RetrievalResult",
    "SemanticSimilarity",
    "SemanticSimilarityResult",
    "TraceCompleteness",
    "TraceCompletenessResult",
    "TraceSentence",
    "TraceUtilization",
    "TraceUtilizationResult",
    "get_metric",
]
