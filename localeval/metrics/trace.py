"""Sentence-level utilization and completeness, as RAGBench's TRACe defines them.

RAGBench (Friel et al., 2024) labels every context sentence as *relevant* (to the question)
and/or *utilized* (by the response), and scores a row with

    utilization  = utilized context sentences / context sentences
    completeness = |relevant and utilized| / |relevant|

localeval makes both judgements with its local judge, on its own sentences of the contexts
(`localeval.text.split_sentences`, the sentences every judged metric reads):

* utilized: the response is split into claims (the rules faithfulness uses) and each claim
  is attributed to the contexts (`localeval.evidence.attribution.attribute`, the very
  judgements faithfulness makes, so a run that scores both asks the judge nothing twice). A
  sentence is utilized when it is the evidence of a claim supported with P(entailment) >= the
  threshold (``used="evidence"``, the default), or, with ``used="entailing"``, when it lies
  in any short unit that entails some claim at the threshold. Evidence was the better of the
  two on RAGBench dev (benchmarks/results/trace.md): a short unit holds two sentences, and
  counting both doubles the utilized share.
* relevant: `ContextRelevance(level="sentence")`'s verdicts (the same judged sentences).

Thresholds: utilization reads ``trace_utilization`` when given or stored, else faithfulness'
(the same decision), else the generic ``entailment``; completeness decides "utilized" exactly
as utilization does and "relevant" exactly as context relevance does (``context_relevance``,
else ``relevance``). The judge is asked exactly what faithfulness asks (early acceptance at
faithfulness' threshold); utilization's threshold is then applied to the probabilities, which
are exact below faithfulness' threshold. The shipped judge stores a ``trace_utilization``
threshold far below faithfulness' (chosen by 5-fold CV on RAGBench dev,
benchmarks/results/trace.md): RAGBench counts a sentence as utilized when the response
draws on it, even where the judge would not call the claim fully supported.

Agreement on RAGBench dev (benchmarks/results/trace.md, out of fold): utilization's RMSE is
below the always-the-mean and word-overlap floors' but within two standard errors of both (not
yet a result); completeness is above both (worse) beyond the noise, and none of the
alternative definitions tried -- a pronoun rule in the relevance screen, a tighter or soft
relevant set, crediting neighbours of used sentences, sentences the response entails --
reaches the floors out of fold (benchmarks/results/trace_variants.md), so the metric keeps
RAGBench's definition.

Edge cases (deterministic, documented, tested):

* ``response`` / ``retrieved_contexts`` (and for completeness ``user_input``) missing ->
  ``None`` with a reason.
* no non-empty context -> ``None``: a share of zero sentences is undefined.
* empty response, one with no claim ("Yes.", "I hope this helps!"), or a non-answer ("I don't
  know", "the context does not say"; `localeval.text.answers.is_non_answer`, never
  attributed) -> utilization ``0.0`` with a reason (the response used no sentence; the ratio
  is over context sentences, so it is defined), completeness ``0.0`` when some sentence is
  relevant.
* completeness with no relevant sentence -> ``None`` with a reason: nothing relevant to be
  complete about (RAGBench leaves the label empty too); a 1.0 or 0.0 would bias averages.
* completeness with an empty question -> ``None`` (relevance to no question is undefined).
* text that does not look like English -> scored, with a reason saying the score is less
  reliable (the judge and splitters are English models); the run also marks the row with a
  language warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from pydantic import BaseModel

from localeval.evidence.attribution import Support, attribute
from localeval.judge.batching import judge_by_key
from localeval.judge.session import JudgeSession
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.claim_support import SkippedClaim
from localeval.metrics.judged import ClaimAttribution, JudgedMetric, RelevanceThresholdArgument
from localeval.metrics.context_relevance import ContextRelevance, ContextRelevanceResult
from localeval.metrics.decomposed import claim_units
from localeval.metrics.thresholds import ThresholdChoice, choose_threshold
from localeval.schema import Sample
from localeval.text import Span, split_sentences
from localeval.text.answers import is_non_answer, non_english_note

__all__ = ["TraceCompleteness", "TraceCompletenessResult", "TraceSentence", "TraceUtilization",
           "TraceUtilizationResult"]

Used = Literal["evidence", "entailing"]


class TraceSentence(BaseModel):
    """One context sentence, cut from the original text: ``contexts[i][start:end] == text``."""

    context_index: int
    text: str
    start: int
    end: int
    utilized: bool
    probability: float
    """Highest P(entailment) with which the sentence supports a response claim (0.0: none)."""
    claims: list[int] = []
    """Positions in ``claims`` of the response claims it supports at the threshold."""
    relevant: bool | None = None
    """Completeness only: the context-relevance verdict."""
    relevance: float | None = None


class TraceUtilizationResult(MetricResult):
    metric: str = "trace_utilization"
    threshold: float | None = None
    used: Used | None = None
    sentences: list[TraceSentence] = []
    """Every sentence of every non-empty context."""
    claims: list[ClaimAttribution] = []
    """The response's claims, each with its verdict and evidence."""
    skipped: list[SkippedClaim] = []

    @property
    def utilized_sentences(self) -> list[TraceSentence]:
        return [s for s in self.sentences if s.utilized]


