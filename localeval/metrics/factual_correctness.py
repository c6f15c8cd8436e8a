"""Factual correctness: how much of the response the reference supports, and of the reference
the response states.

RAGAS ``FactualCorrectness`` and RAGChecker's overall precision / recall / F1 (Ru et al., 2024),
with the local judge in place of the LLM. Both texts are split into claims as for context
recall (`localeval.text.split_claims`, or the metric's ``decomposer``) and judged with the
same attribution as every claim metric (`localeval.evidence.attribution`), the other text
taking the place of the retrieved contexts:

    precision = response claims the reference entails / response claims
                (with ``check_contexts``: or, beyond the reference, the retrieved contexts)
    recall    = reference claims the response entails / reference claims
    f1        = 2 P R / (P + R)  (0.0 when both are 0)

``mode`` picks the score (``"f1"`` by default, as RAGAS); all three are in the details, with
each claim's verdict, probability and evidence sentence. A response claim the reference does
not entail is listed in ``wrong_claims``: with a fluent answer holding one wrong number, that
is the claim with the number.

The retrieved contexts, when the row has them (``check_contexts=True``, the default): a
reference is a short gold answer, not all that is true, so a response claim it does not state
is judged again against the row's retrieved contexts (``CheckedClaim.contexts``):

* the contexts support it, and the reference does not refute it -> it counts as supported (a
  true detail beyond the reference: "..., counted per API key" for "60 requests per minute");
* nothing given supports it, neither the reference nor the contexts, as a whole or in one of
  its parts (the reference supports "A 9-year-old can take half a tablet", nothing supports
  "Half a tablet is 5 mg, three times a day") -> the response states something unsupported,
  and the score is at most `UNSUPPORTED_CAP` (0.5): a reader who finds one made-up statement
  does not call the answer two-thirds right, while F1 gives "the whole reference plus one
  false statement" 0.67. The claims are listed in ``unsupported_claims``, what they state
  that nothing supports (claims or parts) in ``unsupported_statements``.

A yes/no answer the other way: a response opening with "Yes" where the reference opens with
"No" (or the reverse; `localeval.text.answers.polarity`) answers the question wrong, whatever
the judge reads in the rest: the score is at most `UNSUPPORTED_CAP` too (``opposite_answer``),
and a reference claim that is only its answer word ("No.") counts as not stated.

``check_contexts=False``, a row without contexts, or ``mode="recall"`` (how much of the
reference the response states; no response claim counts there): the reference alone decides,
as RAGAS does.

Edge cases (deterministic, documented in the README, tested):

* reference empty (or no claim in it) -> ``score=None``: there is nothing to check against.
* response empty -> recall 0.0 (it states none of the reference), precision undefined:
  ``mode="precision"`` gives ``None``, ``"recall"`` / ``"f1"`` give 0.0, with the reason.
* non-answer statements ("I don't know", "the context does not say"; `is_non_answer`) assert
  nothing: they are left out of the response's claims and listed in ``non_answer_statements``.
  A response made only of them is flagged ``non_answer=True`` and scores 0.0 in every mode.
* text that does not look like English is scored, with a reason saying the score is less
  reliable (the judge and splitters are English models).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from localeval.judge.batching import judge_by_key
from localeval.metrics.base import MetricResult, register_metric
from localeval.metrics.judged import ClaimAttribution, JudgedMetric
from localeval.metrics.decomposed import ClaimUnit, DecompositionRecord, check_decomposer, claim_units
from localeval.metrics.pieced import ClaimPart, contradicted, parts_credit, piece_together
from localeval.metrics.precision_recall import f1
from localeval.schema import Sample
from localeval.text import Span
from localeval.text.answers import is_non_answer, non_english_note, polarity
from localeval.text.hygiene import non_claim_reason
from localeval.judge.session import JudgeSession

__all__ = ["AnswerClaims", "AnswerClaimsMetric", "CheckedClaim", "FactualCorrectness", "FactualCorrectnessResult", "Mode"]

Mode = Literal["precision", "recall", "f1"]
MODES: tuple[str, ...] = ("precision", "recall", "f1")
UNSUPPORTED_CAP = 0.5
"""The highest score of a response with a claim that neither the reference nor the retrieved
contexts support (``check_contexts``; modes "f1" and "precision"): at most half right."""


class CheckedClaim(BaseModel):
    """A claim of one text (response or reference) and the verdict of the other text on it."""

    text: str
    start: int | None
    end: int | None
    """Span of the claim in its own text (``None`` for a decomposer's claim not found verbatim)."""
    attributed: bool
    """The other text entails the claim."""
    probability: float
    evidence: Span | None = None
    """The sentence of the other text that supports the claim best (given even when below
    the threshold), with its span in that text."""
    contrast: str | None = None
    """Why the sentence the judge liked best did not decide (`ClaimAttribution.contrast`)."""
    judge_probability: float | None = None
    deciding: list[str] | None = None
    """With a learned verdict stored with the judge: as `ClaimAttribution`'s."""
    parts: list[ClaimPart] | None = None
    pieced: bool = False
    """As `ClaimAttribution`'s: the atomic parts of a claim the other text does not support
    whole, each with its own verdict and evidence (a sentence of the other text)."""
    contexts: CheckedClaim | None = None
    """A response claim the reference does not support, judged again against the row's
    retrieved contexts (`FactualCorrectness.check_contexts`): their verdict, evidence (a
    sentence of a context) and parts; ``None`` when not judged there."""

    @property
    def refuted(self) -> bool:
        """The other text states its opposite: a contradicting rule overruled the judge on the
        claim's best unit, or one of its parts is contradicted (`localeval.metrics.pieced`)."""
        return contradicted(self.contrast) or any(p.contradicted for p in self.parts or [])

    @property
    def credit(self) -> float:
        """1.0 when supported, else `parts_credit` (as `ClaimAttribution.credit`); 1.0 also when
        the retrieved contexts support the whole claim (whole or by all its parts) and the other
        text does not refute it. Parts the contexts support alone give nothing: a part is often
        the claim's setting ("while you take metronidazole"), true whatever the claim says."""
        own = 1.0 if self.attributed else parts_credit(self.parts)
        if own < 1.0 and self.contexts is not None and self.contexts.attributed and not self.refuted:
            return 1.0
        return own

    @property
    def unsupported(self) -> bool:
        """Judged against the contexts too, and something it states is supported by nothing:
        the whole claim, or one of its parts (`unsupported_statements`)."""
        return bool(self.unsupported_statements)

    @property
    def unsupported_statements(self) -> list[str]:
        """What the claim states that neither the other text nor the contexts support: the
        claim itself when no part of it is supported anywhere, else each part supported
        nowhere ("Half a tablet is 5 mg, three times a day." of "A 9-year-old can take half a
        tablet, which is 5 mg, three times a day."): parts are counted, so a made-up detail
        is found as a part. Empty when not judged against the contexts."""
        if self.contexts is None or self.credit >= 1.0:
            return []
        if self.credit == 0.0:
            return [self.text]
        elsewhere = {p.text for p in self.contexts.parts or [] if p.attributed}
        return [p.text for p in self.parts or [] if not p.attributed and p.text not in elsewhere]

    @property
    def failed_parts(self) -> list[str]:
        return [p.text for p in self.parts or [] if not p.attributed]

    @classmethod
    def of(cls, judged: ClaimAttribution) -> CheckedClaim:
        ev = judged.evidence
        evidence = Span(text=ev.text, start=ev.start, end=ev.end) if ev is not None else None
        return cls(**judged.model_dump(exclude={"evidence"}), evidence=evidence)


class FactualCorrectnessResult(MetricResult):
    metric: str = "factual_correctness"
    mode: Mode | None = None
    threshold: float | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    response_claims: list[CheckedClaim] = []
    """Claims of the response; ``attributed`` = the reference entails it (evidence: a
    sentence of the reference)."""
    reference_claims: list[CheckedClaim] = []
    """Claims of the reference; ``attributed`` = the response entails it."""
    non_answer: bool = False
    non_answer_statements: list[str] = []
    decomposition: DecompositionRecord | None = None
    capped: bool = False
    """The score was cut to `UNSUPPORTED_CAP`: the response answers yes/no the other way from
    the reference, or a response claim is supported by nothing given."""
    opposite_answer: bool = False
    """The response opens with "yes" and the reference with "no", or the other way round
    (`localeval.text.answers.polarity`)."""

    @property
    def wrong_claims(self) -> list[str]:
        """Response claims the reference does not support: wrong or unverifiable statements."""
        return [c.text for c in self.response_claims if not c.attributed]

    @property
    def unsupported_claims(self) -> list[str]:
        """Response claims that state something neither the reference nor the retrieved
        contexts support (as a whole or in a part)."""
        return [c.text for c in self.response_claims if c.unsupported]

    @property
    def unsupported_statements(self) -> list[str]:
        """What those claims state that nothing supports: whole claims, or their parts."""
        return [t for c in self.response_claims for t in c.unsupported_statements]

    @property
    def missing_claims(self) -> list[str]:
        """Reference claims the response does not state."""
        return [c.text for c in self.reference_claims if not c.attributed]


@dataclass
class AnswerClaims:
    """One row's claims, before judging: the response's (non-answers set apart) and the
    reference's."""

    response: list[ClaimUnit]
    reference: list[ClaimUnit]
    non_answers: list[str]
    record: DecompositionRecord | None


class AnswerClaimsMetric(JudgedMetric):
    """A judged metric over claims of the response and of the reference (claim options as
    `ContextRecall`: ``split_coordination``, ``decomposer``)."""

    reads_verdict = True


    def __init__(self, model=None, *, split_coordination: bool = True, decomposer=None, pieced: bool = True,
                 **options) -> None:
        check_decomposer(decomposer, "claims")
        super().__init__(model, **options)
        self.split_coordination = split_coordination
        self.decomposer = decomposer
        self.pieced = bool(pieced)
        """Judge a claim the other text does not support whole by its atomic parts, and count
        parts (`localeval.metrics.pieced`)."""

    def answer_claims(self, samples: list[Sample], session: JudgeSession | None = None) -> list[AnswerClaims]:
        texts = [s.response or "" for s in samples] + [s.reference or "" for s in samples]
        done = claim_units(self.decomposer, texts, split_coordination=self.split_coordination, session=session)
        n = len(samples)
        out = []
        for (response, record), (reference, ref_record) in zip(done[:n], done[n:]):
            kept = [c for c in response if not is_non_answer(c.text)]
            declined = [c.text for c in response if is_non_answer(c.text)]
            out.append(AnswerClaims(kept, reference, declined, record or ref_record))
        return out


@register_metric("factual_correctness.v1")
class FactualCorrectness(AnswerClaimsMetric):
    """Claims of the response checked against the reference and back (see module docstring).

    Args:
        mode: ``"f1"`` (default), ``"precision"`` or ``"recall"``: which figure is the score.
        model, threshold, device, batch_size, max_units, exhaustive: the judge options of every
            judged metric; ``threshold`` is an entailment probability.
        split_coordination, decomposer: how claims are made, as for `ContextRecall`.
        check_contexts: judge a response claim the reference does not support against the
            row's retrieved contexts: supported there it counts, supported nowhere it caps the
            score at `UNSUPPORTED_CAP` (module docstring). ``False``: the reference alone.
    """

    name = "factual_correctness"
    required_columns = ("response", "reference")
    result_type = FactualCorrectnessResult

    def __init__(self, model=None, *, mode: Mode = "f1", decomposer=None, check_contexts: bool = True,
                 **options) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        # ``decomposer`` named here: the runner gives its decomposer to metrics that name it.
        super().__init__(model, decomposer=decomposer, **options)
        self.mode = mode
        self.check_contexts = bool(check_contexts)

    def unscored(self, reason: str) -> FactualCorrectnessResult:
        return FactualCorrectnessResult(score=None, reason=reason, mode=self.mode)

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        threshold = self.resolved_threshold()
        rows = self.answer_claims(samples, session)
        pairs, _ = self.cross_judge(samples, rows, threshold, session=session, show_progress_bar=show_progress_bar)
        caps = self.mode != "recall"  # recall reads the reference's claims only: no response claim to cap for
        if self.check_contexts and caps:
            self.judge_in_contexts(samples, [response for response, _ in pairs], threshold, session=session)
        return [self.result(s, row, *judged, threshold, caps=caps) for s, row, judged in zip(samples, rows, pairs)]

    def judge_in_contexts(self, samples: list[Sample], responses: list[list[CheckedClaim]], threshold: float, *,
                          session: JudgeSession | None = None) -> None:
        """Judge each response claim its reference does not support against its row's retrieved
        contexts, as faithfulness judges a claim (pieced together too), in one judge call; the
        verdicts go to `CheckedClaim.contexts` (in place)."""
        groups: dict[int, tuple[list[ClaimUnit], list[str]]] = {}
        for i, (sample, claims) in enumerate(zip(samples, responses)):
            contexts = [c for c in sample.retrieved_contexts or [] if c and c.strip()]
            todo = [ClaimUnit(c.text, c.start, c.end) for c in claims if not c.attributed]
            if contexts and todo:
                groups[i] = (todo, contexts)
        if not groups:
            return
        judged = judge_by_key(lambda batch: self.judge_claims(batch, threshold, session=session), groups)
        if self.pieced:
            piece_together(self, list(groups.values()), [judged[i] for i in groups], threshold, session=session)
        for i, verdicts in judged.items():
            for claim, verdict in zip([c for c in responses[i] if not c.attributed], verdicts):
                claim.contexts = CheckedClaim.of(verdict)

    def cross_judge(
        self, samples: list[Sample], rows: list[AnswerClaims], threshold: float, *,
        extra_groups: Mapping[Hashable, tuple[Sequence[ClaimUnit], Sequence[str]]] | None = None,
        session: JudgeSession | None = None, show_progress_bar: bool = False,
    ) -> tuple[list[tuple[list[CheckedClaim], list[CheckedClaim]]], dict[Hashable, list[ClaimAttribution]]]:
        """Per row, (response claims judged against the reference, reference claims judged
        against the response); then the verdicts of ``extra_groups`` by their keys, judged in
        the same call so that a caller needing more verdicts (RAGChecker) keeps the judge's
        batches full."""
        groups: dict[tuple[str, int], tuple[Sequence[ClaimUnit], Sequence[str]]] = {}
        for i, (sample, row) in enumerate(zip(samples, rows)):
            groups[("response", i)] = (row.response, [sample.reference or ""])
            groups[("reference", i)] = (row.reference, [sample.response or ""])
        extra = {("extra", key): group for key, group in (extra_groups or {}).items()}
        judged = judge_by_key(lambda batch: self.judge_claims(batch, threshold, session=session,
                                                              show_progress_bar=show_progress_bar), groups | extra)
        if getattr(self, "pieced", False):
            # Both texts answer the row's question: the second pass reads it before each.
            piece_together(self, list(groups.values()), [judged[key] for key in groups], threshold, session=session,
                           questions=[samples[i].user_input for _, i in groups])
        pairs = [([CheckedClaim.of(c) for c in judged[("response", i)]], [CheckedClaim.of(c) for c in judged[("reference", i)]])
                 for i in range(len(rows))]
        return pairs, {key: judged[("extra", key)] for key in extra_groups or {}}

    def result(self, sample: Sample, row: AnswerClaims, response_claims: list[CheckedClaim],
                reference_claims: list[CheckedClaim], threshold: float, *, caps: bool = False) -> FactualCorrectnessResult:
        """The row's result from its judged claims; ``caps``: cut the score to `UNSUPPORTED_CAP`
        where the response answers yes/no the other way or states what nothing supports
        (factual correctness' own scores; RAGChecker's overall figures are the paper's)."""
        base = {"mode": self.mode, "threshold": threshold, "decomposition": row.record,
                "non_answer_statements": row.non_answers}
        opposite = _opposite_answers(sample, reference_claims)
        if not row.reference:
            empty = not (sample.reference or "").strip()
            why = "reference is empty" if empty else "reference has no claims (only punctuation or symbols)"
            return FactualCorrectnessResult(score=None, reason=f"{why}: nothing to check the response against", **base)
        # Parts are counted: a claim that is partly supported counts the share of its parts.
        recall = sum(c.credit for c in reference_claims) / len(reference_claims)
        precision = sum(c.credit for c in response_claims) / len(response_claims) if response_claims else None
        figures = {"precision": precision, "recall": recall, "f1": f1(precision or 0.0, recall)}
        details = {**base, **figures, "response_claims": response_claims, "reference_claims": reference_claims}
        if row.non_answers and not row.response:
            return FactualCorrectnessResult(
                score=0.0, reason="response is a non-answer (it declines to answer): it states nothing of the reference",
                non_answer=True, **details)
        if precision is None:
            empty = not (sample.response or "").strip()
            why = "response is empty" if empty else "response has no claims (only punctuation or symbols)"
            if self.mode == "precision":
                return FactualCorrectnessResult(score=None, reason=f"{why}: precision of no claim is undefined", **details)
            return FactualCorrectnessResult(score=0.0, reason=f"{why}: it states none of the reference", **details)
        note = non_english_note(response=sample.response, reference=sample.reference)
        score = figures[self.mode]
        unsupported = [t for c in response_claims for t in c.unsupported_statements]
        why = None
        if opposite:
            why = f"the response answers {opposite[0]!r} where the reference answers {opposite[1]!r}"
        elif unsupported:
            why = "neither the reference nor the retrieved contexts support " + "; ".join(repr(t) for t in unsupported[:3])
        if caps and why and score is not None and score > UNSUPPORTED_CAP:
            return FactualCorrectnessResult(score=UNSUPPORTED_CAP, reason="; ".join(
                filter(None, [f"score capped at {UNSUPPORTED_CAP}: {why}", note])), capped=True,
                opposite_answer=bool(opposite), **details)
        return FactualCorrectnessResult(score=score, reason=note, opposite_answer=bool(opposite), **details)


def _opposite_answers(sample: Sample, reference_claims: list[CheckedClaim]) -> tuple[str, str] | None:
    """(response's, reference's) answer word when the two open with opposite ones ("Yes, ..." /
    "No. ..."), else ``None``. Then a reference claim that is only its answer word ("No.") is
    not stated by the response, whatever the judge read (in place): alone, the word says
    nothing a judge can check, and the response says the other one."""
    said, gold = polarity(sample.response), polarity(sample.reference)
    if said is None or gold is None or said == gold:
        return None
    for claim in reference_claims:
        if claim.attributed and non_claim_reason(claim.text) == "bare answer word" and polarity(claim.text) == gold:
            claim.attributed, claim.parts, claim.pieced = False, None, False
            claim.contrast = f"answer: the response answers {said!r}"
    return said, gold
