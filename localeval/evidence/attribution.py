"""Claim attribution: how strongly a list of contexts supports each claim, and where.

Each context is read as *units* the judge can take whole:

* windows: runs of consecutive sentences sized to the judge (so a 50k-token context is read
  in full, never truncated), which see claims whose support spans sentences;
* short units: every run of ``unit_sentences`` consecutive sentences (1 = each sentence
  alone, SummaC-style), because a small judge is easily distracted by unrelated sentences
  around the one that matters (measured: the shipped judge gives 0.90 to a claim against its
  own sentence, 0.86 with one unrelated sentence before it, 0.05 with six).

A claim's support is the highest entailment probability over every unit of every context
(``granularity="both"``, the default; ``"window"`` or ``"sentence"`` use one kind only). Its
evidence is the best short unit, narrowed to its best sentence when it holds several
(``locate_sentence``; by the claim's words, or by one small extra judge call with
``locate="judge"``). Why the defaults are what they are:
benchmarks/results/granularity.md.

``max_units`` bounds the cost of long contexts: each claim is judged against only the
``DEFAULT_MAX_UNITS`` units that share most content words with it (a lexical prefilter, as in
retrieve-then-rerank), so pairs per claim stop growing with the context. Measured on WiCE,
SummaC and BEGIN dev, it loses no agreement (it gains some: fewer unrelated units can win the
max by accident) and judges a whole WiCE article about 10x faster:
benchmarks/results/prefilter.md. ``max_units=None`` judges every unit.

``accept_at`` stops early for claims that are plainly supported: each claim is first judged
against its single closest unit (most shared content words; ties: the shorter unit), and a
claim that unit already entails with probability >= ``accept_at`` is accepted without judging
its other units. Metrics pass their decision threshold, so every verdict (``p >= threshold``)
is exactly what judging every unit gives, for a fraction of the pairs when most claims are
supported; only the reported probability of an accepted claim is then that of its accepting
unit (at least the threshold), not the highest over all units. ``accept_at=None`` (the
default here) judges every chosen unit.

``contrasts`` (on by default) lets rules overrule the judge where it is known to be blind:
a unit that states a different number, the same number in another unit or bounded from the
other side, the opposite direction or state, or negates what the claim affirms
(`localeval.text.contrast_rules`) has its P(entailment) multiplied by `CONTRAST_WEIGHT`, so it
cannot win the max; another unit still can. Rules are read on a claim's units best first,
until one passes: the units below it could not win the max anyway and keep their probability
(so a run reads about one unit per claim, not all). Under early acceptance (``accept_at``),
the role and merge rules, which need a spaCy parse, read only units the judge accepts:
elsewhere they could not change a verdict. The reasons are stored with the session's analyses, so a re-run
with the cache file applies no rule again. Measured on the development families (no
agreement lost, AUROC up on four of five) and on the hand-written contrast set:
benchmarks/results/contrasts.md.

Evidence is narrowed to one sentence of the winning unit by the claim's words by default
(``locate="words"``); ``locate="judge"`` judges each of its sentences instead. Locating by the
judge was more than half of all pairs on the bulk benchmark's rows and changes no probability,
verdict or agreement figure: benchmarks/results/candidates.md.

The work runs in five stages over one frozen plan, each a short function returning new
values (`_attribute` reads as the list): plan units (cut contexts, choose each claim's
candidates, one pair each) -> judge (one call, or two rounds under ``accept_at``, which
returns a new plan cut to what was judged) -> contrast check (each claim's units, then an
order claim's dated passage: the sentences of all its contexts that date its sides, and the
order confirmations) -> evidence -> finish (one `Support` per claim).

Work is grouped: `attribute` takes many (claims, contexts) groups -- one per dataset row --
and sends all their pairs to the judge in one call (a `PairBatch` of the run's
`JudgeSession`), so batches stay full across rows. The units of a context and the token
counts that size them are remembered by the session, not by the judge.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NamedTuple

import numpy as np
from pydantic import BaseModel

from localeval.evidence.candidates import (
    DEFAULT_SELECTOR,
    SELECTORS,
    Selector,
    get_selector,
    overlap_scores,
    overlap_select,
    select,
    words_of_run,
)
from localeval.judge.nli import NLIJudge
from localeval.judge.session import JudgeSession, session_scope
from localeval.evidence.verdict import (
    ClaimVerdict,
    JudgedUnit,
    claim_signals,
    lexical_signals,
)
from localeval.options import DEFAULT_LOCATE, DEFAULT_MAX_UNITS, Locate, RunOptions
from localeval.text import Span, Window, make_windows, split_sentences
from localeval.text.contrast_rules import (ACROSS_RULES, CONTRAST_RULES, RULES_WITHOUT_PARSE, confirmation, dated_passage,
                                           parse_confirmations)
from localeval.text.lexical import content_words, word_overlap
from localeval.text.notation import restated

__all__ = ["CONTRAST_WEIGHT", "DEFAULT_LOCATE", "DEFAULT_MAX_UNITS", "DEFAULT_UNIT_SENTENCES", "Evidence",
           "Granularity", "JudgedSpan", "Support", "attribute"]

Granularity = Literal["both", "window", "sentence"]
DEFAULT_UNIT_SENTENCES = 2
CONTRAST_WEIGHT = 0.1
"""P(entailment) of a unit is multiplied by this when a contrast rule finds that the unit
states the opposite of the claim (`localeval.text.contrast_rules`): below every decision threshold,
yet still ordered, so that rankings (AUROC) keep what the judge saw."""


class Evidence(BaseModel):
    """Where a claim's support was found: a sentence (or piece of one) of one context."""

    context_index: int
    text: str
    start: int
    """Character offset of ``text`` inside ``retrieved_contexts[context_index]``."""
    end: int
    window_start: int
    window_end: int
    """Character span of the unit that gave the claim its probability."""