class TraceCompletenessResult(TraceUtilizationResult):
    metric: str = "trace_completeness"
    relevance_threshold: float | None = None

    @property
    def missed_sentences(self) -> list[TraceSentence]:
        """Relevant sentences the response did not use: what it left out."""
        return [s for s in self.sentences if s.relevant and not s.utilized]


def _sentence_of(spans: Sequence[Span], start: int) -> int:
    """Index of the sentence holding character ``start`` (evidence may be a piece of one)."""
    for i, s in enumerate(spans):
        if s.start <= start < s.end:
            return i
    return min(range(len(spans)), key=lambda i: abs(spans[i].start - start))


def _utilized(contexts: Sequence[str], supports: Sequence[Support], threshold: float,
              used: Used) -> list[TraceSentence]:
    """Every sentence of every non-empty context with its highest support of a claim."""
    spans = {ci: split_sentences(c) for ci, c in enumerate(contexts) if c and c.strip()}
    best: dict[tuple[int, int], float] = {}
    claims_of: dict[tuple[int, int], set[int]] = {}

    def mark(key: tuple[int, int], p: float, k: int) -> None:
        best[key] = max(best.get(key, 0.0), p)
        if p >= threshold:
            claims_of.setdefault(key, set()).add(k)

    for k, support in enumerate(supports):
        ev = support.evidence
        if ev is not None and ev.context_index in spans and spans[ev.context_index]:
            mark((ev.context_index, _sentence_of(spans[ev.context_index], ev.start)), support.probability, k)
        if used == "entailing":
            for unit in support.units or []:
                if unit.short:
                    for si in unit.sentence_indices:
                        mark((unit.context_index, si), unit.probability, k)
    return [
        TraceSentence(context_index=ci, text=s.text, start=s.start, end=s.end,
                      utilized=best.get((ci, si), 0.0) >= threshold and (ci, si) in claims_of,
                      probability=round(best.get((ci, si), 0.0), 6), claims=sorted(claims_of.get((ci, si), ())))
        for ci, sentences in spans.items() for si, s in enumerate(sentences)
    ]


@register_metric("trace_utilization.v1")
class TraceUtilization(JudgedMetric):
    """Share of the context sentences the response used (RAGBench ``utilization_score``).

    Args (besides the judge options of every judged metric):
        used: ``"evidence"`` (default): a sentence is used when it is the evidence of a
            supported response claim; ``"entailing"``: when any short unit holding it entails
            a claim (judges every chosen unit of every claim, as ``exhaustive=True`` does).
        split_coordination, decomposer: how the response is split into claims, as for
            faithfulness.
    """

    name = "trace_utilization"
    required_columns = ("response", "retrieved_contexts")
    result_type = TraceUtilizationResult
    borrowed_key: ClassVar[str] = "faithfulness"
    """The key read after the metric's own: faithfulness makes the same decision."""


    def __init__(self, model=None, *, used: Used = "evidence", split_coordination: bool = True,
                 decomposer=None, **options) -> None:
        if used not in ("evidence", "entailing"):
            raise ValueError(f"used must be 'evidence' or 'entailing', got {used!r}")
        super().__init__(model, **options)
        self.used = used
        self.split_coordination = split_coordination
        self.decomposer = decomposer

    def _judge_threshold(self, kind: str, key: str | None = None) -> ThresholdChoice:
        own = key or self.threshold_key(kind)
        if kind != "entailment":
            return super()._judge_threshold(kind, key)
        # own key, then faithfulness', then the generic one; a user-given key beats a stored one
        return self._chain((own, self.borrowed_key, kind))

    def _chain(self, names: Sequence[str]) -> ThresholdChoice:
        for table, source in ((self.given_thresholds, "given"), (self.judge.thresholds, "stored")):
            for name in names:
                if name in table:
                    return ThresholdChoice(float(table[name]), name, source)
        return choose_threshold({}, {}, names[0], names[-1])

    def judging_threshold(self) -> float:
        """The threshold faithfulness decides at: the judge's early acceptance stops there, so
        the claims are judged exactly as faithfulness judges them (its pairs, its evidence)
        whatever lower threshold utilization then applies."""
        return self._chain((self.borrowed_key, "entailment")).value

    def utilization(self, samples: list[Sample], threshold: float, session: JudgeSession,
                    show_progress_bar: bool = False) -> list[TraceUtilizationResult]:
        """One result per sample (every required column present)."""
        texts = [s.response or "" for s in samples]
        decomposed = claim_units(self.decomposer, texts, split_coordination=self.split_coordination, session=session)
        for units, _ in decomposed:
            for u in units:
                # "The context does not say X" shares X's words with the sentence that would say
                # it: a non-answer uses no sentence, so it is never attributed.
                if u.skip_reason is None and is_non_answer(u.text):
                    u.skip_reason = "non-answer: it declines to answer"
        claims = [[u for u in units if u.skip_reason is None] for units, _ in decomposed]
        skipped = [[SkippedClaim(text=u.text, start=u.start, end=u.end, reason=u.skip_reason)
                    for u in units if u.skip_reason] for units, _ in decomposed]
        entailing = self.used == "entailing"
        by_row = judge_by_key(lambda batch: attribute(
            self.judge, batch, session=session, options=self.options, show_progress_bar=show_progress_bar,
            # Early acceptance at faithfulness' threshold: a claim accepted there is above any
            # lower utilization threshold too, and one below it was judged against every unit,
            # so each verdict at ``threshold`` is exact and no pair beyond faithfulness' is asked.
            accept_at=None if entailing else self.accept_at(max(threshold, self.judging_threshold())),
            units=entailing,
        ), {i: ([c.text for c in row], list(samples[i].retrieved_contexts or [])) for i, row in enumerate(claims) if row})
        results = []
        for i, sample in enumerate(samples):
            contexts = sample.retrieved_contexts or []
            if not any(c and c.strip() for c in contexts):
                results.append(self.result_type(score=None, reason="no non-empty retrieved context: no sentence to use",
                                                threshold=threshold, used=self.used, skipped=skipped[i]))
                continue
            row = by_row.get(i, [])
            sentences = _utilized(contexts, row, threshold, self.used)
            attributions = [
                ClaimAttribution(text=c.text, start=c.start, end=c.end, probability=round(s.probability, 6),
                                 attributed=s.evidence is not None and s.probability >= threshold, evidence=s.evidence,
                                 contrast=s.contrast)
                for c, s in zip(claims[i], row)
            ]
            reason = non_english_note(response=sample.response)
            if not claims[i]:
                why = ("response is empty" if not texts[i].strip() else
                       "response has no claims, only " + "; ".join(f"{s.text.strip()!r} ({s.reason})" for s in skipped[i][:3])
                       if skipped[i] else "response has no claims (only punctuation or symbols)")
                reason = f"{why}: it uses no context sentence"
            results.append(self.result_type(
                score=sum(s.utilized for s in sentences) / len(sentences), reason=reason, threshold=threshold,
                used=self.used, sentences=sentences, claims=attributions, skipped=skipped[i]))
        return results

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        return list(self.utilization(samples, self.resolved_threshold(), session, show_progress_bar))


