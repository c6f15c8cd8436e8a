"""A claim's verdict from more than its best unit: signals that cost no extra judge call.

`attribute` judges a claim against several units of the contexts and, by default, keeps the
highest P(entailment): any single unit that fools the judge wins. This module turns what was
already judged (every unit's entailment and contradiction probabilities) and what the words
say (is every number, name and content word of the claim in the evidence? does one side
negate?) into a fixed set of named signals (`claim_signals`), and a `VerdictModel` -- a
logistic regression fitted on development data by ``benchmarks/verdict.py`` and stored with the
judge (``config.json``, ``localeval.verdict``) -- turns them into P(supported), applied with
numpy. Each signal's contribution to the decision is kept, so a verdict can say which
signals decided it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator, model_validator

from localeval.text.lexical import content_words
from localeval.text.coverage import coverage_words
from localeval.text.memo import remembered
from localeval.text.numbers import approximated, numbers_in

__all__ = ["LEXICAL_SIGNALS", "SIGNALS", "ClaimVerdict", "CoverageVerdict", "JudgedUnit", "VerdictModel",
           "claim_signals", "lexical_signals", "lexical_words", "verdict_from_config"]

SIGNALS: tuple[str, ...] = (
    "p_best",             # highest P(entailment) over the judged units (today's verdict)
    "p_sentence",         # highest over the short units (one or two sentences)
    "p_window",           # highest over the windows (several sentences), else p_best
    "p_second",           # second highest over all units (0 with one unit)
    "contradiction",      # P(contradiction) of the unit with the highest P(entailment)
    "contradiction_max",  # highest P(contradiction) over all units
    "coverage",           # share of the claim's `coverage_words` found in the best unit
    "coverage_all",       # the same share over all the contexts
    "missing_numbers",    # share of the claim's numbers absent from all the contexts
    "missing_names",      # share of the claim's capitalised words absent from all the contexts
    "negation_mismatch",  # 1 when exactly one of claim and best unit has a negation
    "contrast",           # 1 when a contrast rule overruled the unit the judge liked best
)
"""Every signal `claim_signals` returns. New signals are appended, never renamed or removed:
a stored `VerdictModel` names the signals it reads and is validated against this list.
The probabilities are those the metric decides on, i.e. after the contrast rules
(`localeval.text.contrast_rules`) cut an overruled unit's P(entailment)."""

_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot n't isn't aren't wasn't weren't "
    "doesn't don't didn't won't wouldn't can't couldn't shouldn't hasn't haven't hadn't".split()
)
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]+")


@dataclass(frozen=True)
class JudgedUnit:
    """One unit a claim was judged against, with the judge's two probabilities."""

    text: str
    sentence: bool
    entailment: float
    contradiction: float


LEXICAL_SIGNALS: tuple[str, ...] = ("coverage_all", "missing_numbers", "missing_names")
"""The signals read from the words alone (claim and contexts): known before any judge call."""


@remembered
def lexical_words(text: str) -> frozenset[str]:
    """Content words with numbers in canonical form ("$3,000" and "3000 dollars" share "3000")."""
    words = {w for w in content_words(text) if not any(c.isdigit() for c in w)}
    return frozenset(words | numbers_in(text))


@remembered
def _has_negation(text: str) -> bool:
    return any(w.lower() in _NEGATIONS for w in _WORD.findall(text.replace("’", "'")))


_NOT_NAMES = frozenset("The A An It This That These Those In On At He She They We I His Her Its Their".split())


def _names(text: str) -> set[str]:
    """Capitalised words not at a sentence start: a cheap stand-in for names (no parse)."""
    return {m.group(0).lower() for m in _NAME.finditer(text.strip()) if m.group(0) not in _NOT_NAMES}


def _share_missing(wanted: set[str] | frozenset[str], found: set[str] | frozenset[str]) -> float:
    return len(wanted - found) / len(wanted) if wanted else 0.0


def _wanted(claim: str, found: frozenset[str]) -> frozenset[str]:
    """The claim's coverage words that ``found`` (coverage words of the evidence) must hold: a
    hedged number it approximates is held ("almost a thousand years" by 476 and 1453;
    `numbers.approximates`), as the number rule reads it."""
    wanted = coverage_words(claim)
    return wanted - approximated(claim, wanted - found, found)


