"""Claims and sub-questions for metrics, from whichever decomposer a metric was given.

``decomposer=None`` (or a `RuleBasedDecomposer`) keeps the rule-based path, where a claim is a
span cut from its text. Any other `Decomposer` (an `LLMDecomposer`, a user's own) gives
strings: a claim's span is found in the text when it appears there verbatim, else left
``None``. What the decomposer did with each text (its name, a fallback to the rules and why,
the model's items it rejected) goes into the metric's details as a `DecompositionRecord`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from localeval.text import split_claims
from localeval.text.decomposition import Decomposition, Kind, Rejected, decompose_many
from localeval.text.hygiene import non_claim_reason
from localeval.text.questions import RuleBasedDecomposer

if TYPE_CHECKING:
    from localeval.backends.session import JudgeSession

__all__ = ["ClaimUnit", "DecompositionRecord", "check_decomposer", "claim_units", "is_rule_based", "sub_questions"]


class DecompositionRecord(BaseModel):
    """How a text was decomposed, when a decomposer other than the default rules was asked."""

    decomposer: str
    fallback_reason: str | None = None
    rejected: list[Rejected] = []


@dataclass
class ClaimUnit:
    text: str
    start: int | None
    end: int | None
    skip_reason: str | None = None
    """Why this piece is not judged as a claim ("bare answer word", "discourse line"; see
    `localeval.text.hygiene`); ``None`` for a claim."""


def is_rule_based(decomposer: object) -> bool:
    return decomposer is None or isinstance(decomposer, RuleBasedDecomposer)


def check_decomposer(decomposer: object, kind: Kind) -> None:
    """TypeError at construction for an object that cannot do ``kind``."""
    if decomposer is None:
        return
    names = ("decompose_batch", kind) + (("decompose",) if kind == "sub_questions" else ())
    if not any(callable(getattr(decomposer, n, None)) for n in names):
        raise TypeError(f"decomposer needs a {kind}() method (see localeval.text.decomposition), got {decomposer!r}")


def _record(d: Decomposition) -> DecompositionRecord:
    return DecompositionRecord(decomposer=d.decomposer, fallback_reason=d.fallback_reason, rejected=d.rejected)


def _locate(text: str, items: list[str]) -> list[ClaimUnit]:
    units, cursor = [], 0
    for item in items:
        at = text.find(item, cursor)
        at = at if at >= 0 else text.find(item)
        if at >= 0:
            units.append(ClaimUnit(item, at, at + len(item)))
            cursor = at + len(item)
        else:
            units.append(ClaimUnit(item, None, None))
    return units


def claim_units(
    decomposer: object, texts: Sequence[str], *, split_coordination: bool = True, session: JudgeSession | None = None
) -> list[tuple[list[ClaimUnit], DecompositionRecord | None]]:
    """Per text: its claims (with spans where known) and the record of how they were made.
    Pieces that are no claims ("Yes.", "I hope this helps!") are kept, marked with their
    ``skip_reason``: metrics leave them out of the count and show them in the details."""
    if is_rule_based(decomposer):
        out = [
            ([ClaimUnit(s.text, s.start, s.end) for s in split_claims(t, split_coordination=split_coordination)], None)
            for t in texts
        ]
    else:
        done = decompose_many(decomposer, texts, "claims", session=session)
        out = [(_locate(t, d.items), _record(d)) for t, d in zip(texts, done)]
    for units, _ in out:
        for unit in units:
            unit.skip_reason = non_claim_reason(unit.text)
    return out


def sub_questions(
    decomposer: object, questions: Sequence[str], *, session: JudgeSession | None = None
) -> list[tuple[list[str], DecompositionRecord | None]]:
    """Per question: its sub-questions and, for a non-default decomposer, the record."""
    chosen = decomposer if decomposer is not None else RuleBasedDecomposer()
    done = decompose_many(chosen, questions, "sub_questions", session=session)
    return [(d.items, None if is_rule_based(decomposer) else _record(d)) for d in done]
