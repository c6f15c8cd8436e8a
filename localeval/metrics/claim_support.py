"""The machinery shared by claim-based metrics (context recall, faithfulness).

Split a text of the row into claims, ask the judge how strongly the retrieved contexts
support each one (`localeval.evidence.attribution.attribute`), and score the share of
supported claims. Subclasses only say which text the claims come from.

The judged-metric base and its types live in `localeval.metrics.judged`; they are
re-exported here so ``from localeval.metrics.claim_support import JudgedMetric`` still works.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from localeval.metrics.base import MetricResult
from localeval.metrics.decomposed import DecompositionRecord, check_decomposer, claim_units
from localeval.metrics.judged import (
    METRIC_KEYWORDS,
    SCORING_OPTIONS,
    ClaimAttribution,
    JudgedMetric,
    RelevanceThresholdArgument,
)
from localeval.metrics.pieced import piece_together
from localeval.schema import Sample
from localeval.judge.session import JudgeSession

__all__ = ["METRIC_KEYWORDS", "SCORING_OPTIONS", "ClaimAttribution", "ClaimSupportMetric", "ClaimSupportResult", "JudgedMetric", "RelevanceThresholdArgument",
           "SkippedClaim"]


class SkippedClaim(BaseModel):
    """A piece of the text that is not a claim ("Yes.", "I hope this helps!"): shown, not counted."""

    text: str
    start: int | None
    end: int | None
    reason: str


class ClaimSupportResult(MetricResult):
    threshold: float | None = None
    claims: list[ClaimAttribution] = []
    skipped: list[SkippedClaim] = []
    """Pieces left out of the score because they are not claims (`localeval.text.hygiene`)."""
    decomposition: DecompositionRecord | None = None
    """How the claims were made, when a decomposer other than the default rules was given."""

    @property
    def attributed_count(self) -> int:
        return sum(c.attributed for c in self.claims)


class ClaimSupportMetric(JudgedMetric):
    """Share of the claims of ``claims_from`` that the retrieved contexts entail."""

    reads_verdict = True

    claims_from: ClassVar[str]
    result_type: ClassVar[type[ClaimSupportResult]]
    counts_parts: ClassVar[bool] = False
    """The score counts a partly supported claim by the share of its supported parts
    (`ClaimAttribution.credit`), not as 0."""

    def __init__(self, model=None, *, split_coordination: bool = True, decomposer=None, pieced: bool = True,
                 **options) -> None:
        check_decomposer(decomposer, "claims")
        super().__init__(model, **options)
        self.split_coordination = split_coordination
        self.decomposer = decomposer
        self.pieced = bool(pieced)
        """Judge a claim no single unit supports by its atomic parts (`localeval.metrics.pieced`)."""
        """``None`` = rule-based claims; else any `Decomposer` (e.g. `localeval.llm.LLMDecomposer`)."""

    def unscored(self, reason: str) -> ClaimSupportResult:
        return self.result_type(score=None, reason=reason)

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        threshold = self.resolved_threshold()
        texts = [getattr(s, self.claims_from) or "" for s in samples]
        decomposed = claim_units(self.decomposer, texts, split_coordination=self.split_coordination, session=session)
        claim_spans = [[u for u in units if u.skip_reason is None] for units, _ in decomposed]
        skipped = [
            [SkippedClaim(text=u.text, start=u.start, end=u.end, reason=u.skip_reason) for u in units if u.skip_reason]
            for units, _ in decomposed
        ]
        groups = [(spans, s.retrieved_contexts or []) for s, spans in zip(samples, claim_spans)]
        judged = self.judge_claims(groups, threshold, session=session, show_progress_bar=show_progress_bar)
        if self.pieced:
            piece_together(self, groups, judged, threshold, session=session)

        results: list[MetricResult] = []
        for i, (sample, text, spans) in enumerate(zip(samples, texts, claim_spans)):
            record = decomposed[i][1]
            if not spans:
                if skipped[i]:
                    why = f"{self.claims_from} has no claims, only " + "; ".join(
                        f"{s.text.strip()!r} ({s.reason})" for s in skipped[i][:3]
                    )
                elif not text.strip():
                    why = f"{self.claims_from} is empty"
                else:
                    why = f"{self.claims_from} has no claims (only punctuation or symbols)"
                result = self.unscored(f"{why}: nothing to check")
                result.decomposition = record
                result.skipped = skipped[i]
                results.append(result)
                continue
            claims = judged[i]
            has_context = any(c and c.strip() for c in sample.retrieved_contexts or [])
            results.append(
                self.result_type(
                    score=sum(c.credit if self.counts_parts else c.attributed for c in claims) / len(claims),
                    reason=None if has_context else "no non-empty retrieved context: no claim can be attributed",
                    threshold=threshold,
                    claims=claims,
                    skipped=skipped[i],
                    decomposition=record,
                )
            )
        return results
