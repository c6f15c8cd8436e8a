"""Answer correctness: a weighted blend of factual correctness (F1) and semantic similarity.

RAGAS ``answer_correctness``:

    score = w_f * factual_correctness_f1 + w_s * semantic_similarity

with RAGAS' default weights ``(0.75, 0.25)``; ``weights=`` changes them (non-negative, not
both 0; they are normalised to sum to 1, so the score stays in [0, 1]). Details hold both
parts in full: every claim's verdict, probability and evidence, and the cosine.

Edge cases follow the parts: an empty reference -> ``None``; an empty response -> 0.0; a
non-answer -> flagged, factual part 0.0 (the similarity part is kept as computed); non-English
text -> scored, with a reason. When the factual part is unscored the row is unscored with its
reason.
"""

from __future__ import annotations

import os

from localeval.judge.embeddings import Embedder
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.factual_correctness import AnswerClaimsMetric, FactualCorrectness, FactualCorrectnessResult
from localeval.metrics.semantic_similarity import SemanticSimilarity, SemanticSimilarityResult
from localeval.schema import Sample
from localeval.judge.session import JudgeSession

__all__ = ["AnswerCorrectness", "AnswerCorrectnessResult", "DEFAULT_WEIGHTS"]

DEFAULT_WEIGHTS = (0.75, 0.25)
"""(factuality, similarity), as RAGAS documents for answer_correctness."""


class AnswerCorrectnessResult(MetricResult):
    metric: str = "answer_correctness"
    weights: tuple[float, float] = DEFAULT_WEIGHTS
    factual: FactualCorrectnessResult | None = None
    similarity: SemanticSimilarityResult | None = None
    non_answer: bool = False


@register_metric("answer_correctness.v1")
class AnswerCorrectness(AnswerClaimsMetric):
    """``weights[0]`` x factual correctness F1 + ``weights[1]`` x semantic similarity.

    Args:
        weights: (factuality, similarity), default (0.75, 0.25).
        embedding_model: for the similarity part (see `SemanticSimilarity`).
        model, threshold, device, batch_size, max_units, exhaustive, split_coordination,
            decomposer: for the factual part (see `FactualCorrectness`).
    """

    name = "answer_correctness"
    required_columns = ("response", "reference")
    result_type = AnswerCorrectnessResult
    threshold_kind = "entailment"

    def __init__(self, model=None, *, weights: tuple[float, float] | list[float] = DEFAULT_WEIGHTS,
                 embedding_model: str | os.PathLike[str] | Embedder | None = None, decomposer=None,
                 **options) -> None:
        if len(weights) != 2 or any(not isinstance(w, (int, float)) or w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"weights must be two non-negative numbers, not both 0, got {weights!r}")
        super().__init__(model, decomposer=decomposer, **options)
        total = float(sum(weights))
        self.weights = (weights[0] / total, weights[1] / total)
        self.embedding_model = embedding_model

    @classmethod
    def threshold_key(cls, kind: str | None = None) -> str:
        # The factual part decides as factual_correctness does (same claims, same pairs).
        return "factual_correctness" if (kind or cls.threshold_kind) == "entailment" else super().threshold_key(kind)

    def unscored(self, reason: str) -> AnswerCorrectnessResult:
        return AnswerCorrectnessResult(score=None, reason=reason, weights=self.weights)

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        factual = FactualCorrectness(
            self.judge, mode="f1", **{**self.judge_options(), "threshold": self.resolved_threshold()},
            split_coordination=self.split_coordination, decomposer=self.decomposer,
            score_declined=True,  # this metric has already decided about declined answers
        ).score_many(samples, session=session, show_progress_bar=show_progress_bar)
        similar = SemanticSimilarity(self.embedding_model, device=self._device,
                                     batch_size=self.batch_size).similarities(samples)
        results: list[MetricResult] = []
        for f, s in zip(factual, similar):
            assert isinstance(f, FactualCorrectnessResult)
            if f.score is None:
                results.append(AnswerCorrectnessResult(score=None, reason=f"factual correctness unscored: {f.reason}",
                                                       weights=self.weights, factual=f, similarity=s))
                continue
            score = self.weights[0] * f.score + self.weights[1] * (s.score or 0.0)
            results.append(AnswerCorrectnessResult(
                score=min(1.0, max(0.0, score)), reason=f.reason or s.reason, weights=self.weights,
                factual=f, similarity=s, non_answer=f.non_answer,
            ))
        return results
