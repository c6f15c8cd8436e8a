"""What every family shares: the metric objects, one scoring entry point, the floors."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from localeval import evaluate
from localeval.judge import NLIJudge
from localeval.judge.cache import JudgementCache
from localeval.metrics.judged import JudgedMetric
from localeval.metrics import (
    ChunkRecall,
    ContextRecall,
    ContextRelevance,
    FactualCorrectness,
    Faithfulness,
    Metric,
    QuestionRecall,
    RAGChecker,
    TraceCompleteness,
    TraceUtilization,
)

__all__ = ["Harness", "build_metrics", "graded_figures", "rmse", "pearson", "spearman"]


# What the harness scores: output name -> (metric class, options).
_METRICS: dict[str, tuple[type[Metric], dict[str, Any]]] = {
    "context_recall": (ContextRecall, {}),
    "faithfulness": (Faithfulness, {}),
    "chunk_recall": (ChunkRecall, {}),
    "context_relevance": (ContextRelevance, {"level": "sentence"}),
    "question_recall": (QuestionRecall, {}),
    # RAGBench's TRACe utilization and completeness, on localeval's sentences (they replaced the
    # chunk-level proxies ContextPrecision(mode="response") and ChunkRecall in the RAGBench section).
    "trace_utilization": (TraceUtilization, {}),
    "trace_completeness": (TraceCompleteness, {}),
    # Answer-side metrics (benchmarks.agreement.answers); each is scored in its own call, as
    # two of them share the metric name.
    # Their scores are read at the stored threshold, not re-thresholded: early acceptance
    # (exhaustive=False) gives the same verdicts for far fewer pairs.
    "factual_recall": (FactualCorrectness, {"mode": "recall", "exhaustive": False}),
    "factual_precision": (FactualCorrectness, {"mode": "precision", "exhaustive": False}),
    "ragchecker": (RAGChecker, {"exhaustive": False}),
}


def build_metrics(judge: NLIJudge, decomposer: Any = None) -> dict[str, Metric]:
    """Every metric the harness scores, sharing one judge, at the judge's stored thresholds.

    One place on purpose: an option that changes how metrics judge reaches every family. A
    ``decomposer`` goes to every metric that splits claims or questions (``None``: the rules).
    """
    metrics: dict[str, Metric] = {}
    for name, (cls, options) in _METRICS.items():
        takes_decomposer = "decomposer" in inspect.signature(cls.__init__).parameters
        extra = {"decomposer": decomposer} if decomposer is not None and takes_decomposer else {}
        if issubclass(cls, JudgedMetric) and "exhaustive" in cls.options_used and "exhaustive" not in options:
            # Every claim's highest probability: the harness re-thresholds the results.
            extra["exhaustive"] = True
        metrics[name] = cls(judge, **options, **extra)
    return metrics


@dataclass
class Harness:
    """The judge, its metrics and one in-memory verdict cache shared by every run, so a pair
    judged for one family (or one metric) is not judged again for another."""

    judge: NLIJudge
    metrics: dict[str, Metric]
    cache: JudgementCache = field(default_factory=lambda: JudgementCache(None))

    def score(self, rows: Sequence[dict], names: Sequence[str]) -> dict[str, list]:
        """Result objects of each named metric for every row, in row order (none dropped)."""
        run = evaluate(
            list(rows), [self.metrics[n] for n in names], cache=self.cache, show_progress=False
        )
        out = {}
        for name in names:
            key = self.metrics[name].name
            out[name] = run.results(key)
        return out


def rmse(pred: Sequence[float], gold: Sequence[float]) -> float:
    p, g = np.asarray(pred, float), np.asarray(gold, float)
    return float(np.sqrt(np.mean((p - g) ** 2)))


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    a, b = np.asarray(x, float), np.asarray(y, float)
    if a.size < 3 or a.std() == 0 or b.std() == 0:
        return None  # undefined for a constant: said as None, never NaN
    return float(np.corrcoef(a, b)[0, 1])


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x))
    sx = x[order]
    starts = np.flatnonzero(np.r_[True, sx[1:] != sx[:-1]])
    ends = np.r_[starts[1:], len(x)]
    for a, b in zip(starts, ends):
        ranks[order[a:b]] = (a + b - 1) / 2.0
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    a, b = np.asarray(x, float), np.asarray(y, float)
    return pearson(_ranks(a), _ranks(b)) if a.size else None


def graded_figures(pred: Sequence[float], gold: Sequence[float]) -> dict:
    """RMSE and correlations of a graded prediction, beside the always-the-mean floor."""
    g = np.asarray(gold, float)
    return {
        "rmse": round(rmse(pred, gold), 4),
        "pearson": _r(pearson(pred, gold)),
        "spearman": _r(spearman(pred, gold)),
        "mean_floor_rmse": round(float(g.std()), 4),  # RMSE of always predicting the gold mean
    }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)