class JudgedSpan(BaseModel):
    """One unit a claim was judged against, and the judge's P(entailment) of the claim by it."""

    context_index: int
    sentence_indices: tuple[int, ...]
    """Indices of the unit's sentences among ``split_sentences(retrieved_contexts[context_index])``."""
    short: bool
    """A short unit (a run of ``unit_sentences`` sentences), not a judge-sized window."""
    probability: float


class Support(BaseModel):
    probability: float
    evidence: Evidence | None = None
    units: list[JudgedSpan] | None = None
    """With ``attribute(..., units=True)``: every unit the claim was judged against (under
    ``accept_at``, an accepted claim was judged against its accepting unit only)."""
    signals: dict[str, float] | None = None
    """With ``attribute(..., signals=True)``: the claim's verdict signals
    (`localeval.evidence.verdict.claim_signals`), from the units it was judged against."""
    contrast: str | None = None
    """Why the unit the judge liked best did not decide: a contrast rule found that it states
    the opposite of the claim (`localeval.text.contrast_rules`); ``None`` when no rule overruled."""
    confirmation: str | None = None
    """Why the unit that decided was raised: its dates or numbers bear out the claim's order or
    comparison, which the judge cannot check (`localeval.text.contrast_rules.confirmation`)."""
    judge_probability: float | None = None
    """With ``attribute(..., verdict=...)``: the judge's P(entailment) of the best unit, while
    ``probability`` is the verdict's P(supported)."""
    deciding: list[str] | None = None
    """With ``attribute(..., verdict=...)``: the signals that moved the verdict most, strongest
    first (the verdict's ``deciding``)."""


@dataclass(frozen=True)
class _Unit:
    """One premise the judge reads: a window, or a single sentence (``sentence=True``)."""

    context_index: int
    window: Window
    sentence: bool
    words: frozenset[str] = field(default=frozenset(), compare=False)
    """The unit's content words (`localeval.evidence.candidates.words_of_run`): what the
    default candidate selection ranks it by."""


def _units(session: JudgeSession, judge: NLIJudge, text: str, budget: int, granularity: str,
           unit_sentences: int) -> tuple[list[Window], list[Window]]:
    """(windows, short units) of one context, remembered by the session (the judge's tokenizer
    sizes them) because rows and metrics share contexts, and stored with the session's
    analyses when it has a cache file (under the judge's identity and this code's)."""
    def build() -> tuple[list[Window], list[Window]]:
        return _build_units(session.token_counter(judge), text, budget, granularity, unit_sentences,
                            spans=session.span_counter(judge, text))

    if not session.analyses.enabled:
        return session.remember(
            "attribution-units", (str(judge.path), text, budget, granularity, unit_sentences),
            lambda: session.timed("plan", build),
        )
    kind = f"units/{_units_identity()}/{judge.identity}/{budget}/{granularity}/{unit_sentences}"
    return session.analysis(kind, text, build, lambda units: _encode_units(text, units),
                            lambda value: _decode_units(text, value))


def _units_identity() -> str:
    from localeval.text.analyses import code_identity
    from localeval.text.sentences import splitter_identity

    return splitter_identity() + code_identity(("localeval.evidence.attribution", "localeval.text.windows",
                                                "localeval.text.spans"))


def _encode_units(text: str, units: tuple[list[Window], list[Window]]) -> bytes | None:
    """JSON ``[[[start, end, [sentence indices]], ...] per kind]``; ``None`` when a unit is
    not exactly ``text[start:end]`` (it could not be rebuilt from offsets)."""
    if any(w.text != text[w.start : w.end] for part in units for w in part):
        return None
    return json.dumps([[[w.start, w.end, list(w.sentence_indices)] for w in part] for part in units],
                      separators=(",", ":")).encode()


def _decode_units(text: str, value: bytes) -> tuple[list[Window], list[Window]] | None:
    try:
        windows, short = ([(a, b, tuple(idx)) for a, b, idx in part] for part in json.loads(value))
    except (ValueError, TypeError):  # a damaged value: built again
        return None
    n = len(text)
    if any(type(a) is not int or type(b) is not int or not 0 <= a <= b <= n or not all(type(i) is int for i in idx)
           for part in (windows, short) for a, b, idx in part):
        return None
    # Checked above, so built without pydantic's validation (a re-run decodes ~50 a row).
    return tuple(  # type: ignore[return-value]
        [Window.model_construct(text=text[a:b], start=a, end=b, sentence_indices=idx) for a, b, idx in part]
        for part in (windows, short)
    )


