"""Context precision: are the useful chunks ranked first? (rank-aware average precision)

A chunk is *useful*:

* with a reference (``mode="reference"``, or ``"auto"`` when the row has one): when it entails
  at least one reference claim (NLI probability >= the entailment threshold);
* against the response (``mode="response"``; RAGAS' ContextUtilization and
  LLMContextPrecisionWithoutReference): when it entails at least one claim of the response,
  i.e. the answer used it;
* without a reference (``mode="question"``, or ``"auto"`` without a reference): when it is
  relevant to the question (relevance head, probability >= the relevance threshold).

With v_k = 1 if the chunk at rank k is useful, the score is RAGAS' average precision:

    score = sum_k (precision@k * v_k) / (number of useful chunks)

so useful chunks at the top score higher than the same chunks at the bottom. No useful chunk
-> 0.0. No retrieved context at all -> ``None`` (precision of nothing is undefined). Empty
strings are never useful but keep their rank. A reference (response) without claims in
reference (response) mode -> ``None`` with reason.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from localeval.evidence.attribution import Evidence, attribute
from localeval.judge.batching import judge_by_key
from localeval.evidence.relevance import context_relevance
from localeval.metrics.base import CONTEXT_INDEX, MetricResult, register_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.decomposed import check_decomposer, claim_units
from localeval.schema import Sample
from localeval.judge.session import JudgeSession

__all__ = ["ChunkVerdict", "ContextVerdict", "ContextPrecision", "ContextPrecisionResult", "average_precision"]

Mode = Literal["auto", "reference", "response", "question"]
RowMode = Literal["reference", "response", "question"]
_CLAIM_MODES = ("reference", "response")


class ContextVerdict(BaseModel):
    context_index: int = Field(validation_alias=CONTEXT_INDEX)
    """0-based position in ``retrieved_contexts`` (its rank; read as ``rank`` from older outputs)."""
    useful: bool
    probability: float
    supported_claim: str | None = None
    """In reference (response) mode: the reference (response) claim this context supports best."""
    evidence: Evidence | None = None


ChunkVerdict = ContextVerdict
"""Deprecated: the old name of `ContextVerdict` (README, "Changelog")."""


class ContextPrecisionResult(MetricResult):
    metric: str = "context_precision"
    mode: RowMode | None = None
    threshold: float | None = None
    chunks: list[ContextVerdict] = []


def average_precision(useful: list[bool]) -> float:
    """Average precision of a ranked list of binary verdicts (0.0 when none is useful)."""
    hits, total = 0, 0.0
    for k, is_useful in enumerate(useful, start=1):
        if is_useful:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


@register_metric("context_precision.v1")
class ContextPrecision(JudgedMetric):
    """Rank-aware precision of the retrieved contexts (options as ContextRecall, plus ``mode``)."""

    name = "context_precision"
    threshold_kinds = ("entailment", "relevance")
    required_columns = ("retrieved_contexts",)
    result_type = ContextPrecisionResult

    # The claim modes (reference, response) attribute claims; the question mode reads none.

    def __init__(self, model=None, *, mode: Mode = "auto", decomposer=None, **options) -> None:
        if mode not in ("auto", "reference", "response", "question"):
            raise ValueError(f"mode must be 'auto', 'reference', 'response' or 'question', got {mode!r}")
        check_decomposer(decomposer, "claims")
        super().__init__(model, **options)
        self.mode = mode
        self.decomposer = decomposer
        """Where the reference (response) claims come from: ``None`` = the rules."""

    def _row_mode(self, sample: Sample) -> RowMode | None:
        if self.mode == "response":
            return "response" if sample.response is not None else None
        if self.mode == "reference" or (self.mode == "auto" and sample.reference is not None):
            return "reference" if sample.reference is not None else None
        return "question" if sample.user_input is not None else None

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        modes = [self._row_mode(s) for s in samples]
        by_claims = [i for i, m in enumerate(modes) if m in _CLAIM_MODES]
        by_question = [i for i, m in enumerate(modes) if m == "question"]
        verdicts: dict[int, list[ContextVerdict] | str] = {}

        # Reference / response mode: each chunk is its own group, so support is per chunk and
        # per claim.
        groups: dict[tuple[int, int], tuple[list[str], list[str]]] = {}  # (row, rank) -> (claims, [its context])
        texts = [(samples[i].reference if modes[i] == "reference" else samples[i].response) or "" for i in by_claims]
        units = dict(zip(by_claims, claim_units(self.decomposer, texts, session=session)))
        for i in by_claims:
            source = modes[i]
            claims = [c.text for c in units[i][0] if c.skip_reason is None]
            if not claims:
                verdicts[i] = f"{source} has no claims: use mode='question' to judge by the question"
                continue
            for rank, chunk in enumerate(samples[i].retrieved_contexts or []):
                groups[(i, rank)] = (claims, [chunk])
        if groups:
            threshold = self.resolved_threshold("entailment")
            supports = judge_by_key(lambda batch: attribute(self.judge, batch, session=session, options=self.options,
                                                            show_progress_bar=show_progress_bar,
                                                            accept_at=self.accept_at(threshold)), groups)
            for (i, rank), per_claim in supports.items():
                claims = groups[(i, rank)][0]
                best = max(range(len(claims)), key=lambda k: per_claim[k].probability)
                support = per_claim[best]
                evidence = support.evidence.model_copy(update={"context_index": rank}) if support.evidence else None
                row = verdicts.setdefault(i, [])
                assert isinstance(row, list)
                row.append(
                    ContextVerdict(
                        context_index=rank,
                        # An empty chunk has no evidence and is never useful, whatever the threshold.
                        useful=support.evidence is not None and support.probability >= threshold,
                        probability=round(support.probability, 6),
                        supported_claim=claims[best],
                        evidence=evidence,
                    )
                )

        if by_question:
            threshold = self.resolved_threshold("relevance")
            scored = context_relevance(
                self.judge,
                [(samples[i].user_input or "", samples[i].retrieved_contexts or []) for i in by_question],
                session=session,
                batch_size=self.batch_size,
                show_progress_bar=show_progress_bar,
            )
            for i, per_chunk in zip(by_question, scored):
                verdicts[i] = [
                    ContextVerdict(context_index=rank, useful=window is not None and p >= threshold, probability=round(p, 6))
                    for rank, (p, window) in enumerate(per_chunk)
                ]

        results: list[MetricResult] = []
        for i, (sample, mode) in enumerate(zip(samples, modes)):
            if mode is None:
                missing = {"reference": "reference", "response": "response"}.get(self.mode, "user_input or reference")
                results.append(self.unscored(f"missing required column(s): {missing}"))
            elif not sample.retrieved_contexts:
                results.append(self.unscored("no retrieved contexts: precision is undefined"))
            elif isinstance(verdicts.get(i), str):
                results.append(self.unscored(str(verdicts[i])))
            else:
                chunks = sorted(verdicts[i], key=lambda v: v.context_index)  # type: ignore[arg-type]
                results.append(
                    ContextPrecisionResult(
                        score=average_precision([c.useful for c in chunks]),
                        mode=mode,
                        threshold=self.resolved_threshold("entailment" if mode in _CLAIM_MODES else "relevance"),
                        chunks=chunks,
                    )
                )
        return results
