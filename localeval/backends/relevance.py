"""Relevance judgements: does a passage (a sentence, a window, a chunk) answer a question?

Scored by the judge's relevance head with (passage, question) pairs, evidence first as in NLI.
A chunk longer than the judge's input is windowed by sentence and its relevance is the best
window's, so a long chunk with one answering sentence is still relevant.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from localeval.backends.nli import NLIJudge
from localeval.text import Span, make_windows, split_sentences

__all__ = ["sentence_relevance", "chunk_relevance"]


def sentence_relevance(
    judge: NLIJudge,
    items: Sequence[tuple[str, Sequence[str]]],
    *,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
) -> list[list[float]]:
    """P(relevant) of each passage for its question: ``items`` = [(question, passages), ...]."""
    pairs = [(passage, question) for question, passages in items for passage in passages]
    probs = judge.relevance_probability(pairs, batch_size=batch_size, show_progress_bar=show_progress_bar)
    out, k = [], 0
    for _, passages in items:
        out.append([float(p) for p in probs[k : k + len(passages)]])
        k += len(passages)
    return out


def chunk_relevance(
    judge: NLIJudge,
    items: Sequence[tuple[str, Sequence[str]]],
    *,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
) -> list[list[tuple[float, Span | None]]]:
    """Per question, per chunk: (P(relevant), best window). Empty chunks get (0.0, None)."""
    pairs: list[tuple[str, str]] = []
    plan: list[list[list[tuple[int, Span]]]] = []
    for question, chunks in items:
        budget = judge.max_length - min(judge.count_tokens(question), judge.max_length // 2) - 3
        row = []
        for chunk in chunks:
            windows: list[Span] = []
            if chunk and chunk.strip():
                windows = list(make_windows(chunk, split_sentences(chunk), judge.count_tokens, budget))
            row.append([(len(pairs) + i, w) for i, w in enumerate(windows)])
            pairs.extend((w.text, question) for w in windows)
        plan.append(row)
    probs = (
        judge.relevance_probability(pairs, batch_size=batch_size, show_progress_bar=show_progress_bar)
        if pairs
        else np.zeros(0)
    )
    result = []
    for row in plan:
        scored = []
        for windows in row:
            if not windows:
                scored.append((0.0, None))
                continue
            index, window = max(windows, key=lambda item: probs[item[0]])
            scored.append((float(probs[index]), window))
        result.append(scored)
    return result