def _build_units(count: Callable[[str], int], text: str, budget: int, granularity: str, unit_sentences: int,
                 spans: Callable[[int, int], int] | None = None) -> tuple[list[Window], list[Window]]:
    """(windows, short units) of ``text``, tokens counted by ``count``, or for spans of
    ``text`` by ``spans`` when given (`JudgeSession.span_counter`: the same counts, faster)."""
    sentences = split_sentences(text)
    if not sentences:
        return [], []
    windows = make_windows(text, sentences, count, budget, count_span=spans) if granularity != "sentence" else []
    short: list[Window] = []
    if granularity != "window":
        if unit_sentences == 1:
            for i, sentence in enumerate(sentences):
                # An over-long sentence is read in word-aligned pieces, exactly as windows are.
                pieces = make_windows(text, [sentence], count, budget, count_span=spans)
                short.extend(w.model_copy(update={"sentence_indices": (i,)}) for w in pieces)
        else:
            # Every run of `unit_sentences` consecutive sentences (sliding by one sentence).
            short = make_windows(text, sentences, count, budget, overlap=unit_sentences - 1,
                                 max_sentences=unit_sentences, count_span=spans)
        if granularity == "both":
            # A window that is also a short unit is judged once.
            seen = {(w.start, w.end) for w in short}
            windows = [w for w in windows if (w.start, w.end) not in seen]
    return windows, short


def _closest(claim: str, units: list[_Unit], k: int, selector: str | Selector = DEFAULT_SELECTOR) -> list[_Unit]:
    """The ``k`` units ``selector`` ranks best for the claim (`localeval.evidence.candidates`;
    default: most shared content words), in their original order."""
    if get_selector(selector) is SELECTORS["overlap"]:
        return [units[i] for i in overlap_select(claim, [u.words for u in units], k)]
    return [units[i] for i in select(claim, [u.window.text for u in units], k, selector)]


def _first_to_judge(claim: str, units: list[_Unit], selector: Selector | None = None) -> int:
    """Position in ``units`` of the unit judged first under ``accept_at``: the one ``selector``
    ranks best; for the default (word overlap): most shared words, then the shortest (a small
    judge reads a claim's own sentence more surely without its neighbours, see the module
    docstring), then the earliest."""
    if selector is not None and selector.name != DEFAULT_SELECTOR:
        return selector.rank(claim, [u.window.text for u in units], 1)[0]
    wanted = content_words(claim)
    scores = [word_overlap(wanted, u.words) for u in units]
    return min(range(len(units)), key=lambda i: (-scores[i], len(units[i].window.text), i))


