"""Chunk recall: is the relevant information of each retrieved chunk reflected in the answer?

The rag_evals ``ContextRecall`` (retrieved context -> generated answer), with local judges:

1. each chunk's sentences are judged for relevance to the question (relevance head); a chunk
   ``is_relevant`` when at least one sentence is (P >= the relevance threshold);
2. a relevant sentence is *reflected* in the answer when the answer entails it, or when it
   entails one of the answer's claims (the answer used it, in fewer words);
3. a relevant chunk ``is_included`` when ``inclusion="any"`` of its relevant sentences is
   reflected (default), or ``"all"`` of them;
4. ``missing_info`` lists, for a relevant chunk not included, its relevant sentences the answer
   does not reflect, cut from the chunk's own text (never rewritten).

    score = included relevant chunks / relevant chunks

No relevant chunk -> 1.0, the seed's convention ("nothing relevant was left out"); pass
``no_relevant_score=None`` to get ``None`` with a reason instead. An empty or punctuation-only
answer with relevant chunks -> 0.0 (nothing is reflected). No contexts -> the no-relevant rule.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from localeval.evidence.attribution import Support, attribute
from localeval.judge.batching import judge_by_key
from localeval.metrics.base import CONTEXT_INDEX, MetricResult, register_metric
from localeval.metrics.judged import JudgedMetric, RelevanceThresholdArgument
from localeval.metrics.context_relevance import context_sentences, judge_sentences, question_budget
from localeval.schema import Sample
from localeval.metrics.decomposed import rule_claims
from localeval.text import Span
from localeval.text.hygiene import non_claim_reason
from localeval.judge.session import JudgeSession

__all__ = ["ChunkEvaluation", "ContextEvaluation", "ChunkRecall", "ChunkRecallEvaluation", "ChunkRecallResult", "missing_information"]


class ContextEvaluation(BaseModel):
    """The verdict on one retrieved context, in rag_evals' shape (seed 000)."""

    context_index: int = Field(validation_alias=CONTEXT_INDEX)
    """0-based position in ``retrieved_contexts`` (read as ``id_chunk`` from older outputs)."""
    is_relevant: bool
    is_included: bool
    missing_info: str | None = None


ChunkEvaluation = ContextEvaluation
"""Deprecated: the old name of `ContextEvaluation` (README, "Changelog")."""


def missing_information(chunks: list[ContextEvaluation]) -> list[dict]:
    """``{context_index, missing_info}`` for every relevant chunk the answer leaves out."""
    return [
        {"context_index": c.context_index, "missing_info": c.missing_info}
        for c in chunks
        if c.is_relevant and not c.is_included and c.missing_info
    ]


class ChunkRecallEvaluation(ContextEvaluation):
    """rag_evals' verdict plus the evidence behind it."""

    relevance: float
    """Highest sentence relevance probability in the chunk."""
    relevant_sentences: list[Span] = []
    missing_sentences: list[Span] = []


class ChunkRecallResult(MetricResult):
    metric: str = "chunk_recall"
    evaluated_chunks: list[ChunkRecallEvaluation] = []

    @property
    def missing_information(self) -> list[dict]:
        """``{context_index, missing_info}`` for every relevant chunk the answer leaves out."""
        return missing_information(self.evaluated_chunks)


