"""Question recall: can the retrieved contexts answer every part of the question?

The blog's ``QuestionBasedRecallEvaluator`` (seed 004) with local judges. The question is
decomposed into sub-questions (`localeval.text.questions`; rule-based by default, any
`QuestionDecomposer` plugs in), and a sub-question is *answerable* when some sentence of some
retrieved context answers it: P(relevant | sentence, sub-question) >= the relevance threshold,
best over all sentences of all contexts.

    score = answerable sub-questions / sub-questions

Why sentences by default: the judge's relevance head was trained to tell the sentence that
answers a question from the other sentences of the same paragraph, so a sentence that is only
on the topic ("The Eiffel Tower is in Paris" for "When was it built?") does not count. A
sentence too long for the judge is read in word-aligned pieces. ``unit="window"`` judges
sentence-aligned windows instead (as chunk relevance does): use it when answers span sentences
("It was built in 1889." after a sentence naming the tower), knowing that a window on the
right topic tends to pass.

Edge cases (deterministic, documented, tested):

* ``user_input`` or ``retrieved_contexts`` missing (None) -> ``score=None``, reason says which.
* empty or whitespace-only question -> ``score=None``: there is nothing to answer.
* a question the decomposer finds no sub-question in (e.g. only punctuation) -> ``score=None``
  with reason. Blank sub-questions a custom decomposer returns are dropped.
* no contexts (``[]``) or only empty/whitespace ones -> ``score=0.0`` with reason: no
  sub-question is answerable; every sub-question is listed with probability 0. (This differs
  from context relevance, which is a ratio over context sentences and is undefined there.)
* empty strings among other contexts are ignored; evidence indices refer to the original list.
* a judge without a relevance head -> ``ValueError`` (setup error).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel

from localeval.evidence.attribution import Evidence
from localeval.judge.batching import judge_by_key
from localeval.evidence.relevance import context_relevance
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.context_relevance import (
    ContextSentence,
    context_sentences,
    judge_sentences,
    question_budget,
    require_relevance_head,
)
from localeval.metrics.decomposed import DecompositionRecord, check_decomposer, sub_questions
from localeval.schema import Sample
from localeval.text import Span
from localeval.text.questions import RuleBasedDecomposer
from localeval.judge.session import JudgeSession

__all__ = ["QuestionRecall", "QuestionRecallResult", "SubQuestionVerdict"]

Unit = Literal["sentence", "window"]


class SubQuestionVerdict(BaseModel):
    text: str
    answerable: bool
    probability: float
    """Best P(relevant) over the contexts' sentences (or windows)."""
    evidence: Evidence | None = None
    """The best-answering sentence (given even when below the threshold): ``text``/``start``/
    ``end`` is the whole sentence, ``window_start``/``window_end`` the piece that was judged."""


class QuestionRecallResult(MetricResult):
    metric: str = "question_recall"
    threshold: float | None = None
    unit: Unit | None = None
    sub_questions: list[SubQuestionVerdict] = []
    decomposition: DecompositionRecord | None = None
    """How the sub-questions were made, when a decomposer other than the default rules was given."""

    @property
    def answerable_count(self) -> int:
        return sum(q.answerable for q in self.sub_questions)

    @property
    def unanswered(self) -> list[str]:
        """Sub-questions no context answers: what retrieval missed."""
        return [q.text for q in self.sub_questions if not q.answerable]


