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
* ``max_row_pairs`` (default 4,000): judge pairs one metric may ask for one row, estimated
  before scoring. Characters alone do not bound time: a 947k-character context under the
  character budget cost context relevance 277 s and chunk recall over 300 s (every sentence
  judged against the question), context recall 12.9 s (claims against their closest units).
  The estimate (`estimated_pairs`) counts, from the metric's declared columns, thresholds and
  ``max_units``: one pair per context unit (a sentence, or a 16-word step of a sentence too
  long for the judge) for each pass of a metric that judges context sentences against the
  question, and ``max_units`` pairs per claim (a sentence of the response or reference) for
  a metric that checks claims. A row over it is unscored for every metric, the reason naming
  the metric and the estimate; at the ~35 pairs a second of a 2-core CPU, 4,000 pairs bound a
  metric to about two minutes a row (seconds on a GPU).

``None`` switches a budget off. Set them with ``evaluate(max_row_chars=..., max_contexts=...,
max_row_pairs=...)`` or ``localeval score --max-row-chars N --max-contexts N --max-row-pairs N``
(or the same keys in the configuration file).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from localeval.runner.rows import Row
from localeval.schema import Sample

__all__ = ["DEFAULT_MAX_CONTEXTS", "DEFAULT_MAX_ROW_CHARS", "DEFAULT_MAX_ROW_PAIRS", "RowBudget", "estimated_pairs",
           "within_budget"]

DEFAULT_MAX_ROW_CHARS = 1_000_000
DEFAULT_MAX_CONTEXTS = 1_000
DEFAULT_MAX_ROW_PAIRS = 4_000
OVER_BUDGET = "over budget"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_WORDS = re.compile(r"\S+")
_LONG_SENTENCE_WORDS = 150  # about the judge's input beside a question: longer ones are cut in pieces
_PIECE_STEP = 16  # words between the starts of neighbouring pieces (context_relevance.RELEVANCE_PIECE_WORDS / 2)
_CLAIM_FIELDS = ("response", "reference")


def text_units(text: str | None) -> int:
    """Judge inputs a text becomes, cheaply estimated (no sentence splitter, no tokenizer):
    one per sentence, and one per 16-word step of a sentence too long for the judge."""
    if not text:
        return 0
    units = 0
    for sentence in _SENTENCE_END.split(text):
        words = len(_WORDS.findall(sentence))
        if words:
            units += 1 if words <= _LONG_SENTENCE_WORDS else math.ceil(words / _PIECE_STEP)
    return units


def estimated_pairs(metric: Any, sample: Sample) -> int:
    """About how many judge pairs ``metric`` asks for ``sample`` (see the module docstring):
    an upper estimate from the metric's declared columns, not a count of its own code."""
    from localeval.metrics.judged import JudgedMetric

    if not isinstance(metric, JudgedMetric):
        return 0  # no judge (IDs, embeddings, entities)
    columns = set(metric.required_columns)
    contexts = sum(text_units(c) for c in sample.retrieved_contexts or [] if isinstance(c, str))
    pairs = 0
    if {"user_input", "retrieved_contexts"} <= columns:  # every context unit against the question
        pairs += contexts * max(1, len(getattr(metric, "threshold_kinds", ()) or ()))
    claims = sum(text_units(getattr(sample, f, None)) for f in _CLAIM_FIELDS if f in columns)
    against = contexts if "retrieved_contexts" in columns else \
        text_units(sample.reference if "reference" in columns else None)
    max_units = getattr(metric, "max_units", None)
    pairs += claims * (min(max_units, against) if isinstance(max_units, int) and max_units > 0 else against)
    return pairs


class RowBudget(BaseModel):
    """The most one row may hold to be scored (``None``: no limit)."""

    model_config = ConfigDict(frozen=True)

    max_row_chars: int | None = Field(default=DEFAULT_MAX_ROW_CHARS, ge=1)
    max_contexts: int | None = Field(default=DEFAULT_MAX_CONTEXTS, ge=1)
    max_row_pairs: int | None = Field(default=DEFAULT_MAX_ROW_PAIRS, ge=1)

    def excess(self, sample: Sample, metrics: Sequence[tuple[str, Any]] = ()) -> str | None:
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
        if self.max_row_pairs is not None:
            for name, metric in metrics:
                pairs = estimated_pairs(metric, sample)
                if pairs > self.max_row_pairs:
                    return (f"{OVER_BUDGET}: about {pairs:,} judge pairs for {name}, more than "
                            f"max_row_pairs={self.max_row_pairs:,} (raise it with --max-row-pairs / "
                            "max_row_pairs=, or 0 / None for no limit)")
        return None


def within_budget(rows: Iterable[Row], budget: RowBudget, metrics: Sequence[tuple[str, Any]] = ()) -> Iterator[Row]:
    """``rows``, each valid row over ``budget`` (for any of ``metrics``, the pair budget)
    turned into an unscored one with the reason."""
    for row in rows:
        if row.sample is not None:
            reason = budget.excess(row.sample, metrics)
            if reason is not None:
                row.sample, row.error = None, reason
        yield row
