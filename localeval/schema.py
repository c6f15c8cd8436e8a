"""The row every metric reads: a pydantic model with RAGAS column names.

RAGAS' current names (`user_input`, `response`, `retrieved_contexts`, `reference`, ...) are
the field names; its older names (`question`, `answer`, `contexts`, `ground_truth`) are
accepted as aliases so that existing datasets load unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

__all__ = ["Sample"]


class Sample(BaseModel):
    """One evaluation row.

    Every field is optional: each metric states which ones it needs and returns a score of
    ``None`` with a reason when one is missing. Types are checked strictly (a number where a
    string belongs is a validation error, not a silent ``str(...)``), and so is text: a lone
    surrogate (not Unicode) is a validation error too.
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

    @field_validator("*")
    @classmethod
    def _encodable(cls, value: Any) -> Any:
        # JSON may hold a lone surrogate (the escape "\ud800"), which Python keeps in a str
        # although it is not Unicode text: the tokenizers raise on it and UTF-8 output cannot
        # hold it. Refusing it here makes such a row a validation error naming the field,
        # before any model runs, instead of a crash inside a metric or the output writer.
        items = value if isinstance(value, list) else [value]
        for i, text in enumerate(items):
            if isinstance(text, str) and not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    where = f"item {i}, " if isinstance(value, list) else ""
                    raise ValueError(
                        f"not valid Unicode text: lone surrogate U+{ord(text[exc.start]):04X} "
                        f"at {where}character {exc.start}"
                    ) from None
        return value