@register_metric("trace_completeness.v1")
class TraceCompleteness(RelevanceThresholdArgument, TraceUtilization):
    """Share of the relevant context sentences the response used (RAGBench ``completeness_score``).

    Args: those of `TraceUtilization`, and ``relevance_threshold`` (P(relevant) at which a
    sentence is relevant; default: context relevance's) and ``screen`` (context relevance's
    lexical screen). ``threshold`` sets the entailment threshold only.
    """

    name = "trace_completeness"
    required_columns = ("user_input", "response", "retrieved_contexts")
    result_type = TraceCompletenessResult
    threshold_kinds = ("entailment", "relevance")


    def __init__(self, model=None, *, relevance_threshold: float | None = None, decomposer=None, **options) -> None:
        super().__init__(model, decomposer=decomposer, **options)
        self.relevance_threshold = relevance_threshold

    @classmethod
    def threshold_key(cls, kind: str | None = None) -> str:
        # "utilized" is utilization's decision and "relevant" context relevance's: same keys.
        return ContextRelevance.name if kind == "relevance" else TraceUtilization.name

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        threshold = self.resolved_threshold("entailment")
        rel_t = self.resolved_threshold("relevance")
        used = self.utilization(samples, threshold, session, show_progress_bar)
        relevance = ContextRelevance(self.judge, level="sentence", threshold=rel_t,
                                     options=self.options).score_many(samples, session=session)
        results: list[MetricResult] = []
        for sample, u, r in zip(samples, used, relevance):
            assert isinstance(r, ContextRelevanceResult)
            common = {"threshold": threshold, "relevance_threshold": rel_t, "used": self.used,
                      "claims": u.claims, "skipped": u.skipped}
            if u.score is None or r.score is None:
                results.append(self.result_type(score=None, reason=r.reason or u.reason, **common))
                continue
            verdicts = {(s.context_index, s.start): s for s in r.sentences}
            sentences = []
            for s in u.sentences:
                v = verdicts.get((s.context_index, s.start))
                sentences.append(s.model_copy(update={"relevant": bool(v and v.relevant),
                                                      "relevance": v.probability if v else 0.0}))
            relevant = [s for s in sentences if s.relevant]
            if not relevant:
                results.append(self.result_type(
                    score=None, reason="no context sentence is relevant to the question: nothing to be complete about",
                    sentences=sentences, **common))
                continue
            reason = u.reason or non_english_note(user_input=sample.user_input)
            results.append(self.result_type(
                score=sum(s.utilized for s in relevant) / len(relevant), reason=reason, sentences=sentences, **common))
        return results
