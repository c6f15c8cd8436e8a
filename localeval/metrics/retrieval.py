"""Retrieval metrics from document IDs: the classic IR view, no model involved.

The blog's ``TraditionalRecallEvaluator``, completed. Inputs: ``retrieved_context_ids`` (the
ranking, best first) and ``reference_context_ids`` (the relevant set). With R the relevant
set, D the retrieved list after dropping repeats, D_k its first k items and rel_i = 1 when
the i-th item is relevant:

    recall         = |D ∩ R| / |R|                     (this is ``score``)
    precision      = |D ∩ R| / |D|
    recall@k       = |D_k ∩ R| / |R|
    precision@k    = |D_k ∩ R| / k
    hit_rate       = 1 if D ∩ R is not empty, else 0
    mrr            = 1 / rank of the first relevant item (0 when none is retrieved)
    nDCG@k         = DCG@k / IDCG@k,  DCG@k = sum_{i<=k} rel_i / log2(i + 1),
                     IDCG@k = sum_{i<=min(k, |R|)} 1 / log2(i + 1)   (binary relevance)

Decisions (documented, tested):

* ``score`` is recall: the question these metrics answer is "was everything relevant
  retrieved?", as in the other recall metrics.
* The @k metrics are given for each k in ``ks`` (default 1, 3, 5, 10, 20) with k <= |D|, as
  the blog's evaluator does: for a list of 4, recall@5 would equal recall and precision@5
  would count a missing fifth item as a miss. ``report_all_k=True`` reports every k instead
  (the list is then read as padded with non-relevant items: precision@k keeps k).
* Repeated IDs count once, at their first rank: later repeats are dropped before any metric
  is computed, so they neither count twice nor push later items down. They are listed in
  ``duplicates``. The relevant IDs are a set (repeats there are ignored).
* IDs are compared as strings: ``1`` and ``"1"`` are the same document (JSON files and
  databases disagree on ID types; a silent int/str mismatch would score 0).
  Strings are otherwise compared exactly (case and whitespace matter).
* ``reference_context_ids=[]`` -> ``score=None`` with the reason: recall is undefined
  without relevant documents. Missing columns -> ``score=None`` with the reason.
* ``retrieved_context_ids=[]`` -> every metric 0, the @k dictionaries empty (no k <= 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from localeval.metrics.base import Metric, MetricResult, register_metric
from localeval.schema import Sample
from localeval.judge.session import JudgeSession

__all__ = ["DEFAULT_KS", "RetrievalMetrics", "RetrievalResult", "dcg", "ndcg_at_k"]

DEFAULT_KS = (1, 3, 5, 10, 20)


class RetrievalResult(MetricResult):
    metric: str = "retrieval"
    recall: float | None = None
    precision: float | None = None
    recall_at_k: dict[int, float] = {}
    precision_at_k: dict[int, float] = {}
    ndcg_at_k: dict[int, float] = {}
    hit_rate: float | None = None
    mrr: float | None = None
    retrieved_count: int = 0
    """Retrieved IDs after dropping repeats."""
    relevant_count: int = 0
    true_positives: int = 0
    relevant_ranks: list[int] = []
    """1-based ranks (in the list without repeats) of the relevant IDs retrieved."""
    missing_ids: list[str] = []
    """Relevant IDs not retrieved, in the order given."""
    duplicates: list[str] = []
    """Repeated retrieved IDs that were dropped (one entry per dropped repeat)."""


def dcg(relevance: Sequence[int]) -> float:
    """Discounted cumulative gain of binary gains in rank order: sum rel_i / log2(i + 1)."""
    return sum(rel / math.log2(rank + 1) for rank, rel in enumerate(relevance, start=1))


def ndcg_at_k(relevance: Sequence[int], n_relevant: int, k: int) -> float:
    """nDCG@k for binary relevance; the ideal list puts min(k, n_relevant) hits first."""
    ideal = dcg([1] * min(k, n_relevant))
    return dcg(relevance[:k]) / ideal if ideal else 0.0


def _unique(ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """(IDs in first-seen order, the repeats that were dropped)."""
    seen: set[str] = set()
    kept: list[str] = []
    repeats: list[str] = []
    for i in ids:
        (repeats if i in seen else kept).append(i)
        seen.add(i)
    return kept, repeats


@register_metric("retrieval.v1")
class RetrievalMetrics(Metric):
    """Recall, precision, recall@k, precision@k, hit rate, MRR and nDCG@k from IDs.

    Args:
        ks: cut-offs for the @k metrics.
        report_all_k: report every k, also those above the number retrieved.
    """

    name = "retrieval"
    required_columns = ("retrieved_context_ids", "reference_context_ids")
    result_type = RetrievalResult

    def __init__(self, *, ks: Iterable[int] = DEFAULT_KS, report_all_k: bool = False) -> None:
        self.ks = tuple(sorted(set(ks)))
        if any(k < 1 for k in self.ks):
            raise ValueError(f"every k must be >= 1, got {self.ks}")
        self.report_all_k = report_all_k

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        # Pure arithmetic: no batching to do, no progress bar worth showing.
        return [self.evaluate(s.retrieved_context_ids or [], s.reference_context_ids or [])
                for s in samples]

    def evaluate(
        self, retrieved_ids: Sequence[str | int], relevant_ids: Iterable[str | int]
    ) -> RetrievalResult:
        """All metrics for one ranked list against one relevant set."""
        relevant_order, _ = _unique(str(i) for i in relevant_ids)
        relevant = set(relevant_order)
        if not relevant:
            return self.unscored("no reference_context_ids: recall is undefined without relevant documents")
        ranked, duplicates = _unique(str(i) for i in retrieved_ids)
        rel = [int(i in relevant) for i in ranked]
        hits = sum(rel)
        ranks = [r for r, flag in enumerate(rel, start=1) if flag]
        ks = [k for k in self.ks if self.report_all_k or k <= len(ranked)]
        recall = hits / len(relevant)
        retrieved = set(ranked)
        return RetrievalResult(
            score=recall,
            reason=None if ranked else "nothing retrieved: every metric is 0",
            recall=recall,
            precision=hits / len(ranked) if ranked else 0.0,
            recall_at_k={k: sum(rel[:k]) / len(relevant) for k in ks},
            precision_at_k={k: sum(rel[:k]) / k for k in ks},
            ndcg_at_k={k: ndcg_at_k(rel, len(relevant), k) for k in ks},
            hit_rate=float(hits > 0),
            mrr=1.0 / ranks[0] if ranks else 0.0,
            retrieved_count=len(ranked),
            relevant_count=len(relevant),
            true_positives=hits,
            relevant_ranks=ranks,
            missing_ids=[i for i in relevant_order if i not in retrieved],
            duplicates=duplicates,
        )
