"""Relevance judgements: does a passage (a sentence, a window, a retrieved context) answer a question?

Scored by the judge's relevance head with (passage, question) pairs, evidence first as in NLI.
A context longer than the judge's input is windowed by sentence and its relevance is the best
window's, so a long context with one answering sentence is still relevant. Pairs go through the
run's `JudgeSession` (``session=None``: a short-lived one).
"""

from __future__ import annotations

from collections.abc import Sequence

from localeval.judge.nli import NLIJudge
from localeval.judge.session import JudgeSession, session_scope
from localeval.text import Span, make_windows, split_sentences

__all__ = ["sentence_relevance", "context_relevance", "chunk_relevance"]


def sentence_relevance(
    judge: NLIJudge,
    items: Sequence[tuple[str, Sequence[str]]],
    *,
    session: JudgeSession | None = None,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
) -> list[list[float]]:
    """P(relevant) of each passage for its question: ``items`` = [(question, passages), ...]."""
    judge = judge.for_task("relevance")
    with session_scope(session) as run:
        batch = run.batch(judge, batch_size=batch_size, show_progress_bar=show_progress_bar)
        for i, (question, passages) in enumerate(items):
            batch.add(i, [(passage, question) for passage in passages], task="relevance")
        batch.run()
        return [[float(p) for p in batch.get(i)] for i in range(len(items))]


def context_relevance(
    judge: NLIJudge,
    items: Sequence[tuple[str, Sequence[str]]],
    *,
    session: JudgeSession | None = None,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
) -> list[list[tuple[float, Span | None]]]:
    """Per question, per context: (P(relevant), best window). Empty contexts get (0.0, None)."""
    judge = judge.for_task("relevance")  # windows sized for the relevance model's own input
    with session_scope(session) as run:
        count = run.token_counter(judge)
        batch = run.batch(judge, batch_size=batch_size, show_progress_bar=show_progress_bar)
        plan: list[list[list[Span]]] = []
        for q, (question, contexts) in enumerate(items):
            budget = run.premise_budget(judge, [question])
            row = []
            for c, context in enumerate(contexts):
                windows: list[Span] = []
                if context and context.strip():
                    windows = list(make_windows(context, split_sentences(context), count, budget,
                                                count_span=run.span_counter(judge, context)))
                row.append(windows)
                batch.add((q, c), [(w.text, question) for w in windows], task="relevance")
            plan.append(row)
        batch.run()
    result = []
    for q, row in enumerate(plan):
        scored = []
        for c, windows in enumerate(row):
            if not windows:
                scored.append((0.0, None))
                continue
            probs = batch.get((q, c))
            best = max(range(len(windows)), key=lambda i: probs[i])
            scored.append((float(probs[best]), windows[best]))
        result.append(scored)
    return result


chunk_relevance = context_relevance
"""Deprecated: the old name of `context_relevance` (README, "Changelog")."""
