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

from typing import Literal

from pydantic import BaseModel, Field

from localeval.evidence.attribution import attribute
from localeval.metrics.base import CHUNK_INDEX, MetricResult, register_metric
from localeval.metrics.claim_support import JudgedMetric, RelevanceThresholdArgument
from localeval.metrics.context_relevance import context_sentences, judge_sentences, question_budget
from localeval.schema import Sample
from localeval.metrics.decomposed import rule_claims
from localeval.text import Span
from localeval.text.hygiene import non_claim_reason
from localeval.judge.session import JudgeSession

__all__ = ["ChunkEvaluation", "ChunkRecall", "ChunkRecallEvaluation", "ChunkRecallResult", "missing_information"]


class ChunkEvaluation(BaseModel):
    """The per-chunk verdict in rag_evals' shape (seed 000)."""

    context_index: int = Field(validation_alias=CHUNK_INDEX)
    """0-based position in ``retrieved_contexts`` (read as ``id_chunk`` from older outputs)."""
    is_relevant: bool
    is_included: bool
    missing_info: str | None = None


def missing_information(chunks: list[ChunkEvaluation]) -> list[dict]:
    """``{context_index, missing_info}`` for every relevant chunk the answer leaves out."""
    return [
        {"context_index": c.context_index, "missing_info": c.missing_info}
        for c in chunks
        if c.is_relevant and not c.is_included and c.missing_info
    ]


class ChunkRecallEvaluation(ChunkEvaluation):
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
        # 1. relevance of every sentence of every chunk. A sentence longer than the judge's
        # input is judged in word-aligned pieces and takes its best piece's probability, as
        # context relevance does: truncating it would make the verdict depend on where the
        # relevant words sit in the sentence.
        # Pieces fit beside the question and beside the answer (step 2 reads them with it).
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
        chunk_sentences: list[list[list[Span]]] = []
        relevance: list[list[float]] = []
        best_piece: dict[tuple[int, int, int], str] = {}  # what the reflection step reads
        for r, (s, sentences, scored) in enumerate(zip(samples, found, judged)):
            chunks: list[list[Span]] = [[] for _ in s.retrieved_contexts or []]
            for cs, (_, piece) in zip(sentences, scored):
                best_piece[(r, cs.context_index, len(chunks[cs.context_index]))] = piece.text
                chunks[cs.context_index].append(cs.sentence)
            chunk_sentences.append(chunks)
            relevance.append([p for p, _ in scored])

        # 2. reflection of each relevant sentence, in both directions
        relevant: list[list[list[tuple[Span, float]]]] = []
        forward_groups, backward_groups, keys = [], [], []
        for r, (sample, chunks, probs) in enumerate(zip(samples, chunk_sentences, relevance)):
            flat = iter(probs)
            per_chunk = [[(s, next(flat)) for s in sents] for sents in chunks]
            kept = [[(i, sp) for i, sp in enumerate(chunk) if sp[1] >= rel_t] for chunk in per_chunk]
            relevant.append([[sp for _, sp in chunk] for chunk in kept])
            answer_claims = [c.text for c in rule_claims(sample.response or "", session=session)
                             if non_claim_reason(c.text) is None]
            for c, chunk in enumerate(kept):
                for s, (i, _) in enumerate(chunk):
                    # An over-long sentence is read through its most relevant piece (the one
                    # that fits the judge), never cut at the token limit.
                    text = best_piece[(r, c, i)]
                    keys.append((r, c, s))
                    forward_groups.append(([text], [sample.response or ""]))
                    backward_groups.append((answer_claims, [text]))
        reflected: dict[tuple[int, int, int], bool] = {}
        if keys:
            forward = attribute(self.judge, forward_groups, session=session, locate_sentence=False, options=self.options,
                                accept_at=self.accept_at(ent_t))
            backward = attribute(self.judge, backward_groups, session=session, locate_sentence=False, options=self.options,
                                 accept_at=self.accept_at(ent_t))
            for key, f, b in zip(keys, forward, backward):
                best = max([f[0].probability, *(x.probability for x in b)])
                reflected[key] = best >= ent_t

        results: list[MetricResult] = []
        for r, (chunks, probs_per_row) in enumerate(zip(relevant, relevance)):
            evaluations = []
            flat = iter(probs_per_row)
            for c, chunk in enumerate(chunks):
                n_sentences = len(chunk_sentences[r][c])
                best_relevance = max((next(flat) for _ in range(n_sentences)), default=0.0)
                flags = [reflected[(r, c, s)] for s in range(len(chunk))]
                is_relevant = bool(chunk)
                included = is_relevant and (any(flags) if self.inclusion == "any" else all(flags))
                missing = [sentence for (sentence, _), ok in zip(chunk, flags) if not ok]
                evaluations.append(
                    ChunkRecallEvaluation(
                        context_index=c,
                        is_relevant=is_relevant,
                        is_included=included,
                        missing_info=" ".join(m.text for m in missing) if is_relevant and not included else None,
                        relevance=round(best_relevance, 6),
                        relevant_sentences=[sentence for sentence, _ in chunk],
                        missing_sentences=missing if is_relevant and not included else [],
                    )
                )
            relevant_chunks = [e for e in evaluations if e.is_relevant]
            if not relevant_chunks:
                reason = "no retrieved chunk is relevant to the question"
                if self.no_relevant_score is None:
                    results.append(ChunkRecallResult(score=None, reason=reason, evaluated_chunks=evaluations))
                else:
                    results.append(ChunkRecallResult(score=self.no_relevant_score, reason=reason, evaluated_chunks=evaluations))
                continue
            score = sum(e.is_included for e in relevant_chunks) / len(relevant_chunks)
            results.append(ChunkRecallResult(score=score, evaluated_chunks=evaluations))
        return results