def attribute(
    judge: NLIJudge,
    groups: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    session: JudgeSession | None = None,
    granularity: Granularity = "both",
    unit_sentences: int = DEFAULT_UNIT_SENTENCES,
    locate_sentence: bool = True,
    batch_size: int | None = None,
    show_progress_bar: bool = False,
    max_units: int | None = DEFAULT_MAX_UNITS,
    accept_at: float | None = None,
    signals: bool = False,
    candidates: str | Selector = DEFAULT_SELECTOR,
    locate: Locate = DEFAULT_LOCATE,
    units: bool = False,
    contrasts: bool = True,
    verdict: ClaimVerdict | None = None,
    options: RunOptions | None = None,
) -> list[list[Support]]:
    """Support of each claim by its group's contexts.

    Args:
        groups: ``(claims, contexts)`` per row. Empty or whitespace-only contexts are skipped;
            a claim with no usable context gets probability 0.0 and no evidence.
        session: the run's `JudgeSession` (verdict cache, memos, counters); ``None``: a
            short-lived one for this call.
        granularity: which units are judged (see the module docstring).
        unit_sentences: sentences per short unit (1: each sentence alone; k: every run of k
            consecutive sentences). Not used with ``granularity="window"``.
        locate_sentence: with ``granularity="window"``, narrow each claim's evidence from the
            winning window to its best sentence (one extra, small judge call). With sentence
            units the best sentence is known already.
        max_units: judge each claim against at most this many units of its group: those
            sharing the largest share of the claim's content words (ties: the earlier unit).
            ``None`` judges every unit. Default: `DEFAULT_MAX_UNITS`.
        accept_at: judge each claim first against its closest unit only, and accept it there
            when the probability reaches ``accept_at`` (see the module docstring); ``None``:
            judge every chosen unit, so each claim gets its highest probability.
        signals: also compute each claim's verdict signals (`Support.signals`) from the units
            it was judged against; no extra judge call.
        candidates: how the ``max_units`` units are chosen: a selector name of
            `localeval.evidence.candidates` (``"overlap"``, ``"bm25"``, ``"embedding"``,
            ``"hybrid"``) or a `Selector`.
        locate: how ``locate_sentence`` finds the best sentence of a winning unit that holds
            several: ``"words"`` (the default), the sentence holding most of the claim's content
            words (ties: the earlier), no judge call; ``"judge"``, each of its sentences judged
            (one small extra call per such claim; on the bulk benchmark's rows more than half of
            all pairs). Probabilities and verdicts are the same either way, only the evidence
            sentence may differ: benchmarks/results/candidates.md.
        units: also list every unit each claim was judged against, with its probability
            (`Support.units`); no extra judge call.
        contrasts: let the contrast rules overrule the judge on a unit that states the
            opposite of the claim (see the module docstring; `Support.contrast` says why).
        verdict: a claim verdict stored with the judge (`VerdictModel` or `CoverageVerdict`):
            each claim's probability is its P(supported) from its signals (`Support.signals`, computed without extra judge
            calls), the judge's own in `Support.judge_probability`. ``accept_at`` is then a
            bar on P(supported): a claim is accepted on its first unit when that unit's
            P(entailment) already lifts the verdict over it (``entailment_needed``),
            so verdicts are those of judging every unit.
        options: a metric's `RunOptions`, in place of ``batch_size``, ``max_units``,
            ``candidates``, ``locate`` and ``contrasts`` (given beside it, they are refused).
    Returns:
        per group, one `Support` per claim, in order.
    """
    if options is not None:
        if (batch_size, max_units, candidates, locate, contrasts) != (None, DEFAULT_MAX_UNITS, DEFAULT_SELECTOR,
                                                                     DEFAULT_LOCATE, True):
            raise TypeError("attribute: give options= or the option keywords, not both")
        batch_size, max_units, candidates, locate, contrasts = (
            options.batch_size, options.max_units, options.candidates, options.locate, options.contrasts)
    if granularity not in ("both", "window", "sentence"):
        raise ValueError(f"granularity must be 'both', 'window' or 'sentence', got {granularity!r}")
    if unit_sentences < 1:
        raise ValueError(f"unit_sentences must be >= 1, got {unit_sentences}")
    if max_units is not None and max_units < 1:
        raise ValueError(f"max_units must be >= 1 or None, got {max_units}")
    if locate not in ("words", "judge"):
        raise ValueError(f"locate must be 'words' or 'judge', got {locate!r}")
    if accept_at is not None and not 0.0 <= accept_at <= 1.0:
        raise ValueError(f"accept_at must be in [0, 1] or None, got {accept_at}")
    settings = _Settings(
        granularity=granularity, unit_sentences=unit_sentences, locate_sentence=locate_sentence,
        batch_size=batch_size, show_progress_bar=show_progress_bar, max_units=max_units, accept_at=accept_at,
        signals=signals or verdict is not None, selector=get_selector(candidates), locate=locate, units=units,
        contrasts=contrasts, verdict=verdict,
    )
    with session_scope(session) as run:
        return _attribute(run, judge, groups, settings)


# --------------------------------------------------------------------------- the stages
#
# plan units -> judge -> contrast check -> evidence -> finish. Each stage reads what the
# stages before it returned and returns new values; nothing is changed in place, so each
# can be read (and tested) alone.


@dataclass(frozen=True)
class _Settings:
    """`attribute`'s arguments, checked, as one value the stages share."""

    granularity: Granularity
    unit_sentences: int
    locate_sentence: bool
    batch_size: int | None
    show_progress_bar: bool
    max_units: int | None
    accept_at: float | None
    signals: bool
    """Compute each claim's verdict signals (asked for, or needed by ``verdict``)."""
    selector: Selector
    locate: Locate
    units: bool
    contrasts: bool
    verdict: ClaimVerdict | None


class _Candidate(NamedTuple):
    """One unit a claim is judged against, and where its pair sits in the plan's pairs."""

    pair: int
    unit: _Unit


@dataclass(frozen=True)
class _ClaimPlan:
    """One claim of one group, the group's contexts, and the units it is judged against."""

    claim: str
    contexts: tuple[str, ...]
    candidates: tuple[_Candidate, ...]
    """Empty when the group has no usable context: the claim gets probability 0."""


@dataclass(frozen=True)
class _Plan:
    """Every pair of one call: ``rows[g][k]`` is claim ``k`` of group ``g``; a claim's
    candidates index ``pairs`` (premise, claim) and ``sources`` (all of the group's contexts
    joined: where a contrast rule looks a number up)."""

    rows: tuple[tuple[_ClaimPlan, ...], ...]
    pairs: tuple[tuple[str, str], ...]
    sources: tuple[str, ...]

    def keyed(self) -> Iterator[tuple[tuple[int, int], _ClaimPlan]]:
        """``((g, k), claim)`` for every claim of every group, in order."""
        return (((g, k), c) for g, row in enumerate(self.rows) for k, c in enumerate(row))

    def cut(self, accepted: Mapping[tuple[int, int], int]) -> _Plan:
        """A new plan in which claim ``(g, k)`` of ``accepted`` keeps only its candidate whose
        pair is ``accepted[(g, k)]`` (what early acceptance judged)."""
        return replace(self, rows=tuple(
            tuple(replace(c, candidates=tuple(x for x in c.candidates if x.pair == accepted[(g, k)]))
                  if (g, k) in accepted else c for k, c in enumerate(row))
            for g, row in enumerate(self.rows)))


