"""Support pieced together: a claim no single unit supports, judged by its atomic parts.

A small judge reads one unit at a time, so a claim whose facts sit in two sentences or two
chunks ("fill the tank and run the 70 C programme; repeat every three months") is rejected
whole, and one extra true detail sinks a sentence. After the usual attribution, each claim
that failed is cut into its atomic parts (`localeval.text.atoms`) and each part is judged
against every unit of every premise, exactly as a claim is, except that each sentence is also a
unit of its own (the first pass reads runs of two sentences); the whole claim is judged so
again too. Then:

* the whole claim supported by one sentence -> supported as a claim is (no parts);

* every part supported -> the claim is supported (``attributed=True``, ``pieced=True``, its
  probability the weakest part's);
* some part unsupported -> the claim stays unsupported and its details list each part with
  its own verdict and evidence, so the failed part is named (`ClaimAttribution.failed_parts`);
  metrics that count parts (faithfulness, factual correctness) give the claim the share of
  its parts that are supported (`parts_credit`), unless a part is *contradicted*: a contrast
  rule found that its best unit states the opposite (`CONTRADICTING_RULES`) and the judge, read
  on that unit, finds contradiction at least as likely as entailment (`ClaimPart.contradicted`).
  Then the claim counts 0: a reader who finds one false statement in a sentence does not trust
  it two-thirds, while a detail the contexts merely do not mention costs only its own part. Both
  must agree because each alone errs on realistic rows: the judge reads "rose" and "fell" as
  neighbours, and a rule can tie "fell" to the wrong noun of a long sentence ("profit was up 8
  percent, while revenue fell 3 percent").

Claims the judge supports whole are never cut (no extra pairs), nor claims the rules find
nothing to split in.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from localeval.evidence.attribution import Evidence
from localeval.judge.batching import judge_by_key
from localeval.evidence.verdict import lexical_words
from localeval.text.numbers import approximated, numbers_in
from localeval.text.notation import restated
from localeval.text.atoms import AtomicPart, atomic_parts, parse_claims

if TYPE_CHECKING:
    from localeval.judge.session import JudgeSession
    from localeval.metrics.judged import ClaimAttribution, JudgedMetric

RESCUE_MISSING = 1
"""Content words of a claim (or part) that the unit supporting it in the second pass may lack:
one allows a paraphrase ("fell" for "ended"), two or more is a different statement more often
than not."""

__all__ = ["CONTRADICTING_RULES", "RESCUE_MISSING", "SENTENCE_UNITS", "ClaimPart", "contradicted", "parts_credit",
           "piece_together"]

CONTRADICTING_RULES = frozenset({"unit", "bound", "opposite", "negated", "role", "polarity", "swap", "order"})
"""Contrast rules (`localeval.text.contrast_rules.CONTRAST_RULES`) whose finding is a statement of the
opposite, not an absence: "number" also fires when the best unit is merely about something else
("the claim's 0.5 is not in the evidence, which states 70" for a part whose sentence is
elsewhere) and "merge" when a unit lacks the subject; both stay "unsupported"."""

SENTENCE_UNITS = 1
"""Sentences per short unit when a failed claim and its parts are judged again: each sentence
alone. The first pass reads runs of two sentences (`DEFAULT_UNIT_SENTENCES`), best on the
development families, but a small judge loses a claim that one sentence states when an unrelated
sentence sits beside it in every unit (a two-sentence context has no single-sentence unit)."""


class ClaimPart(BaseModel):
    """One atomic part of a claim (`localeval.text.atoms`) and the premises' verdict on it."""

    text: str
    """The part as judged: built from the claim's own words (it need not appear verbatim)."""
    source_start: int | None
    source_end: int | None
    """Span, in the claim's text, of the words the part came from."""
    attributed: bool
    probability: float
    evidence: Evidence | None = None
    contrast: str | None = None
    contradicted: bool = False
    """The premises state its opposite: a rule of `CONTRADICTING_RULES` fired on its best unit and
    the judge's P(contradiction) on that unit is at least its P(entailment). A contradicted part
    sinks its claim (`parts_credit`)."""