@register_metric("chunk_recall.v1")
class ChunkRecall(RelevanceThresholdArgument, JudgedMetric):
    """Share of relevant chunks whose information the answer reflects.

    Args (besides the judge options of ContextRecall):
        inclusion: ``"any"`` relevant sentence reflected makes a chunk included, or ``"all"``.
        no_relevant_score: score when no chunk is relevant (1.0, or ``None`` for unscored).
        relevance_threshold / entailment threshold: default to the judge's stored thresholds;
            ``threshold`` sets the entailment one.
    """

    name = "chunk_recall"
    threshold_kinds = ("entailment", "relevance")
    required_columns = ("user_input", "response", "retrieved_contexts")
    result_type = ChunkRecallResult

    def __init__(
        self,
        model=None,
        *,
        inclusion: Literal["any", "all"] = "any",
        no_relevant_score: float | None = 1.0,
        relevance_threshold: float | None = None,
        **options,
    ) -> None:
        if inclusion not in ("any", "all"):
            raise ValueError(f"inclusion must be 'any' or 'all', got {inclusion!r}")
        super().__init__(model, **options)
        self.inclusion = inclusion
        self.no_relevant_score = no_relevant_score
        self.relevance_threshold = relevance_threshold

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        rel_t = self.resolved_threshold("relevance")
        ent_t = self.resolved_threshold("entailment")
        sentences = self._relevance(samples, show_progress_bar, session)
        relevant = {(r, c): tuple(s for s in context if s.relevance >= rel_t)
                    for r, row in enumerate(sentences) for c, context in enumerate(row)}
        reflected = self._reflection(samples, relevant, ent_t, session)
        return [self._result([_evaluation(c, context, relevant[(r, c)], reflected[(r, c)], self.inclusion)
                              for c, context in enumerate(row)])
                for r, row in enumerate(sentences)]

    def _relevance(self, samples: list[Sample], show_progress_bar: bool,
                   session: JudgeSession) -> list[list[list[_JudgedSentence]]]:
        """Step 1: per row, per context, every sentence with its relevance to the question. A
        sentence longer than the judge's input is judged in word-aligned pieces and takes its
        best piece's probability, as context relevance does: truncating it would make the
        verdict depend on where the relevant words sit in the sentence. Pieces fit beside the
        question and beside the answer (step 2 reads them with it)."""
        found = [
            context_sentences(
                self.judge, s.retrieved_contexts or [],
                question_budget(self.judge, [s.user_input or "", s.response or ""], session=session), session=session,
            )
            for s in samples
        ]
        judged = judge_sentences(
            self.judge, [(s.user_input or "", cs) for s, cs in zip(samples, found)],
            session=session, batch_size=self.batch_size, show_progress_bar=show_progress_bar,
        )
        out = []
        for s, row, scored in zip(samples, found, judged):
            contexts: list[list[_JudgedSentence]] = [[] for _ in s.retrieved_contexts or []]
            for cs, (p, piece) in zip(row, scored):
                contexts[cs.context_index].append(_JudgedSentence(cs.sentence, p, piece.text))
            out.append(contexts)
        return out

    def _reflection(self, samples: list[Sample], relevant: dict[tuple[int, int], tuple[_JudgedSentence, ...]],
                    ent_t: float, session: JudgeSession) -> dict[tuple[int, int], list[bool]]:
        """Step 2: per ``(row, context)``, is each of its relevant sentences reflected in the
        answer, in either direction? An over-long sentence is read through its most relevant
        piece (the one that fits the judge), never cut at the token limit."""
        answer_claims = [[c.text for c in rule_claims(sample.response or "", session=session)
                          if non_claim_reason(c.text) is None] for sample in samples]
        forward, backward = {}, {}
        for (r, c), kept in relevant.items():
            for k, sentence in enumerate(kept):
                forward[(r, c, k)] = ([sentence.piece], [samples[r].response or ""])
                backward[(r, c, k)] = (answer_claims[r], [sentence.piece])

        def judged(groups: list[tuple[list[str], list[str]]]) -> list[list[Support]]:
            return attribute(self.judge, groups, session=session, locate_sentence=False, options=self.options,
                             accept_at=self.accept_at(ent_t))

        ahead, back = judge_by_key(judged, forward), judge_by_key(judged, backward)
        return {(r, c): [max([ahead[(r, c, k)][0].probability, *(x.probability for x in back[(r, c, k)])]) >= ent_t
                         for k in range(len(kept))]
                for (r, c), kept in relevant.items()}

    def _result(self, evaluations: list[ChunkRecallEvaluation]) -> ChunkRecallResult:
        """Step 3: the share of relevant contexts the answer reflects."""
        relevant_chunks = [e for e in evaluations if e.is_relevant]
        if not relevant_chunks:
            return ChunkRecallResult(score=self.no_relevant_score, reason="no retrieved chunk is relevant to the question",
                                     evaluated_chunks=evaluations)
        score = sum(e.is_included for e in relevant_chunks) / len(relevant_chunks)
        return ChunkRecallResult(score=score, evaluated_chunks=evaluations)


class _JudgedSentence(NamedTuple):
    """A sentence of a context, its relevance to the question, and the text step 2 reads."""

    span: Span
    relevance: float
    piece: str


def _evaluation(index: int, sentences: list[_JudgedSentence], relevant: tuple[_JudgedSentence, ...],
                reflected: list[bool], inclusion: str) -> ChunkRecallEvaluation:
    """One context's verdict: relevant when a sentence is, included when ``inclusion`` ("any"
    or "all") of its relevant sentences is reflected; what it leaves out, cut from its text."""
    is_relevant = bool(relevant)
    included = is_relevant and (any(reflected) if inclusion == "any" else all(reflected))
    missing = [s.span for s, ok in zip(relevant, reflected) if not ok] if is_relevant and not included else []
    return ChunkRecallEvaluation(
        context_index=index,
        is_relevant=is_relevant,
        is_included=included,
        missing_info=" ".join(m.text for m in missing) if missing else None,
        relevance=round(max((s.relevance for s in sentences), default=0.0), 6),
        relevant_sentences=[s.span for s in relevant],
        missing_sentences=missing,
    )
