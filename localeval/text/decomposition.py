"""The `Decomposer` interface: claims of a text, sub-questions of a question.

Two jobs, one object, so a metric never cares which implementation it got:

* ``claims(text) -> list[str]``: the statements of a reference or a response;
* ``sub_questions(question) -> list[str]``: the information needs of a question.

`localeval.text.questions.RuleBasedDecomposer` is the deterministic default (claims from
`split_claims`, sub-questions from its rules); `localeval.llm.LLMDecomposer` asks a local
instruction model and falls back to the rules, item by item, when the model's output does not
pass validation. Metrics call `decompose_many`, which uses a decomposer's batched
``decompose_batch`` when it has one and records, per item, where the result came from.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

if TYPE_CHECKING:
    from localeval.judge.session import JudgeSession

__all__ = ["CachingDecomposer", "Decomposer", "Decomposition", "Kind", "Rejected", "decompose_many", "decomposer_name"]

Kind = Literal["claims", "sub_questions"]


@runtime_checkable
class Decomposer(Protocol):
    """Anything that splits texts into claims and questions into sub-questions.

    Contract: ``[]`` for a text without content; a text that states (asks) one thing is its
    own single claim (sub-question); the same input gives the same output.
    """

    def claims(self, text: str) -> list[str]: ...

    def sub_questions(self, question: str) -> list[str]: ...


class Rejected(BaseModel):
    """An item of a model's output that failed validation, and why."""

    text: str
    reason: str


class Decomposition(BaseModel):
    """The items of one text and how they were obtained (kept in metric details)."""

    items: list[str]
    decomposer: str
    """Which decomposer produced ``items``: ``"rule"`` or ``"llm:<model file name>"``."""
    fallback_reason: str | None = None
    """Why the model's output was not used for this text (``items`` are then the rules')."""
    rejected: list[Rejected] = []
    """Items of the model's output that were dropped, each with its reason."""


def decomposer_name(decomposer: object) -> str:
    name = getattr(decomposer, "name", None)
    return name if isinstance(name, str) else type(decomposer).__name__


class CachingDecomposer(ABC):
    """A decomposer that works through the run's session: it keeps what it made in the
    session's cache (beside the verdicts) and asks the session's judge. The runner's session
    is handed to it explicitly (`decompose_many`), never set on it."""

    @abstractmethod
    def decompose_batch(self, texts: Sequence[str], kind: Kind, *,
                        session: JudgeSession | None = None) -> list[Decomposition]:
        """One `Decomposition` per text; ``session=None``: the decomposer's own memory."""


def decompose_many(decomposer: object, texts: Sequence[str], kind: Kind, *,
                   session: JudgeSession | None = None) -> list[Decomposition]:
    """One `Decomposition` per text, in order (batched when the decomposer can batch).

    ``decomposer`` is a `Decomposer`, or, for ``kind="sub_questions"``, any object with the
    older ``decompose(question)`` method. A `CachingDecomposer` gets ``session``. Blank items
    are dropped.
    """
    batch = getattr(decomposer, "decompose_batch", None)
    if isinstance(decomposer, CachingDecomposer):
        out = list(decomposer.decompose_batch(list(texts), kind, session=session))
    elif callable(batch):
        out = list(batch(list(texts), kind))
    else:
        method = getattr(decomposer, kind, None)
        if method is None and kind == "sub_questions":
            method = getattr(decomposer, "decompose", None)
        if not callable(method):
            raise TypeError(f"{decomposer!r} has no {kind}() method")
        name = decomposer_name(decomposer)
        out = [Decomposition(items=list(method(t)), decomposer=name) for t in texts]
    for d in out:
        d.items = [s.strip() for s in d.items if s and s.strip()]
    return out
