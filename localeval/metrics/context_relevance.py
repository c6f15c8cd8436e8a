"""Context relevance: how much of what was retrieved is relevant to the question?

RAGAS ``context_relevancy`` (seed 001) with the judge's relevance head in place of the LLM.
Sentences are cut from the original contexts by `split_sentences` and judged one by one, so
they are never rewritten (the LLM of the seed may alter what it "extracts").

``level="sentence"`` (default)::

    score = relevant sentences / sentences of all non-empty contexts

A sentence is relevant when P(relevant | sentence, question) >= the relevance threshold. A
sentence too long for the judge is cut into word-aligned pieces and counts as relevant when
its best piece is (nothing is truncated).

With ``screen=True`` (default) a sentence that shares none of the question's content words is
decided irrelevant without a judge call (`localeval.evidence.candidates.relevance_screen`; its
constants are chosen on RAGBench validation, benchmarks/results/relevance_screen.md): on a long
passage most sentences are, so only the uncertain ones are judged. A screened sentence is still
listed, with ``probability=0.0``, ``relevant=False`` and ``screened`` saying why; it counts in
the denominator like any other. ``screen=False`` judges every sentence.

``level="chunk"`` (the seed's own advice: a large chunk holding a one-sentence answer is not
punished for its other sentences)::

    score = relevant chunks / non-empty chunks

A chunk is relevant when its best sentence-aligned window is (`context_relevance`). The judge
reads a window as a whole, as it was trained on coherent paragraphs: a chunk on the question's
topic with the answer somewhere in it passes, but one answering sentence lost among unrelated
ones (concatenated snippets) dilutes the window and may fail; sentence level still finds it.

Edge cases (deterministic, documented, tested):

* ``user_input`` or ``retrieved_contexts`` missing (None) -> ``score=None``, reason says which.
* empty or whitespace-only question -> ``score=None``: relevance to nothing is undefined.
* no contexts (``[]``) or only empty/whitespace ones -> ``score=None`` with reason: there is
  nothing to measure. RAGAS returns 0 here; localeval does not, because a ratio over zero
  sentences is undefined and a 0 would pull a dataset average down for rows that retrieved
  nothing (context recall already scores those rows 0).
* empty strings among other contexts hold no sentence: they are ignored at both levels;
  ``context_index`` in the details still refers to the original list.
* a judge without a relevance head -> ``ValueError`` before any row is scored (a setup
  error, not a row error).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal, NamedTuple

from pydantic import BaseModel

from localeval.judge.batching import judge_by_key
from localeval.evidence.candidates import relevance_screen
from localeval.judge.nli import NLIJudge
from localeval.evidence.relevance import context_relevance, sentence_relevance
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.judged import JudgedMetric
from localeval.schema import Sample
from localeval.text import Span, make_windows, split_sentences
from localeval.text.leads import fit_lead, list_leads
from localeval.judge.session import JudgeSession

__all__ = [
    "ChunkRelevance",
    "ContextRelevanceVerdict",
    "ContextRelevance",
    "ContextRelevanceResult",
    "ContextSentence",
    "SentenceRelevance",
    "context_sentences",
    "judge_sentences",
    "question_budget",
    "require_relevance_head",
]

Level = Literal["sentence", "chunk"]


# --------------------------------------------------------------------------- shared helpers
# (also used by QuestionRecall: both judge every sentence of every context against a question)


class ContextSentence(NamedTuple):
    """One sentence of one context, and the pieces the judge reads (the sentence itself, or
    word-aligned pieces of a sentence longer than the judge's input)."""

    context_index: int
    sentence: Span
    pieces: tuple[Span, ...]
    lead: str = ""
    """What the sentence answers when it is a list item or an instruction (its list's lead-in,
    `localeval.text.leads`): judged as ``lead + " " + piece``; empty for most sentences."""


def require_relevance_head(judge: NLIJudge) -> None:
    if not judge.has_relevance_head:
        raise ValueError(
            f"judge {judge.name!r} has no relevance head, which this metric needs; use "
            "localeval's default judge or another model with a 'relevance' task"
        )


def question_budget(judge: NLIJudge, questions: Sequence[str], *, session: JudgeSession) -> int:
    """Tokens left for a passage beside the longest question ([CLS] [SEP] [SEP] included):
    the session's one token budget (`JudgeSession.premise_budget`)."""
    return session.premise_budget(judge.for_task("relevance"), questions)


RELEVANCE_PIECE_WORDS = 32
"""Words per piece of a sentence too long for the judge. Pieces as long as the judge's input
(~200 words) read a short fact well at one place and not at all at another (relevance
.99/.01/.77/.96 with the fact at words 0/100/150/200 of a 500-word sentence), as a fact
among many unrelated sentences reads worse; 32-word pieces sharing 16 words read it at
.94-.98 wherever it sits (`benchmarks/faults.py`, over-long sentence case), at 31 pieces for
500 words."""


def context_sentences(judge: NLIJudge, contexts: Sequence[str], budget: int, *,
                      session: JudgeSession) -> list[ContextSentence]:
    """Every sentence of every non-empty context, in order, with the pieces to judge (sized
    for the judge that answers relevance: a separate relevance model has its own input)."""
    judge = judge.for_task("relevance")
    count = session.token_counter(judge)
    found = []
    for ci, c in enumerate(contexts):
        if c and c.strip():
            sentences = split_sentences(c)
            # A list item is read with its list's lead-in ("To descale the machine:").
            leads = list_leads(c, [s.start for s in sentences]) if "\n" in c else [""] * len(sentences)
            found.extend((ci, s, lead) for s, lead in zip(sentences, leads))
    out = []
    for ci, sentence, lead in found:
        pieces: tuple[Span, ...] = (sentence,)
        lead, room = fit_lead(lead, budget, count)  # the lead-in is read before each piece
        if not session.fits(judge, sentence.text, room):  # only over-long sentences pay for windowing
            windows = make_windows(contexts[ci], [sentence], count, room, piece_words=RELEVANCE_PIECE_WORDS)
            pieces = tuple(Span(text=w.text, start=w.start, end=w.end) for w in windows)
        out.append(ContextSentence(ci, sentence, pieces, lead))
    return out


def judge_sentences(
    judge: NLIJudge,
    items: Sequence[tuple[str, Sequence[ContextSentence]]],
    *,
    session: JudgeSession | None = None,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
) -> list[list[tuple[float, Span]]]:
    """Per (question, sentences) item, per sentence: (P(relevant), best piece).

    One judge call for all items, so batches stay full across rows and sub-questions.
    """
    groups = {(i, k): (question, [f"{cs.lead} {p.text}" if cs.lead else p.text for p in cs.pieces])
              for i, (question, sentences) in enumerate(items) for k, cs in enumerate(sentences)}
    probs = judge_by_key(lambda batch: sentence_relevance(judge, batch, session=session, batch_size=batch_size,
                                                          show_progress_bar=show_progress_bar), groups)
    # max() keeps the first of equal pieces: the same input gives the same evidence
    return [[max(zip(probs[(i, k)], cs.pieces), key=lambda x: x[0]) for k, cs in enumerate(sentences)]
            for i, (_, sentences) in enumerate(items)]


# --------------------------------------------------------------------------- results


class SentenceRelevance(BaseModel):
    """One context sentence, cut from the original text: ``contexts[i][start:end] == text``."""

    context_index: int
    text: str
    start: int
    end: int
    probability: float
    relevant: bool
    screened: str | None = None
    """Why the sentence was decided irrelevant without the judge (``probability`` is then 0.0),
    ``None`` when the judge read it."""


class ContextRelevanceVerdict(BaseModel):
    context_index: int
    relevant: bool
    probability: float
    window: Span | None = None
    """The best window of the context (the whole context when it fits the judge)."""


ChunkRelevance = ContextRelevanceVerdict
"""Deprecated: the old name of `ContextRelevanceVerdict` (README, "Changelog")."""


class ContextRelevanceResult(MetricResult):
    metric: str = "context_relevance"
    level: Level | None = None
    threshold: float | None = None
    sentences: list[SentenceRelevance] = []
    """Sentence level: every sentence of every non-empty context."""
    chunks: list[ContextRelevanceVerdict] = []
    """Chunk level: every non-empty chunk."""

    @property
    def relevant_sentences(self) -> list[SentenceRelevance]:
        return [s for s in self.sentences if s.relevant]


# --------------------------------------------------------------------------- metric


@register_metric("context_relevance.v1")
class ContextRelevance(JudgedMetric):
    """Share of the retrieved text that is relevant to the question (see module docstring).

    Args:
        model, threshold, device, batch_size: the judge options of every judged metric;
            ``threshold`` is a P(relevant) and defaults to the judge's stored relevance
            threshold.
        level: ``"sentence"`` (relevant sentences / sentences) or ``"chunk"`` (relevant
            chunks / chunks).
        screen: at sentence level, decide sentences sharing no content word with the question
            without the judge (see the module docstring); ``False`` judges every sentence.
    """

    name = "context_relevance"
    required_columns = ("user_input", "retrieved_contexts")
    result_type = ContextRelevanceResult
    threshold_kind: ClassVar[str] = "relevance"


    def __init__(self, model=None, *, level: Level = "sentence", **options) -> None:
        if level not in ("sentence", "chunk"):
            raise ValueError(f"level must be 'sentence' or 'chunk', got {level!r}")
        super().__init__(model, **options)
        self.level = level

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        reasons = [self._why_unscored(s) for s in samples]
        todo = [i for i, r in enumerate(reasons) if r is None]
        results: list[MetricResult] = [self.unscored(r) if r else None for r in reasons]  # type: ignore[misc]
        if not todo:
            return results
        require_relevance_head(self.judge)
        threshold = self.resolved_threshold()
        rows = [(samples[i].user_input.strip(), samples[i].retrieved_contexts) for i in todo]  # type: ignore[union-attr]
        score_rows = self._sentence_level if self.level == "sentence" else self._chunk_level
        for i, result in zip(todo, score_rows(rows, threshold, show_progress_bar, session)):
            results[i] = result
        return results

    @staticmethod
    def _why_unscored(sample: Sample) -> str | None:
        if not (sample.user_input or "").strip():
            return "user_input is empty: relevance to no question is undefined"
        if not any(c and c.strip() for c in sample.retrieved_contexts or []):
            return (
                "no non-empty retrieved context: nothing to measure "
                "(RAGAS context_relevancy would return 0)"
            )
        return None

    def _sentence_level(self, rows, threshold: float, show_progress_bar: bool,
                        session: JudgeSession) -> list[ContextRelevanceResult]:
        items = [(q, context_sentences(self.judge, contexts, question_budget(self.judge, [q], session=session),
                                       session=session)) for q, contexts in rows]
        # Per row, per sentence: why it is screened out, or None (judged).
        screens = [relevance_screen(q, [f"{cs.lead} {cs.sentence.text}" for cs in sentences]) if self.screen
                   else [None] * len(sentences)
                   for q, sentences in items]
        to_judge = {(r, k): (q, [cs]) for r, ((q, sentences), screen) in enumerate(zip(items, screens))
                    for k, (cs, why) in enumerate(zip(sentences, screen)) if why is None}
        scored = judge_by_key(lambda batch: judge_sentences(self.judge, batch, session=session, batch_size=self.batch_size,
                                                            show_progress_bar=show_progress_bar), to_judge)
        results = []
        for r, ((_, sentences), screen) in enumerate(zip(items, screens)):
            details = []
            for k, (cs, why) in enumerate(zip(sentences, screen)):
                p = 0.0 if why is not None else float(scored[(r, k)][0][0])
                # Every field is of its declared type by construction (p a Python float), so pydantic's validation
                # is skipped: a row holds ~50 sentences, and building them was a tenth of a
                # cached re-run.
                details.append(SentenceRelevance.model_construct(
                    context_index=cs.context_index,
                    text=cs.sentence.text,
                    start=cs.sentence.start,
                    end=cs.sentence.end,
                    probability=round(p, 6),
                    relevant=why is None and p >= threshold,
                    screened=why,
                ))
            score = sum(d.relevant for d in details) / len(details)
            results.append(ContextRelevanceResult(score=score, level="sentence", threshold=threshold, sentences=details))
        return results

    def _chunk_level(self, rows, threshold: float, show_progress_bar: bool,
                     session: JudgeSession) -> list[ContextRelevanceResult]:
        scored = context_relevance(self.judge, rows, session=session, batch_size=self.batch_size,
                                 show_progress_bar=show_progress_bar)
        results = []
        for (_, contexts), per_chunk in zip(rows, scored):
            details = [
                ContextRelevanceVerdict(
                    context_index=ci,
                    relevant=p >= threshold,
                    probability=round(p, 6),
                    window=Span(text=w.text, start=w.start, end=w.end) if w is not None else None,
                )
                for ci, (context, (p, w)) in enumerate(zip(contexts, per_chunk))
                if context and context.strip()
            ]
            score = sum(d.relevant for d in details) / len(details)
            results.append(ContextRelevanceResult(score=score, level="chunk", threshold=threshold, chunks=details))
        return results