@register_metric("question_recall.v1")
class QuestionRecall(JudgedMetric):
    """Share of the question's sub-questions that the retrieved contexts answer.

    Args:
        model, threshold, device, batch_size: the judge options of every judged metric;
            ``threshold`` is a P(relevant), default the judge's stored relevance threshold.
        decomposer: a `Decomposer` (``sub_questions(question)``, e.g.
            ``localeval.llm.LLMDecomposer(PATH)``) or any object with ``decompose(question)
            -> list[str]``; ``None`` = a `RuleBasedDecomposer` (deterministic, spaCy-based).
        unit: ``"sentence"`` (default) or ``"window"``: what a sub-question is judged against.
    """

    name = "question_recall"
    required_columns = ("user_input", "retrieved_contexts")
    result_type = QuestionRecallResult
    threshold_kind: ClassVar[str] = "relevance"

    def __init__(
        self,
        model=None,
        *,
        decomposer=None,
        unit: Unit = "sentence",
        **options,
    ) -> None:
        check_decomposer(decomposer, "sub_questions")
        if unit not in ("sentence", "window"):
            raise ValueError(f"unit must be 'sentence' or 'window', got {unit!r}")
        super().__init__(model, **options)
        self.decomposer = decomposer if decomposer is not None else RuleBasedDecomposer()
        self.unit = unit

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        results: list[MetricResult | None] = [None] * len(samples)
        subs: dict[int, list[str]] = {}
        questions = [(s.user_input or "").strip() for s in samples]
        asked = [i for i, q in enumerate(questions) if q]
        decomposed = dict(zip(asked, sub_questions(self.decomposer, [questions[i] for i in asked], session=session)))
        records = {i: record for i, (_, record) in decomposed.items()}
        for i in range(len(samples)):
            found = decomposed[i][0] if i in decomposed else []
            if not questions[i]:
                results[i] = self.unscored("user_input is empty: there is no question to answer")
            elif not found:
                results[i] = self.unscored("the question has no sub-question (nothing to answer)")
                results[i].decomposition = records.get(i)  # type: ignore[union-attr]
            else:
                subs[i] = found

        has_context = {i: any(c and c.strip() for c in samples[i].retrieved_contexts or []) for i in subs}
        to_judge = [i for i in subs if has_context[i]]
        # Rows without context need no judge: don't load one just to report its threshold.
        threshold = self.threshold
        by_row: dict[int, list] = {}
        if to_judge:
            require_relevance_head(self.judge)
            threshold = self.resolved_threshold()
            judge = self._by_sentence if self.unit == "sentence" else self._by_window
            by_row = judge({i: (subs[i], samples[i].retrieved_contexts or []) for i in to_judge}, show_progress_bar, session)

        for i, questions in subs.items():
            if not has_context[i]:
                verdicts = [SubQuestionVerdict(text=q, answerable=False, probability=0.0) for q in questions]
                results[i] = QuestionRecallResult(
                    score=0.0,
                    reason="no non-empty retrieved context: no sub-question is answerable",
                    threshold=threshold,
                    unit=self.unit,
                    sub_questions=verdicts,
                    decomposition=records.get(i),
                )
                continue
            verdicts = [
                SubQuestionVerdict(text=q, answerable=p >= threshold, probability=round(p, 6), evidence=evidence)  # type: ignore[operator]
                for q, (p, evidence) in zip(questions, by_row[i])
            ]
            results[i] = QuestionRecallResult(
                score=sum(v.answerable for v in verdicts) / len(verdicts),
                threshold=threshold,
                unit=self.unit,
                sub_questions=verdicts,
                decomposition=records.get(i),
            )
        return [r for r in results if r is not None]

    def _by_sentence(self, rows: dict[int, tuple[list[str], list[str]]], show_progress_bar: bool,
                     session: JudgeSession) -> dict[int, list[tuple[float, Evidence]]]:
        """Per row, per sub-question: (best P over all sentences, evidence)."""
        # One budget per row (its longest sub-question) so its sentences are cut once.
        plan = {i: context_sentences(self.judge, contexts, question_budget(self.judge, questions, session=session),
                                     session=session) for i, (questions, contexts) in rows.items()}
        items = {(i, k): (q, plan[i]) for i, (questions, _) in rows.items() for k, q in enumerate(questions)}
        scored = judge_by_key(lambda batch: judge_sentences(self.judge, batch, session=session, batch_size=self.batch_size,
                                                            show_progress_bar=show_progress_bar), items)
        return {i: [_best_sentence(plan[i], scored[(i, k)]) for k in range(len(questions))]
                for i, (questions, _) in rows.items()}

    def _by_window(self, rows: dict[int, tuple[list[str], list[str]]], show_progress_bar: bool,
                   session: JudgeSession) -> dict[int, list[tuple[float, Evidence]]]:
        """Per row, per sub-question: (best P over all windows of all chunks, evidence)."""
        items = {(i, k): (q, contexts) for i, (questions, contexts) in rows.items() for k, q in enumerate(questions)}
        scored = judge_by_key(lambda batch: context_relevance(self.judge, batch, session=session, batch_size=self.batch_size,
                                                            show_progress_bar=show_progress_bar), items)
        return {i: [_best_window(scored[(i, k)]) for k in range(len(questions))] for i, (questions, _) in rows.items()}


def _best_sentence(sentences: list[ContextSentence], scored: list[tuple[float, Span]]) -> tuple[float, Evidence]:
    """A sub-question's best sentence (the first of equal ones) and its evidence."""
    k = max(range(len(sentences)), key=lambda j: scored[j][0])
    p, piece = scored[k]
    cs = sentences[k]
    return p, Evidence(context_index=cs.context_index, text=cs.sentence.text, start=cs.sentence.start,
                       end=cs.sentence.end, window_start=piece.start, window_end=piece.end)


def _best_window(per_context: list[tuple[float, Span | None]]) -> tuple[float, Evidence]:
    """A sub-question's best window over every non-empty context, and its evidence."""
    p, ci, w = max(((p, ci, w) for ci, (p, w) in enumerate(per_context) if w is not None), key=lambda c: c[0])
    return p, Evidence(context_index=ci, text=w.text, start=w.start, end=w.end, window_start=w.start, window_end=w.end)