def contradicted(contrast: str | None) -> bool:
    """Whether a verdict's ``contrast`` reason is one of `CONTRADICTING_RULES` (reasons read
    ``"<rule>: ..."``; the second pass's own ``"words: ..."`` reasons are absences)."""
    return bool(contrast) and contrast.split(":", 1)[0].strip() in CONTRADICTING_RULES


def parts_credit(parts: Sequence[ClaimPart] | None) -> float:
    """What an unsupported claim counts for where parts are counted: the share of its parts
    that are supported; 0.0 without parts or when any part is `contradicted`."""
    if not parts or any(p.contradicted for p in parts):
        return 0.0
    return sum(p.attributed for p in parts) / len(parts)


def piece_together(
    metric: JudgedMetric,
    groups: Sequence[tuple[Sequence[object], Sequence[str]]],
    judged: Sequence[list[ClaimAttribution]],
    threshold: float,
    *,
    session: JudgeSession | None = None,
    questions: Sequence[str | None] | None = None,
) -> None:
    """Judge again every unsupported claim of ``judged`` (the verdicts of ``groups``, as
    `JudgedMetric.judge_claims` returns them), whole and by its atomic parts, against its
    group's premises read sentence by sentence, in one judge call; record the parts on the
    claim (in place).

    ``questions``: per group, the question its single premise answers (factual correctness: the
    reference and the response answer the row's question). In the second pass the premise is
    read as ``"<question>: <premise>"``, so that a short answer ("3 hours 40 minutes, at 50 C.")
    can support a full sentence ("The Eco programme takes 3 hours 40 minutes."); the question
    is joined to the premise's first sentence, never a unit of its own (a question alone
    would "support" any statement that repeats it). Evidence offsets stay those of the premise."""
    from localeval.metrics.decomposed import ClaimUnit

    failed = [(g, k) for g, row in enumerate(judged) for k, claim in enumerate(row) if not claim.attributed]
    if not failed:
        return
    if session is None or not session.analyses.enabled:  # else most are read from the cache file
        # One spaCy batch per level of the parts' rules, not one call per text; timed as the
        # "parse" stage, as `_atomic_parts` is.
        texts = [judged[g][k].text for g, k in failed]
        if session is None:
            parse_claims(texts)
        else:
            session.timed("parse", lambda: parse_claims(texts))
    parts_of = [_atomic_parts(judged[g][k].text, session) for g, k in failed]
    # The whole claim first, then its parts (when the rules split it).
    prefixes = [_prefix(questions[g] if questions else None, groups[g][1]) for g, _ in failed]
    hypotheses = [[judged[g][k].text, *(p.text for p in parts)] for (g, k), parts in zip(failed, parts_of)]
    premises_of = [[prefix + groups[g][1][0]] if prefix else list(groups[g][1]) for (g, _), prefix in zip(failed, prefixes)]
    # Only what some unit could accept is judged: `_check_words` refuses a verdict whose unit
    # lacks a number or two content words, so a statement the contexts pooled lack them for
    # cannot pass (its verdict is the same unjudged: not supported).
    lacking = [[_lacking(h, premises) for h in hyps] for hyps, premises in zip(hypotheses, premises_of)]
    part_groups = {key: ([ClaimUnit(h, None, None) for h, why in zip(hyps, whys) if why is None], premises)
                   for key, hyps, whys, premises in zip(failed, hypotheses, lacking, premises_of)}
    judged_again = judge_by_key(lambda batch: metric.judge_claims(batch, threshold, session=session,
                                                                  unit_sentences=SENTENCE_UNITS), part_groups)
    verdicts = [_with_unjudged(hyps, whys, judged_again[key]) for key, hyps, whys in zip(failed, hypotheses, lacking)]
    found: list[tuple[ClaimPart, Sequence[str]]] = []  # parts of claims left unsupported, with their premises
    for (g, k), parts, prefix, row, premises in zip(failed, parts_of, prefixes, verdicts, premises_of):
        for v in row:
            _check_words(v, premises)
        whole, *part_verdicts = [_unprefixed(v, len(prefix), groups[g][1]) for v in row]
        claim = judged[g][k]
        # One sentence alone supports it: the claim's own verdict, unless a contrast rule
        # overruled the first pass (a sentence read alone can lose the neighbour that
        # contradicted the claim: "open on Mondays" / "... It is closed on Mondays").
        if whole.attributed and claim.contrast is None:
            claim.attributed, claim.probability, claim.evidence = True, whole.probability, whole.evidence
            claim.contrast = whole.contrast
            continue
        if not parts:
            continue
        claim.parts = [
            ClaimPart(text=p.text, source_start=p.source_start, source_end=p.source_end, attributed=v.attributed,
                      probability=v.probability, evidence=v.evidence, contrast=v.contrast)
            for p, v in zip(parts, part_verdicts)
        ]
        if all(v.attributed for v in part_verdicts):
            claim.attributed = True
            claim.pieced = True
            claim.probability = min(v.probability for v in part_verdicts)
        else:
            found.extend((part, groups[g][1]) for part in claim.parts)
    _confirm_contradictions(metric, found, session)


