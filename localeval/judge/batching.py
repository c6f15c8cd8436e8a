"""Keyed group batching: many groups of work in, one judge call, results by key out.

A metric gathers work per row and per part of a row (a context, a sub-question, a sentence's
pieces) and wants it judged in one call, so batches stay full across rows. Building one flat
list, judging it and cutting the results back by hand-kept offsets was written anew in every
metric; `judge_by_key` is that step once: ``{key: group}`` in, ``{key: result}`` out, where
``judge_all`` is any function that judges a list of groups in one call through the run's
`JudgeSession` (`attribute`, `sentence_relevance`, `context_relevance`, a metric's
``judge_claims``), so the verdict cache, identical-pair deduplication and progress keep
working. Groups are handed over in the mapping's order, so the judge sees the same pairs in
the same order as a hand-built flat list would give it (scores stay byte-identical).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

__all__ = ["judge_by_key"]

K = TypeVar("K", bound=Hashable)
G = TypeVar("G")
R = TypeVar("R")


def judge_by_key(judge_all: Callable[[list[G]], Sequence[R]], groups: Mapping[K, G]) -> dict[K, R]:
    """``judge_all`` called once on every group of ``groups`` (in the mapping's order), its
    results by the groups' keys (any hashable: row indices, ``(row, context)`` tuples, names).

    No groups: ``{}`` and no call. ``judge_all`` must return one result per group, in order;
    anything else is a programming error and raises ``ValueError`` (never a silent shift of
    every result after a missing one).
    """
    if not groups:
        return {}
    keys = list(groups)
    results = judge_all([groups[key] for key in keys])
    if len(results) != len(keys):
        raise ValueError(f"judge_by_key: {len(keys)} groups judged into {len(results)} results")
    return dict(zip(keys, results))
