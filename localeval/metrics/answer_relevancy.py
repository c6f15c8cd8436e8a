"""Answer relevancy: how much of the response addresses the question.

DeepEval's ``AnswerRelevancy`` definition (the share of the response's statements that are
relevant to the input), which RAGAS' ``ResponseRelevancy`` also answers, with the judge's
relevance head in place of the LLM. The response is split into statements as claims are
(`localeval.text.split_claims`, or the metric's ``decomposer``); each statement is judged as a
passage for the question, (statement, question), as context relevance judges a context
sentence:

    score = relevant statements / statements

A statement is relevant when P(relevant) >= the threshold (the judge's ``answer_relevancy``
threshold if it stores one, else its generic relevance threshold), where P(relevant) is the
highest over the question and its sub-questions (`localeval.metrics.decomposed.sub_questions`,
as question recall makes them): a statement answering one part of "Where is the Eiffel
Tower and how tall is it?" addresses the question, but the judge, reading the whole compound
question, gives "It is 330 metres tall." 0.40 and "How tall is it?" 0.89.

Non-answers: a statement that declines to answer ("I don't know", "I cannot help with that",
"the context does not mention it"; `localeval.text.answers.is_non_answer`) is flagged and
counted as not relevant, whatever the head says (a refusal that repeats the question's words
would otherwise look relevant). A response made only of such statements gets
``non_answer=True`` and 0.0 (RAGAS scores a *noncommittal* answer 0; DeepEval would count its
"idk" statements as relevant, which rewards refusing).

Edge cases (deterministic, documented in the README, tested):

* ``user_input`` empty -> ``score=None``: relevance to no question is undefined.
* ``response`` empty (or only punctuation) -> 0.0 with ``non_answer=True``: an empty answer
  addresses nothing.
* non-English question or response -> scored, with a reason saying the score is less reliable.
* a judge without a relevance head -> ``ValueError`` before any row is scored.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from localeval.judge.batching import judge_by_key
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.context_relevance import ContextSentence, judge_sentences, question_budget, require_relevance_head
from localeval.metrics.decomposed import DecompositionRecord, check_decomposer, claim_units, sub_questions
from localeval.schema import Sample
from localeval.text import Span, make_windows
from localeval.text.answers import is_non_answer, non_english_note
from localeval.text.leads import fit_lead, instruction_lead
from localeval.judge.session import JudgeSession

__all__ = ["AnswerRelevancy", "AnswerRelevancyResult", "Statement"]


class Statement(BaseModel):
    """One statement of the response, with its span there when known."""

    text: str
    start: int | None
    end: int | None
    probability: float
    """P(relevant to the question); 0.0 for a non-answer statement, which is not judged."""
    relevant: bool
    non_answer: bool = False


class AnswerRelevancyResult(MetricResult):
    metric: str = "answer_relevancy"
    threshold: float | None = None
    statements: list[Statement] = []
    non_answer: bool = False
    """The response declines to answer (or is empty)."""
    decomposition: DecompositionRecord | None = None

    @property
    def irrelevant_statements(self) -> list[str]:
        return [s.text for s in self.statements if not s.relevant]


def _whole(text: str) -> Span:
    return Span(text=text, start=0, end=len(text))


@register_metric("answer_relevancy.v1")
class AnswerRelevancy(JudgedMetric):
    """Share of the response's statements relevant to the question (see module docstring).

    Args:
        model, threshold, device, batch_size: the judge options of every judged metric;
            ``threshold`` is a P(relevant).
        split_coordination, decomposer: how statements are made, as claims for `ContextRecall`.
    """

    name = "answer_relevancy"
    required_columns = ("user_input", "response")
    result_type = AnswerRelevancyResult
    threshold_kind: ClassVar[str] = "relevance"

    def __init__(self, model=None, *, split_coordination: bool = True, decomposer=None, **options) -> None:
        check_decomposer(decomposer, "claims")
        super().__init__(model, **options)
        self.split_coordination = split_coordination
        self.decomposer = decomposer

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        asked = [(s.user_input or "").strip() for s in samples]
        todo = [i for i, q in enumerate(asked) if q]
        results: list[MetricResult] = [
            self.unscored("user_input is empty: relevance to no question is undefined") for _ in samples
        ]
        if not todo:
            return results
        require_relevance_head(self.judge)
        threshold = self.resolved_threshold()
        split = claim_units(self.decomposer, [samples[i].response or "" for i in todo],
                            split_coordination=self.split_coordination, session=session)
        # Per row, the statements judged (a declined one is not): their positions among the row's units.
        judged = [[k for k, c in enumerate(units) if not is_non_answer(c.text)] for units, _ in split]
        splitter = self.decomposer if callable(getattr(self.decomposer, "sub_questions", None)) else None
        parts = sub_questions(splitter, [asked[i] for i in todo], session=session)
        questions = [list(dict.fromkeys([asked[i], *subs])) for i, (subs, _) in zip(todo, parts)]
        items = {}
        for r, (i, qs, (units, _), kept) in enumerate(zip(todo, questions, split, judged)):
            texts = [units[k].text for k in kept]
            budget = question_budget(self.judge, qs, session=session)
            # An instruction answering "how do I ..." is read with what it does ("To descale
            # the machine: Pour ..."): alone, the judge finds nothing of the question in it.
            count = session.token_counter(self.judge.for_task("relevance"))
            fitted = [fit_lead(lead, budget, count) for lead in instruction_lead(asked[i], texts)]
            statements = [ContextSentence(0, _whole(t), self._pieces(t, room, session), lead)
                          for t, (lead, room) in zip(texts, fitted)]
            items.update(((r, q), (question, statements)) for q, question in enumerate(qs))
        scored = judge_by_key(lambda batch: judge_sentences(self.judge, batch, session=session, batch_size=self.batch_size,
                                                            show_progress_bar=show_progress_bar), items)
        for r, (i, qs, (units, record), kept) in enumerate(zip(todo, questions, split, judged)):
            # Per statement: the best over the row's questions.
            best = {k: max(scored[(r, q)][j][0] for q in range(len(qs))) for j, k in enumerate(kept)}
            statements = []
            for k, c in enumerate(units):
                declined = k not in best
                p = 0.0 if declined else best[k]
                statements.append(Statement(text=c.text, start=c.start, end=c.end, probability=round(p, 6),
                                            relevant=not declined and p >= threshold, non_answer=declined))
            results[i] = self._result(samples[i], statements, threshold, record)
        return results

    def _pieces(self, text: str, budget: int, session: JudgeSession) -> tuple[Span, ...]:
        """The statement whole, or word-aligned pieces of one longer than the judge reads
        beside the question (its relevance is its best piece's, nothing is truncated); counted by
        the judge that answers relevance, whose input the budget is."""
        count = session.token_counter(self.judge.for_task("relevance"))
        if count(text) <= budget:
            return (_whole(text),)
        return tuple(Span(text=w.text, start=w.start, end=w.end)
                     for w in make_windows(text, [_whole(text)], count, budget))

    @staticmethod
    def _result(sample: Sample, statements: list[Statement], threshold: float,
                record: DecompositionRecord | None) -> AnswerRelevancyResult:
        base = {"threshold": threshold, "statements": statements, "decomposition": record}
        if not statements:
            why = "response is empty" if not (sample.response or "").strip() else "response has no statement"
            return AnswerRelevancyResult(score=0.0, reason=f"{why}: it does not address the question",
                                         non_answer=True, **base)
        if all(s.non_answer for s in statements):
            return AnswerRelevancyResult(score=0.0, reason="response is a non-answer (it declines to answer)",
                                         non_answer=True, **base)
        score = sum(s.relevant for s in statements) / len(statements)
        note = non_english_note(user_input=sample.user_input, response=sample.response)
        return AnswerRelevancyResult(score=score, reason=note, **base)
