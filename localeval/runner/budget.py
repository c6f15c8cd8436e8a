"""Per-row budgets: one enormous row must not hold a whole run for minutes or gigabytes.

Every judged metric grows with a row's text: sentences to split, entities to find, units to
judge. A 1 MB context, or ten thousand contexts, costs one metric a minute and gigabytes, and
the row after it waits. A row over a budget is **not scored**: it comes back with
``_error`` and, for every metric, ``score=None`` and the reason naming the budget and how to
raise it. Nothing is truncated: a score read from part of a row would be a different score.

* ``max_row_chars`` (default 1,000,000): characters of the question, response, reference and
  every retrieved and reference context together. Judge pairs grow with the sentences of
  those texts, so this bounds them too.
* ``max_contexts`` (default 1,000): retrieved plus reference contexts.

``None`` switches a budget off. Set them with ``evaluate(max_row_chars=..., max_contexts=...)``
or ``localeval score --max-row-chars N --max-contexts N`` (or the same keys in the
configuration file).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pydantic import BaseModel, ConfigDict, Field

from localeval.runner.rows import Row
from localeval.schema import Sample

__all__ = ["DEFAULT_MAX_CONTEXTS", "DEFAULT_MAX_ROW_CHARS", "RowBudget", "within_budget"]

DEFAULT_MAX_ROW_CHARS = 1_000_000
DEFAULT_MAX_CONTEXTS = 1_000
OVER_BUDGET = "over budget"


class RowBudget(BaseModel):
    """The most one row may hold to be scored (``None``: no limit)."""

    model_config = ConfigDict(frozen=True)

    max_row_chars: int | None = Field(default=DEFAULT_MAX_ROW_CHARS, ge=1)
    max_contexts: int | None = Field(default=DEFAULT_MAX_CONTEXTS, ge=1)

    def excess(self, sample: Sample) -> str | None:
        """Why ``sample`` is over budget, or ``None`` when it fits."""
        contexts = [*(sample.retrieved_contexts or []), *(sample.reference_contexts or [])]
        if self.max_contexts is not None and len(contexts) > self.max_contexts:
            return (f"{OVER_BUDGET}: {len(contexts):,} contexts, more than max_contexts={self.max_contexts:,} "
                    "(raise it with --max-contexts / max_contexts=, or 0 / None for no limit)")
        if self.max_row_chars is not None:
            texts = [sample.user_input, sample.response, sample.reference, *contexts]
            chars = sum(len(t) for t in texts if isinstance(t, str))
            if chars > self.max_row_chars:
                return (f"{OVER_BUDGET}: {chars:,} characters, more than max_row_chars={self.max_row_chars:,} "
                        "(raise it with --max-row-chars / max_row_chars=, or 0 / None for no limit)")
        return None


def within_budget(rows: Iterable[Row], budget: RowBudget) -> Iterator[Row]:
    """``rows``, each valid row over ``budget`` turned into an unscored one with the reason."""
    for row in rows:
        if row.sample is not None:
            reason = budget.excess(row.sample)
            if reason is not None:
                row.sample, row.error = None, reason
        yield row
