"""Claim attribution: how strongly a list of contexts supports each claim, and where.

A claim's support is the highest entailment probability over every window of every context
(windows are runs of whole sentences sized to the judge, so a 50k-token context is read in
full, never truncated). The evidence is then narrowed to the single sentence of the winning
window that supports the claim best, so users see *which sentence* backed a claim.

Work is grouped: `attribute` takes many (claims, contexts) groups -- one per dataset row --
and sends all their pairs to the judge in one call, so batches stay full across rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pydantic import BaseModel

from localeval.backends.nli import NLIJudge
from localeval.text import Window, make_windows, split_sentences

__all__ = ["Evidence", "Support", "attribute"]


class Evidence(BaseModel):
    """Where a claim's support was found: a sentence (or piece of one) of one context."""

    context_index: int
    text: str
    start: int
    """Character offset of ``text`` inside ``retrieved_contexts[context_index]``."""
    end: int
    window_start: int
    window_end: int
    """Character span of the whole window that was judged."""


class Support(BaseModel):
    probability: float
    evidence: Evidence | None = None


class _ContextWindows:
    """The windows of one context string for one token budget (cached: rows share contexts)."""

    def __init__(self, judge: NLIJudge, text: str, budget: int) -> None:
        self.text = text
        self.sentences = split_sentences(text)
        self.windows: list[Window] = make_windows(
            text, self.sentences, _token_counter(judge), budget
        ) if self.sentences else []


def _token_counter(judge: NLIJudge):
    cached = getattr(judge, "_cached_count_tokens", None)
    if cached is None:
        cached = lru_cache(maxsize=65536)(judge.count_tokens)
        judge._cached_count_tokens = cached  # type: ignore[attr-defined]
    return cached


def _claim_budget(judge: NLIJudge, claims: Sequence[str]) -> int:
    # Room left for the premise: the longest claim plus [CLS] [SEP] [SEP]. A claim longer than
    # half the input is rare and is the one thing truncated (with the judge's warning).
    longest = max(judge.count_tokens_batch(list(claims)), default=0)
    return judge.max_length - min(longest, judge.max_length // 2) - 3


def attribute(
    judge: NLIJudge,
    groups: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    locate_sentence: bool = True,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
) -> list[list[Support]]:
    """Support of each claim by its group's contexts.

    Args:
        groups: ``(claims, contexts)`` per row. Empty or whitespace-only contexts are skipped;
            a claim with no usable context gets probability 0.0 and no evidence.
        locate_sentence: narrow each claim's evidence from the winning window to its best
            sentence (one extra, small judge call).
    Returns:
        per group, one `Support` per claim, in order.
    """
    budget_windows: dict[tuple[str, int], _ContextWindows] = {}
    pairs: list[tuple[str, str]] = []
    # per group, per claim: list of (pair index, context index, window)
    plan: list[list[list[tuple[int, int, Window]]]] = []
    budgets: list[int] = []
    for claims, contexts in groups:
        budget = _claim_budget(judge, claims) if claims else judge.max_length
        budgets.append(budget)
        prepared: list[tuple[int, _ContextWindows]] = []
        for ci, context in enumerate(contexts):
            if not context or not context.strip():
                continue
            key = (context, budget)
            if key not in budget_windows:
                budget_windows[key] = _ContextWindows(judge, context, budget)
            prepared.append((ci, budget_windows[key]))
        group_plan = []
        for claim in claims:
            claim_plan = []
            for ci, cw in prepared:
                for window in cw.windows:
                    claim_plan.append((len(pairs), ci, window))
                    pairs.append((window.text, claim))
            group_plan.append(claim_plan)
        plan.append(group_plan)

    probs = judge.entailment_probability(
        pairs, batch_size=batch_size, show_progress_bar=show_progress_bar
    )

    # Best window per claim; then its sentences are judged one by one to find the evidence.
    best: list[list[tuple[float, int, Window] | None]] = []
    refine_pairs: list[tuple[str, str]] = []
    refine_plan: list[tuple[int, int, list[tuple[int, str, int, int]]]] = []
    for g, ((claims, contexts), group_plan) in enumerate(zip(groups, plan)):
        group_best: list[tuple[float, int, Window] | None] = []
        for k, claim_plan in enumerate(group_plan):
            if not claim_plan:
                group_best.append(None)
                continue
            pi, ci, window = max(claim_plan, key=lambda item: probs[item[0]])
            group_best.append((float(probs[pi]), ci, window))
            if locate_sentence and len(window.sentence_indices) > 1:
                cw = budget_windows[(contexts[ci], budgets[g])]
                candidates = []
                for si in window.sentence_indices:
                    sentence = cw.sentences[si]
                    candidates.append((len(refine_pairs), sentence.text, sentence.start, sentence.end))
                    refine_pairs.append((sentence.text, claims[k]))
                refine_plan.append((g, k, candidates))
        best.append(group_best)

    refine_probs = (
        judge.entailment_probability(refine_pairs, batch_size=batch_size) if refine_pairs else []
    )
    located: dict[tuple[int, int], tuple[str, int, int]] = {}
    for g, k, candidates in refine_plan:
        pi, text, start, end = max(candidates, key=lambda c: refine_probs[c[0]])
        located[(g, k)] = (text, start, end)

    results: list[list[Support]] = []
    for g, group_best in enumerate(best):
        row: list[Support] = []
        for k, found in enumerate(group_best):
            if found is None:
                row.append(Support(probability=0.0))
                continue
            probability, ci, window = found
            text, start, end = located.get((g, k), (window.text, window.start, window.end))
            row.append(
                Support(
                    probability=probability,
                    evidence=Evidence(
                        context_index=ci,
                        text=text,
                        start=start,
                        end=end,
                        window_start=window.start,
                        window_end=window.end,
                    ),
                )
            )
        results.append(row)
    return results
