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
(`localeval.text.contrasts`) has its P(entailment) multiplied by `CONTRAST_WEIGHT`, so it
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

Work is grouped: `attribute` takes many (claims, contexts) groups -- one per dataset row --
and sends all their pairs to the judge in one call (a `PairBatch` of the run's
`JudgeSession`), so batches stay full across rows. The units of a context and the token
counts that size them are remembered by the session, not by the judge.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel

from localeval.backends.candidates import (
    DEFAULT_SELECTOR,
    SELECTORS,
    Selector,
    get_selector,
    overlap_scores,
    overlap_select,
    select,
    words_of_run,
)
from localeval.backends.nli import NLIJudge
from localeval.backends.session import JudgeSession, session_scope
from localeval.backends.verdict import (
    ClaimVerdict,
    JudgedUnit,
    claim_signals,
    lexical_signals,
)
from localeval.options import DEFAULT_LOCATE, DEFAULT_MAX_UNITS, Locate, RunOptions
from localeval.text import Window, make_windows, split_sentences
from localeval.text.contrasts import CONTRAST_RULES, RULES_WITHOUT_PARSE, confirmation
from localeval.text.lexical import content_words, word_overlap

__all__ = ["CONTRAST_WEIGHT", "DEFAULT_LOCATE", "DEFAULT_MAX_UNITS", "DEFAULT_UNIT_SENTENCES", "Evidence",
           "Granularity", "JudgedSpan", "Support", "attribute"]

Granularity = Literal["both", "window", "sentence"]
DEFAULT_UNIT_SENTENCES = 2
CONTRAST_WEIGHT = 0.1
"""P(entailment) of a unit is multiplied by this when a contrast rule finds that the unit
states the opposite of the claim (`localeval.text.contrasts`): below every decision threshold,
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
    (`localeval.backends.verdict.claim_signals`), from the units it was judged against."""
    contrast: str | None = None
    """Why the unit the judge liked best did not decide: a contrast rule found that it states
    the opposite of the claim (`localeval.text.contrasts`); ``None`` when no rule overruled."""
    confirmation: str | None = None
    """Why the unit that decided was raised: its dates or numbers bear out the claim's order or
    comparison, which the judge cannot check (`localeval.text.contrasts.confirmation`)."""
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
    """The unit's content words (`localeval.backends.candidates.words_of_run`): what the
    default candidate selection ranks it by."""