@remembered
def _pooled_words(contexts: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """A row's contexts pooled, read once for all its claims: their `coverage_words`, and every
    word lower-cased (what a name of the claim is looked up in)."""
    everything: set[str] = set()
    for context in contexts:
        everything |= coverage_words(context)
    return frozenset(everything), frozenset(w.lower() for context in contexts for w in _WORD.findall(context))


def lexical_signals(claim: str, contexts: Sequence[str]) -> dict[str, float]:
    """The signals of `LEXICAL_SIGNALS`: is every content word, number and name of the claim
    somewhere in the contexts?"""
    everything, context_words = _pooled_words(tuple(contexts))
    wanted = _wanted(claim, everything)
    return {
        "coverage_all": 1.0 - _share_missing(wanted, everything) if wanted else 1.0,
        "missing_numbers": _share_missing(numbers_in(claim) & wanted, everything),
        "missing_names": _share_missing(_names(claim), context_words),
    }


def claim_signals(claim: str, units: Sequence[JudgedUnit], contexts: Sequence[str],
                  contrast: bool = False) -> dict[str, float]:
    """The signals of `SIGNALS` for one claim; ``units`` are those it was judged against (with
    the probabilities the metric decides on), ``contrast`` whether a contrast rule overruled the
    unit the judge liked best (`Support.contrast` is set)."""
    if not units:  # nothing to judge against: every number and name of the claim is missing
        return {name: 0.0 for name in SIGNALS} | {"missing_numbers": float(bool(numbers_in(claim))),
                                                   "missing_names": float(bool(_names(claim)))}
    entail = sorted((u.entailment for u in units), reverse=True)
    best = max(units, key=lambda u: u.entailment)
    sentences = [u.entailment for u in units if u.sentence]
    windows = [u.entailment for u in units if not u.sentence]
    best_words = coverage_words(best.text)
    wanted = _wanted(claim, best_words)
    lexical = lexical_signals(claim, contexts)
    return {
        "p_best": entail[0],
        "p_sentence": max(sentences, default=entail[0]),
        "p_window": max(windows, default=entail[0]),
        "p_second": entail[1] if len(entail) > 1 else 0.0,
        "contradiction": best.contradiction,
        "contradiction_max": max(u.contradiction for u in units),
        "coverage": 1.0 - _share_missing(wanted, best_words) if wanted else 1.0,
        "coverage_all": lexical["coverage_all"],
        "missing_numbers": lexical["missing_numbers"],
        "missing_names": lexical["missing_names"],
        "negation_mismatch": float(_has_negation(claim) != _has_negation(best.text)),
        "contrast": float(contrast),
    }


class VerdictModel(BaseModel):
    """P(supported) = sigmoid(intercept + sum_i coef_i * (signal_i - mean_i) / scale_i).

    Fitted by ``benchmarks/verdict.py`` on development families only and stored in the judge's
    ``config.json`` under ``localeval.verdict``; `threshold` is the decision threshold chosen
    with it.
    """

    kind: Literal["logistic"] = "logistic"
    signals: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float = 0.5
    fitted_on: list[str] = []
    """The development families the coefficients were fitted on (for the model card)."""
    vetoes: list[str] = []
    """Signals that, when set, leave the claim no more supported than the judge found it:
    P(supported) is then at most ``p_best``. ``["contrast"]``: a contrast rule's finding
    (`localeval.text.contrast_rules`) is never outvoted by word overlap."""

    @field_validator("signals", "vetoes")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(SIGNALS))
        if unknown:
            raise ValueError(f"unknown verdict signal(s) {unknown}; known: {list(SIGNALS)}")
        return value

    @model_validator(mode="after")
    def _shapes(self) -> VerdictModel:
        n = len(self.signals)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError("verdict model: signals, mean, scale and coef must have the same length")
        if any(s <= 0 or not math.isfinite(s) for s in self.scale):
            raise ValueError("verdict model: every scale must be a positive finite number")
        return self

    def _terms(self, signals: Mapping[str, float]) -> np.ndarray:
        x = np.asarray([signals[name] for name in self.signals], dtype=np.float64)
        return np.asarray(self.coef) * (x - np.asarray(self.mean)) / np.asarray(self.scale)

    def probability(self, signals: Mapping[str, float]) -> float:
        z = self.intercept + float(self._terms(signals).sum())
        return float(1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0))))

    def probabilities(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        if not rows:
            return np.zeros(0)
        x = np.asarray([[r[name] for name in self.signals] for r in rows], dtype=np.float64)
        z = self.intercept + ((x - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(self.coef)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def supported(self, signals: Mapping[str, float]) -> float:
        """P(supported) of a claim, the vetoes applied (what a metric decides on)."""
        p = self.probability(signals)
        if any(signals[name] for name in self.vetoes):
            p = min(p, signals["p_best"])
        return p

    def entailment_needed(self, lexical: Mapping[str, float], threshold: float) -> float | None:
        """The lowest ``p_best`` at which `supported` reaches ``threshold``, given a claim's
        `LEXICAL_SIGNALS` and no veto; lets a metric accept a claim on its first unit, as with
        the bare judge. ``None`` when the model reads a judged signal other than ``p_best``
        (then every unit must be judged) or does not rise with ``p_best``."""
        judged = set(self.signals) - set(LEXICAL_SIGNALS) - {"p_best"}
        if judged or "p_best" not in self.signals or not 0.0 < threshold < 1.0:
            return None
        i = self.signals.index("p_best")
        if self.coef[i] <= 0:
            return None
        others = self.intercept + sum(c * (lexical[name] - m) / sc for name, m, sc, c
                                      in zip(self.signals, self.mean, self.scale, self.coef) if name != "p_best")
        needed = self.mean[i] + self.scale[i] * (math.log(threshold / (1.0 - threshold)) - others) / self.coef[i]
        # A hair above the exact root, so that rounding can never accept a claim whose
        # verdict, computed afterwards, falls short of the threshold.
        return max(needed, 0.0) + 1e-6

    def deciding(self, signals: Mapping[str, float], top: int = 3) -> list[str]:
        """The signals that moved this verdict most, strongest first, with their direction
        ("coverage +1.20": it pushed towards supported)."""
        terms = self._terms(signals)
        order = np.argsort(-np.abs(terms))[:top]
        return [f"{self.signals[i]} {terms[i]:+.2f}" for i in order]


class CoverageVerdict(BaseModel):
    """P(supported) = p_best * coverage_all ** power: the judge's probability for the claim's
    best unit, discounted by the share of the claim's content words (numbers in canonical
    form) found anywhere in the contexts.

    Why a product and not the fitted `VerdictModel`: fitted on the development families, a
    logistic model learns to let word overlap *raise* claims the judge doubts, which is what
    the hand-written contrast set punishes (every unsupported claim there repeats the
    premise's words). The product can only lower the judge's probability, by as much as words
    are missing, so a claim that adds a date, a place or a name the contexts never mention
    (the development families' commonest error, where overlap beat the judge) loses support,
    while the ranking among fully covered claims stays the judge's. It has no fitted
    coefficient; ``power`` 1 is the plain product. Measured by ``benchmarks/verdict.py
    --coverage-powers`` (``benchmarks/results/verdict_coverage.md``).
    """

    kind: Literal["coverage"] = "coverage"
    power: float = Field(1.0, ge=0.0, le=8.0)
    threshold: float = Field(0.5, gt=0.0, lt=1.0)
    fitted_on: list[str] = []
    """The development families its threshold was chosen on (for the model card)."""
    signals: ClassVar[tuple[str, ...]] = ("p_best", "coverage_all")

    def supported(self, signals: Mapping[str, float]) -> float:
        """P(supported) of a claim (what a metric decides on)."""
        return float(signals["p_best"]) * float(signals["coverage_all"]) ** self.power

    def entailment_needed(self, lexical: Mapping[str, float], threshold: float) -> float | None:
        """The lowest ``p_best`` at which `supported` reaches ``threshold`` given the claim's
        coverage: ``threshold / coverage ** power`` (above 1, or infinite when no word is
        found: no unit can accept the claim early)."""
        covered = float(lexical["coverage_all"]) ** self.power
        if covered <= 0.0:
            return math.inf
        # A hair above the exact root, as for `VerdictModel.entailment_needed`.
        return threshold / covered + 1e-6

    def deciding(self, signals: Mapping[str, float], top: int = 3) -> list[str]:
        """Both factors, the one that lowered the verdict more first ("coverage_all 0.60":
        40 % of the claim's content words are in no context)."""
        terms = sorted(((name, float(signals[name])) for name in self.signals), key=lambda t: t[1])
        return [f"{name} {value:.2f}" for name, value in terms[:top]]


ClaimVerdict = VerdictModel | CoverageVerdict
"""What a judge may store to decide claims by more than their best unit's P(entailment)."""


def verdict_from_config(config: Mapping) -> ClaimVerdict | None:
    """The verdict stored in a judge's config.json (``localeval.verdict``), or ``None``. A
    stored verdict without ``kind`` is a `VerdictModel` (the first kind there was)."""
    stored = (config.get("localeval") or {}).get("verdict")
    if not stored:
        return None
    if stored.get("kind", "logistic") == "coverage":
        return CoverageVerdict.model_validate(stored)
    return VerdictModel.model_validate(stored)
