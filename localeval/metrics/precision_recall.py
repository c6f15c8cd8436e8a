"""Precision-recall analysis: context precision and context recall of one row, and their F1.

The blog's ``PrecisionRecallAnalyzer`` with local judges:

    precision = ContextPrecision (rank-aware, judged against the reference when present)
    recall    = ContextRecall
    score     = F1 = 2 P R / (P + R), and 0.0 when both are 0

If either part cannot be scored, the row is unscored with that part's reason. Details: both
scores, the counts behind them, and ``missing_statements``: the reference claims no context
supports.
"""

from __future__ import annotations

from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.context_precision import ContextPrecision, ContextPrecisionResult
from localeval.metrics.context_recall import ContextRecall, ContextRecallResult
from localeval.metrics.decomposed import DecompositionRecord, check_decomposer
from localeval.schema import Sample
from localeval.judge.session import JudgeSession

__all__ = ["PrecisionRecall", "PrecisionRecallResult"]


class PrecisionRecallResult(MetricResult):
    metric: str = "precision_recall"
    precision: float | None = None
    recall: float | None = None
    useful_chunks: int = 0
    total_chunks: int = 0
    attributed_statements: int = 0
    total_statements: int = 0
    missing_statements: list[str] = []
    decomposition: DecompositionRecord | None = None


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


@register_metric("precision_recall.v1")
class PrecisionRecall(JudgedMetric):
    """Context precision, context recall and their F1 (judge options as ContextRecall;
    ``decomposer=`` splits the reference for both parts)."""

    name = "precision_recall"
    required_columns = ("reference", "retrieved_contexts")
    result_type = PrecisionRecallResult

    @classmethod
    def threshold_uses(cls) -> list[tuple[str, str]]:
        # Its decisions are those of its two parts, read under their keys.
        return [(kind, key) for kind, key in ContextPrecision.threshold_uses() if kind == "entailment"] + ContextRecall.threshold_uses()


    def __init__(self, model=None, *, decomposer=None, **options) -> None:
        check_decomposer(decomposer, "claims")
        super().__init__(model, **options)
        self.decomposer = decomposer

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        # The parts get every option of this metric (max_units, exhaustive, the run's thresholds...).
        options = {**self.judge_options(), "decomposer": self.decomposer}
        precision = ContextPrecision(self.judge, mode="reference", **options).score_many(samples, session=session)
        recall = ContextRecall(self.judge, **options).score_many(samples, session=session)
        results: list[MetricResult] = []
        for p, r in zip(precision, recall):
            assert isinstance(p, ContextPrecisionResult) and isinstance(r, ContextRecallResult)
            if p.score is None or r.score is None:
                which = "precision" if p.score is None else "recall"
                result = self.unscored(f"context {which} unscored: {(p.reason if p.score is None else r.reason)}")
                result.decomposition = r.decomposition
                results.append(result)
                continue
            results.append(
                PrecisionRecallResult(
                    score=f1(p.score, r.score),
                    precision=p.score,
                    recall=r.score,
                    useful_chunks=sum(c.useful for c in p.chunks),
                    total_chunks=len(p.chunks),
                    attributed_statements=r.attributed_count,
                    total_statements=len(r.claims),
                    missing_statements=r.missing_claims,
                    decomposition=r.decomposition,
                )
            )
        return results
