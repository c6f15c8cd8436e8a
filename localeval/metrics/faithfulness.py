"""Faithfulness: how much of the response the retrieved contexts support.

The same machinery as context recall, pointed at the response: the response is split into
claims, and a claim is *supported* when some retrieved context entails it.

    score = supported response claims / response claims

Edge cases: missing ``response``/``retrieved_contexts`` -> ``None`` with reason; an empty or
punctuation-only response -> ``None`` (nothing to check); no non-empty context -> ``0.0``
(nothing can support the response).
"""

from __future__ import annotations

from localeval.metrics.base import register_metric
from localeval.metrics.claim_support import ClaimSupportMetric, ClaimSupportResult

__all__ = ["Faithfulness", "FaithfulnessResult"]


class FaithfulnessResult(ClaimSupportResult):
    metric: str = "faithfulness"

    @property
    def unsupported_claims(self) -> list[str]:
        """Response claims no context supports: candidate hallucinations."""
        return [c.text for c in self.claims if not c.attributed]


@register_metric("faithfulness.v1")
class Faithfulness(ClaimSupportMetric):
    """Share of response claims supported by the retrieved contexts (options as ContextRecall)."""

    name = "faithfulness"
    required_columns = ("response", "retrieved_contexts")
    claims_from = "response"
    result_type = FaithfulnessResult
    counts_parts = True  # one unsupported detail costs its part, not the whole sentence