class _Judged(NamedTuple):
    """What the judge said: P(entailment) and P(contradiction) per pair of ``plan`` (NaN for a
    pair never judged), and the contrast reasons read while judging (pair -> reason)."""

    plan: _Plan
    probs: np.ndarray
    contra: np.ndarray
    reasons: dict[int, str | None]


class _Checked(NamedTuple):
    """P(entailment) per pair after the contrast rules: a pair a rule fired on is cut by
    `CONTRAST_WEIGHT` (listed in ``weighted``); ``reasons``: every reason read (None: no rule
    fired; a pair read in round 1 is not cut when a better unit of its claim passes)."""

    probs: np.ndarray
    weighted: frozenset[int]
    reasons: dict[int, str | None]
    confirmed: dict[int, str] = {}
    """Pairs the order confirmation raised (`_confirm`), with its reason."""


class _Found(NamedTuple):
    """A claim's best candidate, its probability, and the window its evidence is."""

    best: _Candidate
    probability: float
    window: Window
    sentences: tuple[Window, ...] = ()
    """With ``locate="judge"``, the sentences still to judge (the best becomes the evidence)."""


def _attribute(session: JudgeSession, judge: NLIJudge, groups: Sequence[tuple[Sequence[str], Sequence[str]]],
               settings: _Settings) -> list[list[Support]]:
    plan = _plan(session, judge, groups, settings)
    bars = _acceptance_bars(plan, settings)
    judged = _judge(session, judge, plan, bars, settings)
    checked = _check_contrasts(session, judged, bars, settings)
    found = [[_evidence(c, checked.probs, settings) for c in row] for row in judged.plan.rows]
    found = _locate_by_judge(session, judge, judged.plan, found, settings)
    return [[_finish(c, f, judged, checked, settings) for c, f in zip(row, row_found)]
            for row, row_found in zip(judged.plan.rows, found)]


def _plan(session: JudgeSession, judge: NLIJudge, groups: Sequence[tuple[Sequence[str], Sequence[str]]],
          settings: _Settings) -> _Plan:
    """Stage 1: cut every context into units and choose each claim's candidates (at most
    ``max_units``, by the selector); one (unit, claim) pair per candidate."""
    pairs: list[tuple[str, str]] = []
    sources: list[str] = []
    rows = []
    for claims, contexts in groups:
        units = _context_units(session, judge, claims, contexts, settings)
        source = "\n".join(contexts)
        row = []
        for claim in claims:
            chosen = (units if settings.max_units is None or len(units) <= settings.max_units
                      else _closest(claim, units, settings.max_units, settings.selector))
            row.append(_ClaimPlan(claim, tuple(contexts),
                                  tuple(_Candidate(len(pairs) + k, unit) for k, unit in enumerate(chosen))))
            pairs.extend((unit.window.text, claim) for unit in chosen)
            sources.extend(source for _ in chosen)
        rows.append(tuple(row))
    return _Plan(tuple(rows), tuple(pairs), tuple(sources))


def _context_units(session: JudgeSession, judge: NLIJudge, claims: Sequence[str], contexts: Sequence[str],
                   settings: _Settings) -> list[_Unit]:
    """Every unit of a group's usable contexts, sized to fit beside its longest claim."""
    budget = session.premise_budget(judge, claims) if claims else judge.max_length
    units: list[_Unit] = []
    for ci, context in enumerate(contexts):
        if not context or not context.strip():
            continue
        windows, singles = _units(session, judge, context, budget, settings.granularity, settings.unit_sentences)
        spans = [(s.start, s.end) for s in split_sentences(context)]
        for part, short in ((windows, False), (singles, True)):
            units.extend(_Unit(ci, w, short, words_of_run(context, w.start, w.end, [spans[i] for i in w.sentence_indices]))
                         for w in part)
    return units


def _acceptance_bars(plan: _Plan, settings: _Settings) -> np.ndarray | None:
    """Per pair: the P(entailment) at which its claim is accepted on that unit (``None``
    without ``accept_at``). ``accept_at`` itself for the bare judge; with a verdict, the
    claim's own bar from its word signals (infinite, i.e. judge every unit, when the verdict
    reads more than ``p_best``)."""
    if settings.accept_at is None:
        return None
    bars = np.full(len(plan.pairs), settings.accept_at, dtype=np.float64)
    if settings.verdict is None:
        return bars
    for _, c in plan.keyed():
        if c.candidates:
            needed = settings.verdict.entailment_needed(lexical_signals(c.claim, _usable(c.contexts)), settings.accept_at)
            bars[[x.pair for x in c.candidates]] = np.inf if needed is None else needed
    return bars


