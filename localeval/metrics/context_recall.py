"""Context recall: how much of the reference answer the retrieved contexts support.

RAGAS ``LLMContextRecall`` semantics, with a local NLI judge in place of the LLM: the
reference is split into claims (sentences, list items, safe clause splits); a claim is
*attributed* when some retrieved context entails it with probability >= the threshold.

    score = attributed claims / claims

Edge cases (deterministic, documented, tested):

* ``reference`` or ``retrieved_contexts`` missing (None) -> ``score=None``, reason says which.
* empty reference, or one of only whitespace/punctuation -> ``score=None``: there is no claim
  to recall, and inventing 0 or 1 would bias averages (the row is counted as unscored).
* no contexts (``[]``), or only empty/whitespace contexts -> ``score=0.0``: nothing was
  retrieved, so no claim is attributed; every claim is listed with probability 0.
* empty strings among other contexts are ignored; context indices in evidence still refer to
  the original list.
* non-string input -> a pydantic ``ValidationError`` when the `Sample` is built.
"""

from __future__ import annotations

from localeval.metrics.base import register_metric
from localeval.metrics.claim_support import ClaimSupportMetric, ClaimSupportResult
from localeval.metrics.judged import ClaimAttribution

__all__ = ["ClaimAttribution", "ContextRecall", "ContextRecallResult"]


class ContextRecallResult(ClaimSupportResult):
    metric: str = "context_recall"

    @property
    def missing_claims(self) -> list[str]:
        """Reference claims no context supports: what retrieval missed."""
        return [c.text for c in self.claims if not c.attributed]


@register_metric("context_recall.v1")
class ContextRecall(ClaimSupportMetric):
    """Share of reference claims supported by the retrieved contexts.

    Args:
        model: judge name, local model directory, or a loaded `NLIJudge`; ``None`` = the
            default judge shipped in ``models/``.
        threshold: entailment probability at which a claim counts as attributed; ``None``
            uses the threshold stored with the judge (tuned on development data).
        split_coordination: split "X, and Y" clauses into separate claims where safe.
        decomposer: ``None`` (rule-based claims) or any `Decomposer`, e.g.
            ``localeval.llm.LLMDecomposer(PATH)``; fallbacks are recorded in ``decomposition``.
        device: ``"cpu"``, ``"cuda"``, or ``None`` for automatic.
        batch_size: pairs per judge forward pass.
    """

    name = "context_recall"
    required_columns = ("reference", "retrieved_contexts")
    claims_from = "reference"
    result_type = ContextRecallResult
