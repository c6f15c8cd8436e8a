"""RAGChecker's diagnostic metrics from one set of claim-level verdicts.

Ru et al., 2024, "RAGChecker: A Fine-grained Framework for Diagnosing Retrieval-Augmented
Generation" (NeurIPS 2024 Datasets and Benchmarks; arXiv:2408.08067), with the local judge in
place of the LLM checker. Claims of the response (m) and of the reference (gt) are made as for
factual correctness; the judge then gives, once each, the verdicts

* response claim in reference (the claim is *correct*), reference claim in response,
* every response claim and every reference claim in every retrieved chunk (a chunk is
  *relevant* when it entails at least one reference claim),

and every figure below is counted from those verdicts, so no pair is judged twice:

    precision   = correct m-claims / m-claims          recall = gt-claims in m / gt-claims
    f1          = 2 P R / (P + R)
    claim_recall        = gt-claims in some chunk / gt-claims                    (retriever)
    context_precision   = relevant chunks / chunks                               (retriever)
    context_utilization = gt-claims in some chunk and in m / gt-claims in some chunk
    noise_sensitivity_relevant   = incorrect m-claims in a relevant chunk / m-claims
    noise_sensitivity_irrelevant = incorrect m-claims in an irrelevant chunk (and in no
                                   relevant one, so a claim is counted once) / m-claims
    hallucination       = incorrect m-claims in no chunk / m-claims
    self_knowledge      = correct m-claims in no chunk / m-claims
    faithfulness        = m-claims in some chunk / m-claims

Noise sensitivity, hallucination and self-knowledge are lower-is-better (self-knowledge is
neither good nor bad by itself: correct claims the generator did not take from the contexts).
The metric's score is the overall F1 (RAGChecker's headline figure) unless ``score=`` names
another figure; all of them are in the details, with every claim's verdicts and evidence.

Edge cases (deterministic, documented in the README, tested):

* reference empty (or no claim) -> ``score=None``: correctness cannot be judged.
* response empty -> precision and every response-claim figure ``None`` (no claim to count),
  recall 0.0, f1 0.0; a non-answer response the same, flagged ``non_answer=True``.
* no non-empty chunk -> context precision ``None``, claim recall 0.0, context utilization
  ``None`` (no reference claim is in any chunk), every response claim is in no chunk.
* a figure whose denominator is 0 is ``None``, never NaN; ``score=`` naming such a figure
  leaves the row unscored with the reason.
* non-English text -> scored, with a reason.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel

from localeval.evidence.attribution import Evidence
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.judged import ClaimAttribution
from localeval.metrics.decomposed import DecompositionRecord
from localeval.metrics.factual_correctness import (
    AnswerClaims,
    AnswerClaimsMetric,
    CheckedClaim,
    FactualCorrectness,
    FactualCorrectnessResult,
)
from localeval.schema import Sample
from localeval.judge.session import JudgeSession

__all__ = ["RAGChecker", "RAGCheckerChunk", "RAGCheckerClaim", "RAGCheckerContext", "RAGCheckerResult", "Figure"]

Figure = Literal[
    "f1", "precision", "recall", "claim_recall", "context_precision", "context_utilization",
    "noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination", "self_knowledge",
    "faithfulness",
]
FIGURES: tuple[str, ...] = get_args(Figure)
LOWER_IS_BETTER: frozenset[str] = frozenset(
    {"noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination", "self_knowledge"}
)
"""The figures where a lower score is better (Ru et al., 2024, Table 1's down arrows)."""


class RAGCheckerClaim(CheckedClaim):
    """A claim with its verdict against the other text (``attributed``: a response claim is
    correct / a reference claim is in the response) and against each chunk."""

    in_chunks: list[int] = []
    """Indices (in ``retrieved_contexts``) of the chunks that entail the claim."""
    context_probability: float = 0.0
    """The highest entailment probability over the chunks."""
    context_evidence: Evidence | None = None
    """The best sentence of the chunk that gave ``context_probability``."""


class RAGCheckerContext(BaseModel):
    context_index: int
    relevant: bool
    """Entails at least one reference claim."""
    reference_claims: list[int] = []
    """Positions (in ``reference_claims``) of the reference claims it entails."""


RAGCheckerChunk = RAGCheckerContext
"""Deprecated: the old name of `RAGCheckerContext` (README, "Changelog")."""


class RAGCheckerResult(MetricResult):
    metric: str = "ragchecker"
    figure: str = "f1"
    """Which figure is the score."""
    threshold: float | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    claim_recall: float | None = None
    context_precision: float | None = None
    context_utilization: float | None = None
    noise_sensitivity_relevant: float | None = None
    noise_sensitivity_irrelevant: float | None = None
    hallucination: float | None = None
    self_knowledge: float | None = None
    faithfulness: float | None = None
    response_claims: list[RAGCheckerClaim] = []
    reference_claims: list[RAGCheckerClaim] = []
    chunks: list[RAGCheckerContext] = []
    non_answer: bool = False
    non_answer_statements: list[str] = []
    decomposition: DecompositionRecord | None = None


def _share(count: int, total: int) -> float | None:
    return count / total if total else None


@register_metric("ragchecker.v1")
class RAGChecker(AnswerClaimsMetric):
    """RAGChecker's overall, retriever and generator figures (see module docstring).

    Args:
        score: which figure is the score: ``"f1"`` (default) or any other in `Figure`.
        model, threshold, device, batch_size, max_units, exhaustive, split_coordination,
            decomposer: as for `FactualCorrectness`.
    """

    name = "ragchecker"
    required_columns = ("response", "reference", "retrieved_contexts")
    result_type = RAGCheckerResult

    def __init__(self, model=None, *, score: Figure = "f1", decomposer=None, **options) -> None:
        if score not in FIGURES:
            raise ValueError(f"score must be one of {', '.join(FIGURES)}, got {score!r}")
        super().__init__(model, decomposer=decomposer, **options)
        self.figure = score

    @classmethod
    def threshold_key(cls, kind: str | None = None) -> str:
        # Correctness and chunk verdicts are the entailment decisions factual correctness makes.
        return "factual_correctness" if (kind or cls.threshold_kind) == "entailment" else super().threshold_key(kind)

    @property  # type: ignore[override]
    def higher_is_better(self) -> bool:  # the figure chosen decides the direction
        return self.figure not in LOWER_IS_BETTER

    def unscored(self, reason: str) -> RAGCheckerResult:
        return RAGCheckerResult(score=None, reason=reason, figure=self.figure)

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        threshold = self.resolved_threshold()
        rows = self.answer_claims(samples, session)
        chunks = [[k for k, c in enumerate(s.retrieved_contexts or []) if c and c.strip()] for s in samples]
        # (row, side, context) -> (the side's claims, [that context]): each claim against each context
        extra = {(i, side, k): (claims, [(sample.retrieved_contexts or [])[k]])
                 for i, (sample, row, kept) in enumerate(zip(samples, rows, chunks))
                 for side, claims in (("response", row.response), ("reference", row.reference)) for k in kept}
        factual = FactualCorrectness(self.judge, mode="f1", **{**self.judge_options(), "threshold": threshold})
        pairs, verdicts = factual.cross_judge(samples, rows, threshold, extra_groups=extra, session=session,
                                              show_progress_bar=show_progress_bar)
        results: list[MetricResult] = []
        for i, (sample, row, kept, (response_claims, reference_claims)) in enumerate(zip(samples, rows, chunks, pairs)):
            overall = factual.result(sample, row, response_claims, reference_claims, threshold)
            in_response = [verdicts[(i, "response", k)] for k in kept]
            in_reference = [verdicts[(i, "reference", k)] for k in kept]
            results.append(self._result(row, kept, overall, response_claims, reference_claims,
                                        in_response, in_reference, threshold))
        return results

    def _result(self, row: AnswerClaims, kept: list[int], overall: FactualCorrectnessResult,
                response_claims: list[CheckedClaim], reference_claims: list[CheckedClaim],
                response_in: list[list[ClaimAttribution]], reference_in: list[list[ClaimAttribution]],
                threshold: float) -> RAGCheckerResult:
        base = {"figure": self.figure, "threshold": threshold, "decomposition": row.record,
                "non_answer": overall.non_answer, "non_answer_statements": row.non_answers}
        if overall.recall is None:  # no reference claim: correctness cannot be judged
            return RAGCheckerResult(score=None, reason=overall.reason, **base)
        response = [_with_chunks(c, [v[i] for v in response_in], kept) for i, c in enumerate(response_claims)]
        reference = [_with_chunks(c, [v[j] for v in reference_in], kept) for j, c in enumerate(reference_claims)]
        chunk_rows = [
            RAGCheckerContext(context_index=k, relevant=any(k in c.in_chunks for c in reference),
                            reference_claims=[j for j, c in enumerate(reference) if k in c.in_chunks])
            for k in kept
        ]
        relevant = {c.context_index for c in chunk_rows if c.relevant}
        retrieved = [c for c in reference if c.in_chunks]
        wrong = [c for c in response if not c.attributed]
        m = len(response)
        figures = {
            "precision": overall.precision,
            "recall": overall.recall,
            "f1": overall.f1,
            "claim_recall": _share(len(retrieved), len(reference)),
            "context_precision": _share(len(relevant), len(kept)),
            "context_utilization": _share(sum(c.attributed for c in retrieved), len(retrieved)),
            "noise_sensitivity_relevant": _share(sum(bool(relevant & set(c.in_chunks)) for c in wrong), m),
            "noise_sensitivity_irrelevant": _share(
                sum(bool(c.in_chunks) and not relevant & set(c.in_chunks) for c in wrong), m),
            "hallucination": _share(sum(not c.in_chunks for c in wrong), m),
            "self_knowledge": _share(sum(c.attributed and not c.in_chunks for c in response), m),
            "faithfulness": _share(sum(bool(c.in_chunks) for c in response), m),
        }
        details = {**base, **figures, "response_claims": response, "reference_claims": reference, "chunks": chunk_rows}
        score = figures[self.figure]
        if score is None:
            why = {"context_precision": "no non-empty retrieved context",
                   "context_utilization": "no reference claim is in any retrieved context"}.get(
                self.figure, "the response has no claim")
            return RAGCheckerResult(score=None, reason=f"{self.figure} is undefined: {why}", **details)
        reason = overall.reason or (None if kept else "no non-empty retrieved context: no claim is in any chunk")
        return RAGCheckerResult(score=score, reason=reason, **details)


def _with_chunks(claim: CheckedClaim, per_chunk: list[ClaimAttribution], kept: list[int]) -> RAGCheckerClaim:
    """``claim`` with the chunks that entail it and its best evidence among them (evidence
    indices point into the row's full ``retrieved_contexts``)."""
    best = max(range(len(per_chunk)), key=lambda i: per_chunk[i].probability, default=None)
    evidence = None
    if best is not None and per_chunk[best].evidence is not None:
        evidence = per_chunk[best].evidence.model_copy(update={"context_index": kept[best]})
    return RAGCheckerClaim(
        **claim.model_dump(),
        in_chunks=[k for k, v in zip(kept, per_chunk) if v.attributed],
        context_probability=per_chunk[best].probability if best is not None else 0.0,
        context_evidence=evidence,
    )
