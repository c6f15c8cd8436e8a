"""Support pieced together: a claim no single unit supports, judged by its atomic parts.

A small judge reads one unit at a time, so a claim whose facts sit in two sentences or two
chunks ("fill the tank and run the 70 C programme; repeat every three months") is rejected
whole, and one extra true detail sinks a sentence. After the usual attribution, each claim
that failed is cut into its atomic parts (`localeval.text.atoms`) and each part is judged
against every unit of every premise, exactly as a claim is. Then:

* every part supported -> the claim is supported (``attributed=True``, ``pieced=True``, its
  probability the weakest part's);
* some part unsupported -> the claim stays unsupported and its details list each part with
  its own verdict and evidence, so the failed part is named (`ClaimAttribution.failed_parts`);
  metrics that count parts (faithfulness, factual correctness) give the claim the share of
  its parts that are supported (`ClaimAttribution.credit`).

Claims the judge supports whole are never cut (no extra pairs), nor claims the rules find
nothing to split in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from localeval.backends.attribution import Evidence
from localeval.text.atoms import atomic_parts_many

if TYPE_CHECKING:
    from localeval.backends.session import JudgeSession
    from localeval.metrics.claim_support import ClaimAttribution, JudgedMetric

__all__ = ["ClaimPart", "piece_together"]


class ClaimPart(BaseModel):
    """One atomic part of a claim (`localeval.text.atoms`) and the premises' verdict on it."""

    text: str
    """The part as judged: built from the claim's own words (it need not appear verbatim)."""
    source_start: int | None
    source_end: int | None
    """Span, in the claim's text, of the words the part came from."""
    attributed: bool
    probability: float
    evidence: Evidence | None = None
    contrast: str | None = None


def piece_together(
    metric: JudgedMetric,
    groups: Sequence[tuple[Sequence[object], Sequence[str]]],
    judged: Sequence[list[ClaimAttribution]],
    threshold: float,
    *,
    session: JudgeSession | None = None,
) -> None:
    """Judge the atomic parts of every unsupported claim of ``judged`` (the verdicts of
    ``groups``, as `JudgedMetric.judge_claims` returns them) against its group's premises, in
    one judge call, and record them on the claim (in place)."""
    from localeval.metrics.decomposed import ClaimUnit

    failed = [(g, k) for g, row in enumerate(judged) for k, claim in enumerate(row) if not claim.attributed]
    if not failed:
        return
    parts_of = atomic_parts_many([judged[g][k].text for g, k in failed])
    todo = [(key, parts) for key, parts in zip(failed, parts_of) if len(parts) >= 2]
    if not todo:
        return
    part_groups = [([ClaimUnit(p.text, None, None) for p in parts], list(groups[g][1])) for (g, _), parts in todo]
    verdicts = metric.judge_claims(part_groups, threshold, session=session)
    for ((g, k), parts), part_verdicts in zip(todo, verdicts):
        claim = judged[g][k]
        claim.parts = [
            ClaimPart(text=p.text, source_start=p.source_start, source_end=p.source_end, attributed=v.attributed,
                      probability=v.probability, evidence=v.evidence, contrast=v.contrast)
            for p, v in zip(parts, part_verdicts)
        ]
        if all(v.attributed for v in part_verdicts):
            claim.attributed = True
            claim.pieced = True
            claim.probability = min(v.probability for v in part_verdicts)