def _judge(session: JudgeSession, judge: NLIJudge, plan: _Plan, bars: np.ndarray | None,
           settings: _Settings) -> _Judged:
    """Stage 2: P(entailment) (and P(contradiction)) of the plan's pairs: all in one call, or
    under early acceptance (``bars``) in two rounds: round 1 judges each claim's first unit,
    which accepts the claim when its probability reaches the pair's bar and no contrast rule
    fires on it; round 2 the other units of the claims round 1 did not accept. The plan
    returned judges an accepted claim against its first unit only; pairs never judged are NaN."""
    if bars is None:
        probs, contra = _judge_pairs(session, judge, plan, list(range(len(plan.pairs))), settings)
        return _Judged(plan, probs, contra, {})
    probs = np.full(len(plan.pairs), np.nan, dtype=np.float32)
    contra = np.full(len(plan.pairs), np.nan, dtype=np.float32)
    firsts = {key: c.candidates[_first_to_judge(c.claim, [x.unit for x in c.candidates], settings.selector)].pair
              for key, c in plan.keyed() if c.candidates}
    index = list(firsts.values())
    if index:
        probs[index], contra[index] = _judge_pairs(session, judge, plan, index, settings)
    # Compared as Python floats, as the metrics compare a probability with their threshold.
    passing = [i for i in index if float(probs[i]) >= bars[i]]
    reasons = _read_contrasts(session, plan, passing, {}) if settings.contrasts else {}
    accepted = {key: i for key, i in firsts.items() if float(probs[i]) >= bars[i] and reasons.get(i) is None}
    rest = [x.pair for key, c in plan.keyed() if key in firsts and key not in accepted
            for x in c.candidates if x.pair != firsts[key]]
    if rest:
        probs[rest], contra[rest] = _judge_pairs(session, judge, plan, rest, settings)
    return _Judged(plan.cut(accepted), probs, contra, reasons)


def _judge_pairs(session: JudgeSession, judge: NLIJudge, plan: _Plan, index: list[int],
                 settings: _Settings) -> tuple[np.ndarray, np.ndarray]:
    """P(entailment) and, with signals, P(contradiction) of the plan's pairs at ``index``, from
    one judge call (P(contradiction) is 0 when not asked, and for a 2-way judge)."""
    batch = session.batch(judge, batch_size=settings.batch_size, show_progress_bar=settings.show_progress_bar)
    # The claim's numbers in the unit's notation ("twelve degrees Celsius" against "12 °C"):
    # the judge reads surfaces (`localeval.text.notation`).
    batch.add("units", [(unit, restated(claim, unit)) for unit, claim in (plan.pairs[i] for i in index)]).run()
    if not settings.signals:
        return batch.get("units"), np.zeros(len(index), dtype=np.float32)
    return batch.get("units"), batch.contradiction("units")


def _read_contrasts(session: JudgeSession, plan: _Plan, index: Sequence[int], known: Mapping[int, str | None],
                    probs: np.ndarray | None = None, bars: np.ndarray | None = None) -> dict[int, str | None]:
    """The contrast reason (None: no rule fired) of each pair at ``index`` not in ``known``,
    read in one batch per rule set, so the session fetches stored reasons in one query. With
    ``probs`` and ``bars``, a pair the judge does not accept skips the rules that parse (role,
    merge): the parse is the costly part, and there they could not change a verdict. (An
    infinite bar -- a verdict that reads more of the judge than p_best -- means every unit
    may still decide, so every rule reads it.)"""
    todo = [i for i in dict.fromkeys(index) if i not in known]
    cheap = ([i for i in todo if float(probs[i]) < bars[i] < np.inf]
             if probs is not None and bars is not None else [])
    found: dict[int, str | None] = {}
    for rules, part in ((RULES_WITHOUT_PARSE, cheap), (CONTRAST_RULES, sorted(set(todo) - set(cheap)))):
        if part:
            triples = [(plan.pairs[i][1], plan.pairs[i][0], plan.sources[i]) for i in part]
            found.update(zip(part, session.contrasts(triples, rules)))
    return found


def _check_contrasts(session: JudgeSession, judged: _Judged, bars: np.ndarray | None,
                     settings: _Settings) -> _Checked:
    """Stage 3: the contrast rules on each claim's units, best first, until one no rule fires
    on: the units below it cannot win the max either way, so they are not read (they keep
    their probability). Read in rounds (every claim's next unit at once), each one batch."""
    if not settings.contrasts:
        return _Checked(judged.probs, frozenset(), {})
    probs = np.array(judged.probs, dtype=np.float32)  # a copy: the judged probabilities stay as judged
    reasons = dict(judged.reasons)
    cut: set[int] = set()
    queues = [sorted((x.pair for x in c.candidates if not np.isnan(judged.probs[x.pair])),
                     key=lambda i: -judged.probs[i])
              for _, c in judged.plan.keyed()]
    queues = [q for q in queues if q]
    while queues:
        heads = [q[0] for q in queues]
        reasons.update(_read_contrasts(session, judged.plan, heads, reasons, judged.probs, bars))
        fired = [reasons[i] is not None for i in heads]
        for i, hit in zip(heads, fired):
            if hit:
                probs[i] *= CONTRAST_WEIGHT  # element by element: the rounding of a float32 scalar
                cut.add(i)
        queues = [q[1:] for q, hit in zip(queues, fired) if hit and len(q) > 1]
    passages = _passages(judged.plan)
    _check_across(session, judged.plan, passages, probs, cut, reasons)
    return _Checked(probs, frozenset(cut), reasons, _confirm(judged.plan, probs, cut, passages))