def _confirm_contradictions(metric: JudgedMetric, parts: list[tuple[ClaimPart, Sequence[str]]],
                            session: JudgeSession | None) -> None:
    """Set `ClaimPart.contradicted` (in place) on the parts a contradicting rule overruled, where
    the judge's own P(contradiction) of the part on its evidence unit is at least its
    P(entailment): one judge call for all of them (their pairs were judged in the second pass,
    so a session's memo answers most)."""
    from localeval.judge.session import session_scope

    todo = [(part, premises[part.evidence.context_index][part.evidence.window_start : part.evidence.window_end])
            for part, premises in parts if contradicted(part.contrast) and part.evidence is not None]
    if not todo:
        return
    with session_scope(session) as run:
        pairs = [(unit, restated(part.text, unit)) for part, unit in todo]  # as the second pass judged them
        batch = run.batch(metric.judge).add("contradicted", pairs).run()
        entailment, contradiction = batch.get("contradicted"), batch.contradiction("contradicted")
    for (part, _), e, c in zip(todo, entailment, contradiction):
        part.contradicted = bool(c >= e)


def _atomic_parts(claim: str, session: JudgeSession | None) -> list[AtomicPart]:
    """`atomic_parts`, remembered by ``session`` (timed as its "parse" stage) and stored with its
    analyses when it has a cache file, so a re-run parses no claim again."""
    if session is None:
        return atomic_parts(claim)
    kind = _parts_kind() if session.analyses.enabled else None
    if kind is None:
        return session.remember("atoms", claim, lambda: session.timed("parse", lambda: atomic_parts(claim)))
    return session.analysis(kind, claim, lambda: atomic_parts(claim), _encode_parts, _decode_parts, stage="parse")


def _parts_kind() -> str | None:
    """The stored-analysis kind of atomic parts: this code, spaCy and its pipeline; ``None``
    (not stored) for a pipeline given as a folder, whose version is unknown."""
    import os

    from localeval.text.analyses import code_identity
    from localeval.text.entities import DEFAULT_SPACY_MODEL, SPACY_MODEL_ENV

    model = os.environ.get(SPACY_MODEL_ENV) or DEFAULT_SPACY_MODEL
    if "/" in model or os.sep in model:
        return None
    # (localeval.text.sentences marks sentence starts before the parser.)
    return f"atoms/{code_identity(('localeval.text.atoms', 'localeval.text.sentences'), ('spacy', model))}/{model}"


def _encode_parts(parts: list[AtomicPart]) -> bytes:
    return json.dumps([[p.text, p.source_start, p.source_end] for p in parts], separators=(",", ":")).encode()


