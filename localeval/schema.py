"""The row every metric reads: a pydantic model with RAGAS column names.

RAGAS' current names (`user_input`, `response`, `retrieved_contexts`, `reference`, ...) are
the field names; its older names (`question`, `answer`, `contexts`, `ground_truth`) are
accepted as aliases so that existing datasets load unchanged.
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

__all__ = ["Sample"]


class Sample(BaseModel):
    """One evaluation row.

    Every field is optional: each metric states which ones it needs and returns a score of
    ``None`` with a reason when one is missing. Types are checked strictly (a number where a
    string belongs is a validation error, not a silent ``str(...)``).
    """

    model_config = ConfigDict(strict=True, populate_by_name=True, extra="ignore", frozen=True)

    user_input: str | None = Field(
        default=None, validation_alias=AliasChoices("user_input", "question")
    )
    response: str | None = Field(default=None, validation_alias=AliasChoices("response", "answer"))
    retrieved_contexts: list[str] | None = Field(
        default=None, validation_alias=AliasChoices("retrieved_contexts", "contexts")
    )
    reference: str | None = Field(
        default=None, validation_alias=AliasChoices("reference", "ground_truth")
    )
    reference_contexts: list[str] | None = None
    retrieved_context_ids: list[str | int] | None = None
    reference_context_ids: list[str | int] | None = None