def _judged_pairs(c: _ClaimPlan, probs: np.ndarray) -> list[int]:
    return [x.pair for x in c.candidates if not np.isnan(probs[x.pair])]


def _passages(plan: _Plan) -> dict[tuple[int, int], str]:
    """Per claim that orders or compares things: its `dated_passage`, the dated sentences of
    all its contexts in one text (no entry where there is none)."""
    found = {key: dated_passage(c.claim, c.contexts) for key, c in plan.keyed() if c.candidates}
    return {key: passage for key, passage in found.items() if passage is not None}


def _check_across(session: JudgeSession, plan: _Plan, passages: Mapping[tuple[int, int], str], probs: np.ndarray,
                  cut: set[int], reasons: dict[int, str | None]) -> None:
    """Stage 3a: the rules of `ACROSS_RULES` on each claim's dated passage. Where one fires,
    the contexts taken together refute the claim, whichever unit the judge liked: every
    judged unit of it not cut yet is cut, with that reason."""
    keyed = dict(plan.keyed())
    asked = [(key, passage) for key, passage in passages.items() if _judged_pairs(keyed[key], probs)]
    found = session.contrasts([(keyed[key].claim, passage, passage) for key, passage in asked], ACROSS_RULES)
    for (key, _), reason in zip(asked, found):
        if reason is None:
            continue
        for i in _judged_pairs(keyed[key], probs):
            if i not in cut:
                probs[i] *= CONTRAST_WEIGHT
                cut.add(i)
                reasons[i] = _across(reason)


def _confirm(plan: _Plan, probs: np.ndarray, weighted: set[int],
             passages: Mapping[tuple[int, int], str]) -> dict[int, str]:
    """Stage 3b: raise, in ``probs`` (the contrast stage's own copy), the unit whose dates or
    numbers bear out a claim's order or comparison (`localeval.text.contrast_rules.confirmation`)
    to ``1 - (1 - p) * CONTRAST_WEIGHT``: above every decision threshold, still ordered. Read on
    a claim's units best first, until one confirms, then on its dated passage (the contexts
    taken together: the best unit is raised), and only for claims no unit of which reaches
    that floor already and no contrast rule overruled (conflicting evidence is left to the
    judge). Returns each raised pair with its reason."""
    out: dict[int, str] = {}
    floor = 1.0 - CONTRAST_WEIGHT
    asked: list[tuple[tuple[int, int], _ClaimPlan, list[int]]] = []
    for key, c in plan.keyed():
        judged = _judged_pairs(c, probs)
        if judged and not any(i in weighted for i in judged) and max(probs[i] for i in judged) < floor:
            asked.append((key, c, sorted(judged, key=lambda i: -probs[i])))
    # What the confirmations read, parsed in batches up front (the same parses, made faster).
    parse_confirmations([plan.pairs[i][::-1] for _, _, ranked in asked for i in ranked]
                        + [(c.claim, passages[key]) for key, c, _ in asked if key in passages])
    for key, c, ranked in asked:
        found = _confirmations(plan, ranked, c.claim, passages.get(key))
        i, reason = next(((i, reason) for i, reason in found if reason is not None), (None, None))
        if i is not None:
            probs[i] = 1.0 - (1.0 - probs[i]) * CONTRAST_WEIGHT
            out[i] = reason
    return out


def _confirmations(plan: _Plan, ranked: list[int], claim: str, passage: str | None) -> Iterator[tuple[int, str | None]]:
    """(pair, `confirmation`) of a claim's units best first, then of its dated passage (on
    the best unit): read lazily, so what follows the first confirmation is never read."""
    for i in ranked:
        yield i, confirmation(plan.pairs[i][1], plan.pairs[i][0])
    if passage is not None:
        yield ranked[0], _across(confirmation(claim, passage))


def _across(reason: str | None) -> str | None:
    return None if reason is None else f"{reason} (the contexts taken together)"