def _units(session: JudgeSession, judge: NLIJudge, text: str, budget: int, granularity: str,
           unit_sentences: int) -> tuple[list[Window], list[Window]]:
    """(windows, short units) of one context, remembered by the session (the judge's tokenizer
    sizes them) because rows and metrics share contexts, and stored with the session's
    analyses when it has a cache file (under the judge's identity and this code's)."""
    def build() -> tuple[list[Window], list[Window]]:
        return _build_units(session.token_counter(judge), text, budget, granularity, unit_sentences)

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

    return splitter_identity() + code_identity(("localeval.backends.attribution", "localeval.text.windows",
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


def _build_units(count: Callable[[str], int], text: str, budget: int, granularity: str,
                 unit_sentences: int) -> tuple[list[Window], list[Window]]:
    sentences = split_sentences(text)
    if not sentences:
        return [], []
    windows = make_windows(text, sentences, count, budget) if granularity != "sentence" else []
    short: list[Window] = []
    if granularity != "window":
        if unit_sentences == 1:
            for i, sentence in enumerate(sentences):
                # An over-long sentence is read in word-aligned pieces, exactly as windows are.
                pieces = make_windows(text, [sentence], count, budget)
                short.extend(w.model_copy(update={"sentence_indices": (i,)}) for w in pieces)
        else:
            # Every run of `unit_sentences` consecutive sentences (sliding by one sentence).
            short = make_windows(text, sentences, count, budget, overlap=unit_sentences - 1,
                                 max_sentences=unit_sentences)
        if granularity == "both":
            # A window that is also a short unit is judged once.
            seen = {(w.start, w.end) for w in short}
            windows = [w for w in windows if (w.start, w.end) not in seen]
    return windows, short


def _closest(claim: str, units: list[_Unit], k: int, selector: str | Selector = DEFAULT_SELECTOR) -> list[_Unit]:
    """The ``k`` units ``selector`` ranks best for the claim (`localeval.backends.candidates`;
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
            `localeval.backends.candidates` (``"overlap"``, ``"bm25"``, ``"embedding"``,
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
    with session_scope(session) as run:
        return _attribute(run, judge, groups, granularity, unit_sentences, locate_sentence, batch_size,
                          show_progress_bar, max_units, accept_at, signals or verdict is not None, candidates, locate,
                          units, contrasts, verdict)


def _attribute(
    session: JudgeSession,
    judge: NLIJudge,
    groups: Sequence[tuple[Sequence[str], Sequence[str]]],
    granularity: Granularity,
    unit_sentences: int,
    locate_sentence: bool,
    batch_size: int | None,
    show_progress_bar: bool,
    max_units: int | None,
    accept_at: float | None,
    signals: bool,
    candidates: str | Selector,
    locate: Locate,
    with_units: bool = False,
    contrasts: bool = True,
    verdict: ClaimVerdict | None = None,
) -> list[list[Support]]:
    selector = get_selector(candidates)
    pairs: list[tuple[str, str]] = []
    sources: list[str] = []  # per pair: all the contexts of its group (what a number is looked up in)
    # per group, per claim: list of (pair index, unit)
    plan: list[list[list[tuple[int, _Unit]]]] = []
    for claims, contexts in groups:
        budget = session.premise_budget(judge, claims) if claims else judge.max_length
        units: list[_Unit] = []
        for ci, context in enumerate(contexts):
            if not context or not context.strip():
                continue
            windows, singles = _units(session, judge, context, budget, granularity, unit_sentences)
            spans = [(s.start, s.end) for s in split_sentences(context)]
            for part, short in ((windows, False), (singles, True)):
                units.extend(_Unit(ci, w, short, words_of_run(context, w.start, w.end, [spans[i] for i in w.sentence_indices]))
                             for w in part)
        group_plan = []
        source = "\n".join(contexts)
        for claim in claims:
            chosen = units if max_units is None or len(units) <= max_units else _closest(claim, units, max_units, selector)
            group_plan.append([(len(pairs) + k, unit) for k, unit in enumerate(chosen)])
            pairs.extend((unit.window.text, claim) for unit in chosen)
            sources.extend(source for _ in chosen)
        plan.append(group_plan)

    judge_pairs = _nli_judge(session, judge, batch_size, show_progress_bar, signals)
    bars = None if accept_at is None else _acceptance_bars(groups, plan, len(pairs), accept_at, verdict)
    overruled: dict[int, str | None] = {}  # pair index -> the contrast rule's reason (None: none fired)

    def vetoed(index: list[int], probs: np.ndarray | None = None) -> list[bool]:
        """Does a contrast rule fire on each of these pairs? Read in one batch per rule set,
        so the session fetches stored reasons in one query. With their ``probs``, a pair the
        judge does not accept (under ``accept_at``) skips the rules that parse (role, merge):
        the parse is the costly part, and there they could not change a verdict."""
        todo = [i for i in dict.fromkeys(index) if i not in overruled]
        if todo and not contrasts:
            overruled.update((i, None) for i in todo)
        elif todo:
            # (An infinite bar -- a verdict that reads more of the judge than p_best -- means
            # every unit may still decide, so every rule reads it.)
            cheap = ([i for i in todo if float(probs[i]) < bars[i] < np.inf]
                     if probs is not None and bars is not None else [])
            for rules, part in ((RULES_WITHOUT_PARSE, cheap), (CONTRAST_RULES, sorted(set(todo) - set(cheap)))):
                if part:
                    reasons = session.contrasts([(pairs[i][1], pairs[i][0], sources[i]) for i in part], rules)
                    overruled.update(zip(part, reasons))
        return [overruled[i] is not None for i in index]

    def judge_at(index: list[int]) -> tuple[np.ndarray, np.ndarray]:
        return judge_pairs([pairs[i] for i in index])

    if bars is None:
        probs, contra = judge_at(list(range(len(pairs))))
    else:
        probs, contra = _judge_in_two_rounds(judge_at, pairs, plan, bars, selector, vetoed)
    weighted: set[int] = set()  # pairs whose probability a rule cut
    confirmed: dict[tuple[int, int], str] = {}  # claims a unit's numbers bore out (`_confirm`)
    if contrasts:
        probs = np.array(probs, dtype=np.float32)  # a copy: the batch's own array stays as judged
        # Per claim, its units best first, until one no rule fires on: the units below it
        # cannot win the max either way, so they are not read (they keep their probability).
        # Read in rounds (every claim's next unit at once), each round one batch.
        queues = [sorted((i for i, _ in claim_plan if not np.isnan(probs[i])), key=lambda i: -probs[i])
                  for group_plan in plan for claim_plan in group_plan]
        queues = [q for q in queues if q]
        while queues:
            fired = vetoed([q[0] for q in queues], probs)
            for q, hit in zip(queues, fired):
                if hit:
                    probs[q[0]] *= CONTRAST_WEIGHT
                    weighted.add(q[0])
            queues = [q[1:] for q, hit in zip(queues, fired) if hit and len(q) > 1]
        confirmed = _confirm(pairs, plan, probs, weighted)

    refine_pairs: list[tuple[str, str]] = []
    refine: dict[tuple[int, int], list[tuple[int, Window]]] = {}
    best: dict[tuple[int, int], tuple[float, _Unit, Window]] = {}
    claim_signals_of: dict[tuple[int, int], dict[str, float]] = {}
    reasons: dict[tuple[int, int], str] = {}  # claims whose best-liked unit a contrast rule overruled
    judged_units: dict[tuple[int, int], list[JudgedSpan]] = {}
    for g, ((claims, contexts), group_plan) in enumerate(zip(groups, plan)):
        for k, claim_plan in enumerate(group_plan):
            if not claim_plan:
                continue
            pi, unit = max(claim_plan, key=lambda item: probs[item[0]])
            evidence_window = unit.window
            if not unit.sentence:
                # A window won: its best short unit (already judged) is the sharper evidence.
                inside = [
                    (p, u.window)
                    for p, u in claim_plan
                    if u.sentence and u.context_index == unit.context_index
                    and unit.window.start <= u.window.start and u.window.end <= unit.window.end
                ]
                if inside:
                    evidence_window = max(inside, key=lambda item: probs[item[0]])[1]
            if locate_sentence and len(evidence_window.sentence_indices) > 1 and locate == "words":
                # Still several sentences: the one holding most of the claim's words, for free.
                sentences = split_sentences(contexts[unit.context_index])
                indices = evidence_window.sentence_indices
                shares = overlap_scores(claims[k], [sentences[si].text for si in indices])
                si = indices[max(range(len(indices)), key=lambda j: (shares[j], -j))]
                s = sentences[si]
                evidence_window = Window(text=s.text, start=s.start, end=s.end, sentence_indices=(si,))
            elif locate_sentence and len(evidence_window.sentence_indices) > 1:
                # Still several sentences: one small extra call finds the best one.
                sentences = split_sentences(contexts[unit.context_index])
                candidates = []
                for si in evidence_window.sentence_indices:
                    s = sentences[si]
                    candidates.append((len(refine_pairs), Window(text=s.text, start=s.start, end=s.end, sentence_indices=(si,))))
                    refine_pairs.append((s.text, claims[k]))
                refine[(g, k)] = candidates
            best[(g, k)] = (float(probs[pi]), unit, evidence_window)
            liked = [(probs[i] / CONTRAST_WEIGHT, i) for i, _ in claim_plan if i in weighted]
            if liked and max(liked)[0] > probs[pi]:
                reasons[(g, k)] = overruled[max(liked)[1]]
            if with_units:
                # Pairs never judged (early acceptance) are NaN: left out.
                judged_units[(g, k)] = [
                    JudgedSpan(context_index=u.context_index, sentence_indices=u.window.sentence_indices,
                               short=u.sentence, probability=float(probs[i]))
                    for i, u in claim_plan if not np.isnan(probs[i])
                ]
            if signals:
                judged = [JudgedUnit(u.window.text, u.sentence, float(probs[i]), float(contra[i])) for i, u in claim_plan]
                claim_signals_of[(g, k)] = claim_signals(claims[k], judged, contexts, contrast=(g, k) in reasons)

    if refine_pairs:
        refine_probs = session.batch(judge, batch_size=batch_size).add("refine", refine_pairs).run().get("refine")
        for key, candidates in refine.items():
            probability, unit, _ = best[key]
            best[key] = (probability, unit, max(candidates, key=lambda c: refine_probs[c[0]])[1])

    supports = _supports(groups, best)
    for (g, k), reason in reasons.items():
        supports[g][k].contrast = reason
    for (g, k), reason in confirmed.items():
        supports[g][k].confirmation = reason
    if signals:
        for g, (claims, contexts) in enumerate(groups):
            usable = [c for c in contexts if c and c.strip()]
            for k, support in enumerate(supports[g]):
                support.signals = claim_signals_of.get((g, k)) or claim_signals(claims[k], [], usable)
                if verdict is not None:
                    support.judge_probability = support.probability
                    support.probability = verdict.supported(support.signals) if support.evidence is not None else 0.0
                    support.deciding = verdict.deciding(support.signals)
    if with_units:
        for g, row in enumerate(supports):
            for k, support in enumerate(row):
                support.units = judged_units.get((g, k), [])
    return supports


def _confirm(pairs: list[tuple[str, str]], plan: list, probs: np.ndarray, weighted: set[int]) -> dict[tuple[int, int], str]:
    """Raise, in place, the unit whose dates or numbers bear out a claim's order or comparison
    (`localeval.text.contrasts.confirmation`) to ``1 - (1 - p) * CONTRAST_WEIGHT``: above every
    decision threshold, still ordered. Read on a claim's units best first, until one confirms,
    and only for claims no unit of which reaches that floor already and no contrast rule
    overruled (conflicting evidence is left to the judge). Returns each raised claim's reason."""
    out: dict[tuple[int, int], str] = {}
    floor = 1.0 - CONTRAST_WEIGHT
    for g, group_plan in enumerate(plan):
        for k, claim_plan in enumerate(group_plan):
            judged = [i for i, _ in claim_plan if not np.isnan(probs[i])]
            if not judged or any(i in weighted for i in judged) or max(probs[i] for i in judged) >= floor:
                continue
            for i in sorted(judged, key=lambda i: -probs[i]):
                reason = confirmation(pairs[i][1], pairs[i][0])
                if reason is not None:
                    probs[i] = 1.0 - (1.0 - probs[i]) * CONTRAST_WEIGHT
                    out[(g, k)] = reason
                    break
    return out


def _nli_judge(session: JudgeSession, judge: NLIJudge, batch_size: int | None, show_progress_bar: bool,
              contradiction_too: bool) -> Callable[[list[tuple[str, str]]], tuple[np.ndarray, np.ndarray]]:
    """A function from pairs to their P(entailment) and, when asked, P(contradiction), from one
    forward pass (0 when not asked, and for a 2-way judge, which has no contradiction class)."""

    def judge_pairs(pairs: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
        batch = session.batch(judge, batch_size=batch_size, show_progress_bar=show_progress_bar)
        batch.add("units", pairs).run()
        if not contradiction_too:
            return batch.get("units"), np.zeros(len(pairs), dtype=np.float32)
        return batch.get("units"), batch.contradiction("units")

    return judge_pairs


def _acceptance_bars(groups: Sequence[tuple[Sequence[str], Sequence[str]]], plan: list[list[list[tuple[int, _Unit]]]],
                     n_pairs: int, accept_at: float, verdict: ClaimVerdict | None) -> np.ndarray:
    """Per pair: the P(entailment) at which its claim is accepted on that unit. ``accept_at``
    itself for the bare judge; with a verdict, the claim's own bar from its word signals
    (infinite, i.e. judge every unit, when the verdict reads more than ``p_best``)."""
    bars = np.full(n_pairs, accept_at, dtype=np.float64)
    if verdict is None:
        return bars
    for (claims, contexts), group_plan in zip(groups, plan):
        usable = [c for c in contexts if c and c.strip()]
        for claim, claim_plan in zip(claims, group_plan):
            if claim_plan:
                needed = verdict.entailment_needed(lexical_signals(claim, usable), accept_at)
                bars[[i for i, _ in claim_plan]] = np.inf if needed is None else needed
    return bars


def _judge_in_two_rounds(
    judge_at: Callable[[list[int]], tuple[np.ndarray, np.ndarray]],
    pairs: list[tuple[str, str]],
    plan: list[list[list[tuple[int, _Unit]]]],
    bars: np.ndarray,
    selector: Selector | None = None,
    vetoed: Callable[[list[int]], list[bool]] = lambda index: [False] * len(index),
) -> tuple[np.ndarray, np.ndarray]:
    """P(entailment) and P(contradiction) of ``pairs`` (``judge_at`` judges the pairs at some
    indices) under early acceptance: round 1 judges each claim's first
    unit, which accepts the claim when its P(entailment) reaches the pair's bar (``bars``);
    round 2 the other units of the claims round 1 did not accept. The plan of an accepted
    claim is cut to its first unit in place, so later steps see only judged units (the pairs
    never judged keep NaN). A first unit a contrast rule fires on (``vetoed``) accepts nothing."""
    probs = np.full(len(pairs), np.nan, dtype=np.float32)
    contra = np.full(len(pairs), np.nan, dtype=np.float32)
    # (the claim's plan list, its position, its first (pair index, unit)) for every claim
    firsts = []
    for group_plan in plan:
        for k, claim_plan in enumerate(group_plan):
            if claim_plan:
                claim = pairs[claim_plan[0][0]][1]
                firsts.append((group_plan, k, claim_plan[_first_to_judge(claim, [u for _, u in claim_plan], selector)]))
    if firsts:
        index = [first[0] for _, _, first in firsts]
        probs[index], contra[index] = judge_at(index)
    rest: list[int] = []
    # Compared as Python floats, as the metrics compare a probability with their threshold.
    passing = [first[0] for _, _, first in firsts if float(probs[first[0]]) >= bars[first[0]]]
    accepted = {i for i, hit in zip(passing, vetoed(passing)) if not hit}
    for group_plan, k, first in firsts:
        if first[0] in accepted:
            group_plan[k] = [first]
        else:
            rest.extend(i for i, _ in group_plan[k] if i != first[0])
    if rest:
        probs[rest], contra[rest] = judge_at(rest)
    return probs, contra


def _supports(groups, best: dict[tuple[int, int], tuple[float, _Unit, Window]]) -> list[list[Support]]:
    results: list[list[Support]] = []
    for g, (claims, _) in enumerate(groups):
        row: list[Support] = []
        for k in range(len(claims)):
            if (g, k) not in best:
                row.append(Support(probability=0.0))
                continue
            probability, unit, where = best[(g, k)]
            row.append(
                Support(
                    probability=probability,
                    evidence=Evidence(
                        context_index=unit.context_index,
                        text=where.text,
                        start=where.start,
                        end=where.end,
                        window_start=unit.window.start,
                        window_end=unit.window.end,
                    ),
                )
            )
        results.append(row)
    return results