def _decode_parts(value: bytes) -> list[AtomicPart] | None:
    try:
        return [AtomicPart(text=t, source_start=a, source_end=b) for t, a, b in json.loads(value)]
    except (ValueError, TypeError):  # a damaged value: built again
        return None


STEM_PREFIX = 5
"""Two content words this long or longer count as one word when one begins with the other: the
crude stems of `lexical_words` give "kilometre" for "12-kilometre" but "kilometr" for "kilometres"."""


def _missing_words(text: str, unit: str) -> tuple[set[str], set[str]]:
    """(content words, numbers) of ``text`` that ``unit`` lacks."""
    theirs = lexical_words(unit)
    missing = {w for w in lexical_words(text) - theirs
               if not (len(w) >= STEM_PREFIX and any(len(u) >= STEM_PREFIX and (w.startswith(u) or u.startswith(w))
                                                     for u in theirs))}
    stated = numbers_in(unit)
    numbers = numbers_in(text) - stated
    near = approximated(text, numbers, stated)  # "about 5,000" for 4,870: held
    return missing - near, set(numbers - near)


def _lacking(text: str, premises: Sequence[str]) -> str | None:
    """Why no unit of ``premises`` could pass `_check_words` for ``text``; ``None`` when one might."""
    words, numbers = _missing_words(text, "\n".join(premises))
    if numbers or len(words) > RESCUE_MISSING:
        return "words: the contexts lack " + ", ".join(sorted(words | numbers))
    return None


def _with_unjudged(hypotheses: list[str], lacking: list[str | None],
                   judged: list[ClaimAttribution]) -> list[ClaimAttribution]:
    """The verdicts of ``hypotheses`` in order: those judged (``lacking`` None) from ``judged``,
    in their order; the others unsupported, with why they were not judged."""
    from localeval.metrics.judged import ClaimAttribution

    by_position = dict(zip((j for j, why in enumerate(lacking) if why is None), judged))
    return [by_position[j] if why is None else
            ClaimAttribution(text=h, start=None, end=None, attributed=False, probability=0.0, contrast=why)
            for j, (h, why) in enumerate(zip(hypotheses, lacking))]


def _check_words(verdict: ClaimAttribution, premises: Sequence[str]) -> None:
    """Refuse (in place) a second-pass verdict whose unit lacks a number of the claim or more
    than `RESCUE_MISSING` of its content words: a sentence read alone is where the small judge
    most often "entails" a near copy that changes a word ("revenue grew" from "revenue fell",
    "700 died" from "1,500 died"); the first pass had already found no support."""
    ev = verdict.evidence
    if not verdict.attributed or ev is None:
        return
    words, numbers = _missing_words(verdict.text, premises[ev.context_index][ev.window_start : ev.window_end])
    if numbers or len(words) > RESCUE_MISSING:
        verdict.attributed = False
        verdict.contrast = verdict.contrast or "words: the sentence read alone lacks " + ", ".join(sorted(words | numbers))


def _prefix(question: str | None, premises: Sequence[str]) -> str:
    """``"<question>: "`` for a group with one non-empty premise and a question, else ``""``."""
    if not question or not question.strip() or len(premises) != 1 or not premises[0].strip():
        return ""
    return " ".join(question.split()).rstrip(" ?.!:") + ": "


def _unprefixed(verdict: ClaimAttribution, shift: int, premises: Sequence[str]) -> ClaimAttribution:
    """``verdict`` with its evidence offsets moved back into the premise (the prefix cut off)."""
    ev = verdict.evidence
    if not shift or ev is None:
        return verdict
    text = premises[0]
    start, end = max(ev.start - shift, 0), max(ev.end - shift, 0)
    moved = ev.model_copy(update={"text": text[start:end], "start": start, "end": end,
                                  "window_start": max(ev.window_start - shift, 0),
                                  "window_end": max(ev.window_end - shift, 0)})
    return verdict.model_copy(update={"evidence": moved})