def _evidence(c: _ClaimPlan, probs: np.ndarray, settings: _Settings) -> _Found | None:
    """Stage 4: a claim's best candidate and its evidence: a window that won gives way to its
    best short unit (already judged, the sharper evidence); several sentences are narrowed to
    the one holding most of the claim's words, or (``locate="judge"``) listed for
    `_locate_by_judge`. ``None`` for a claim without candidates."""
    if not c.candidates:
        return None
    best = max(c.candidates, key=lambda x: probs[x.pair])
    window = best.unit.window
    if not best.unit.sentence:
        inside = [x for x in c.candidates
                  if x.unit.sentence and x.unit.context_index == best.unit.context_index
                  and window.start <= x.unit.window.start and x.unit.window.end <= window.end]
        if inside:
            window = max(inside, key=lambda x: probs[x.pair]).unit.window
    probability = float(probs[best.pair])
    if not settings.locate_sentence or len(window.sentence_indices) <= 1:
        return _Found(best, probability, window)
    split = split_sentences(c.contexts[best.unit.context_index])
    indices = window.sentence_indices
    if settings.locate == "words":  # the sentence holding most of the claim's words, for free
        shares = overlap_scores(c.claim, [split[si].text for si in indices])
        return _Found(best, probability, _sentence(split, indices[max(range(len(indices)), key=lambda j: (shares[j], -j))]))
    return _Found(best, probability, window, tuple(_sentence(split, si) for si in indices))


def _sentence(split: Sequence[Span], index: int) -> Window:
    """Sentence ``index`` of a context's split, as a one-sentence window."""
    s = split[index]
    return Window(text=s.text, start=s.start, end=s.end, sentence_indices=(index,))


def _locate_by_judge(session: JudgeSession, judge: NLIJudge, plan: _Plan, found: list[list[_Found | None]],
                     settings: _Settings) -> list[list[_Found | None]]:
    """Stage 4b (``locate="judge"``): the sentences `_evidence` listed, judged in one small
    extra call; each such claim's evidence becomes its best sentence (ties: the earlier)."""
    batch = session.batch(judge, batch_size=settings.batch_size)
    for (g, k), c in plan.keyed():
        f = found[g][k]
        if f is not None and f.sentences:
            batch.add((g, k), [(s.text, restated(c.claim, s.text)) for s in f.sentences])
    if not len(batch):
        return found
    batch.run()

    def located(key: tuple[int, int], f: _Found | None) -> _Found | None:
        if f is None or not f.sentences:
            return f
        probs = batch.get(key)
        return f._replace(window=f.sentences[max(range(len(f.sentences)), key=lambda j: probs[j])], sentences=())

    return [[located((g, k), f) for k, f in enumerate(row)] for g, row in enumerate(found)]


def _finish(c: _ClaimPlan, found: _Found | None, judged: _Judged, checked: _Checked, settings: _Settings) -> Support:
    """Stage 5: a claim's `Support`: its probability and evidence; why a contrast rule
    overruled the unit the judge liked best; with ``units``, every unit judged; with
    ``signals``, its verdict signals; with a verdict, the verdict's P(supported)."""
    probs = checked.probs
    fields: dict[str, Any] = {"probability": 0.0}
    reason = None
    if found is not None:
        best = found.best
        fields["probability"] = found.probability
        fields["evidence"] = Evidence(context_index=best.unit.context_index, text=found.window.text,
                                      start=found.window.start, end=found.window.end,
                                      window_start=best.unit.window.start, window_end=best.unit.window.end)
        liked = [(probs[x.pair] / CONTRAST_WEIGHT, x.pair) for x in c.candidates if x.pair in checked.weighted]
        if liked and max(liked)[0] > probs[best.pair]:
            reason = fields["contrast"] = checked.reasons[max(liked)[1]]
        raised = [checked.confirmed[x.pair] for x in c.candidates if x.pair in checked.confirmed]
        if raised:
            fields["confirmation"] = raised[0]
    if settings.units:
        # Pairs never judged (early acceptance) are NaN: left out.
        fields["units"] = [JudgedSpan(context_index=x.unit.context_index, sentence_indices=x.unit.window.sentence_indices,
                                      short=x.unit.sentence, probability=float(probs[x.pair]))
                           for x in c.candidates if not np.isnan(probs[x.pair])]
    if settings.signals:
        fields.update(_signals(c, found, judged, probs, reason is not None, settings.verdict, fields["probability"]))
    return Support(**fields)


def _signals(c: _ClaimPlan, found: _Found | None, judged: _Judged, probs: np.ndarray, contrast: bool,
             verdict: ClaimVerdict | None, probability: float) -> dict[str, Any]:
    """A claim's verdict signals from the units it was judged against (a claim without any:
    from its words alone) and, with a verdict, its P(supported) in place of the judge's."""
    units = [JudgedUnit(x.unit.window.text, x.unit.sentence, float(probs[x.pair]), float(judged.contra[x.pair]))
             for x in c.candidates]
    signals = ((claim_signals(c.claim, units, c.contexts, contrast=contrast) if c.candidates else None)
               or claim_signals(c.claim, [], _usable(c.contexts)))
    if verdict is None:
        return {"signals": signals}
    return {"signals": signals, "judge_probability": probability, "deciding": verdict.deciding(signals),
            "probability": verdict.supported(signals) if found is not None else 0.0}


def _usable(contexts: Sequence[str]) -> list[str]:
    """The contexts a claim can be judged against (neither empty nor whitespace only)."""
    return [c for c in contexts if c and c.strip()]
