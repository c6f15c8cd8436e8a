"""Thresholds chosen on a team's own labels, by cross-validation, and how well the chosen
scores agree with the labels out of fold.

The input is a grid: ``scores[k, i]`` is row i's score when the decision threshold is
``thresholds[k]`` (a judged metric re-scored at each threshold, or word overlap decided at each
threshold). Labels are binary (0/1: a row is judged positive when its score is >= 0.5, so a
one-claim row is positive when its claim is supported; agreement is balanced accuracy) or
graded in [0, 1] (agreement is RMSE, or Pearson's r when asked). Each fold's threshold is
chosen on the other folds only, so the agreement reported is what the choice does on rows it
has not seen; the threshold written for use is then chosen on all labelled rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np
from pydantic import BaseModel

__all__ = ["Agreement", "CalibrationFit", "MIN_LABELS", "MIN_PER_CLASS", "Objective", "agreement", "auroc",
           "balanced_accuracy", "cross_validated_threshold", "is_binary", "pearson", "rmse"]

Objective = Literal["ba", "rmse", "pearson"]
MIN_LABELS = 30
"""Fewer labelled rows than this are refused: five folds of six rows choose a threshold by noise."""
MIN_PER_CLASS = 5
"""Binary labels need this many rows of each class (a fold needs both to measure balance)."""
POSITIVE_AT = 0.5
FOLDS = 5


class Figure(NamedTuple):
    value: float
    se: float


def is_binary(labels: np.ndarray) -> bool:
    return bool(np.all((labels == 0.0) | (labels == 1.0)))


def balanced_accuracy(labels: np.ndarray, positive: np.ndarray) -> Figure:
    """Mean of the true-positive and true-negative rates; SE from the two binomial rates."""
    y, p = np.asarray(labels) == 1.0, np.asarray(positive, dtype=bool)
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        return Figure(math.nan, math.nan)
    tpr, tnr = float((p & y).sum() / pos), float((~p & ~y).sum() / neg)
    return Figure((tpr + tnr) / 2, 0.5 * math.sqrt(tpr * (1 - tpr) / pos + tnr * (1 - tnr) / neg))


def auroc(labels: np.ndarray, scores: np.ndarray) -> Figure:
    """Area under the ROC curve (ties count half), SE by Hanley and McNeil (1982)."""
    y, s = np.asarray(labels) == 1.0, np.asarray(scores, dtype=float)
    pos, neg = s[y], s[~y]
    if pos.size == 0 or neg.size == 0:
        return Figure(math.nan, math.nan)
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(order.size)
    ranks[order] = np.arange(1, order.size + 1)
    allv = np.concatenate([pos, neg])
    # Average ranks of tied values.
    _, inverse, counts = np.unique(allv, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    ranks = (sums / counts)[inverse]
    a = float((ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (pos.size - 1) * (q1 - a * a) + (neg.size - 1) * (q2 - a * a)) / (pos.size * neg.size)
    return Figure(a, math.sqrt(max(var, 0.0)))


def pearson(labels: np.ndarray, scores: np.ndarray) -> Figure:
    """Pearson's r, SE sqrt((1 - r^2) / (n - 2)); NaN when either side is constant."""
    y, s = np.asarray(labels, dtype=float), np.asarray(scores, dtype=float)
    if y.size < 3 or np.std(y) == 0 or np.std(s) == 0:
        return Figure(math.nan, math.nan)
    r = float(np.corrcoef(y, s)[0, 1])
    return Figure(r, math.sqrt(max(1 - r * r, 0.0) / (y.size - 2)))


def rmse(labels: np.ndarray, scores: np.ndarray) -> Figure:
    """Root mean squared error, SE by the delta method from the squared errors' spread."""
    e2 = (np.asarray(scores, dtype=float) - np.asarray(labels, dtype=float)) ** 2
    value = math.sqrt(float(e2.mean()))
    se = float(e2.std(ddof=1)) / math.sqrt(e2.size) / (2 * value) if value > 0 and e2.size > 1 else 0.0
    return Figure(value, se)


class Agreement(BaseModel):
    """How a set of row scores agrees with the labels (binary: ba, auroc; graded: rmse, pearson)."""

    n: int
    ba: float | None = None
    ba_se: float | None = None
    auroc: float | None = None
    auroc_se: float | None = None
    rmse: float | None = None
    rmse_se: float | None = None
    pearson: float | None = None
    pearson_se: float | None = None


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


def agreement(labels: Sequence[float] | np.ndarray, scores: Sequence[float] | np.ndarray) -> Agreement:
    y, s = np.asarray(labels, dtype=float), np.asarray(scores, dtype=float)
    if is_binary(y):
        ba, au = balanced_accuracy(y, s >= POSITIVE_AT), auroc(y, s)
        return Agreement(n=int(y.size), ba=_clean(ba.value), ba_se=_clean(ba.se), auroc=_clean(au.value),
                         auroc_se=_clean(au.se))
    err, r = rmse(y, s), pearson(y, s)
    return Agreement(n=int(y.size), rmse=_clean(err.value), rmse_se=_clean(err.se), pearson=_clean(r.value),
                     pearson_se=_clean(r.se))


def _objective(objective: Objective, labels: np.ndarray, scores: np.ndarray) -> float:
    """Higher is better."""
    if objective == "ba":
        value = balanced_accuracy(labels, scores >= POSITIVE_AT).value
    elif objective == "rmse":
        value = -rmse(labels, scores).value
    else:
        value = pearson(labels, scores).value
    return -math.inf if math.isnan(value) else value


def best_threshold(grid: np.ndarray, labels: np.ndarray, objective: Objective) -> int:
    """Index of the best threshold; among equally good ones, the middle one (a plateau's centre
    moves least when the data do)."""
    values = np.array([_objective(objective, labels, row) for row in grid])
    best = np.flatnonzero(values >= values.max() - 1e-12)
    return int(best[len(best) // 2])


def _folds(labels: np.ndarray, k: int, seed: int) -> list[np.ndarray]:
    """Row indices of ``k`` folds, shuffled (seeded) and stratified by label when binary."""
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(labels == v) for v in (0.0, 1.0)] if is_binary(labels) else [np.arange(labels.size)]
    folds: list[list[int]] = [[] for _ in range(k)]
    offset = 0
    for g in groups:
        for j, i in enumerate(rng.permutation(g)):
            folds[(j + offset) % k].append(int(i))
        offset += len(g)
    return [np.array(sorted(f), dtype=int) for f in folds if f]


class CalibrationFit(BaseModel):
    threshold: float
    """Chosen on every labelled row: the value to use."""
    fold_thresholds: list[float]
    objective: str
    out_of_fold: Agreement
    """Each row scored at the threshold its fold's other folds chose."""


def check_labels(labels: np.ndarray) -> None:
    """Raise ValueError when there are too few labels to calibrate on (see `MIN_LABELS`)."""
    if labels.size < MIN_LABELS:
        raise ValueError(f"calibration needs at least {MIN_LABELS} labelled rows, got {labels.size}")
    if np.any((labels < 0) | (labels > 1)):
        raise ValueError("labels must be in [0, 1]")
    if is_binary(labels):
        fewest = int(min((labels == 1).sum(), (labels == 0).sum()))
        if fewest < MIN_PER_CLASS:
            raise ValueError(f"binary labels need at least {MIN_PER_CLASS} rows of each class, got {fewest} of one")


def cross_validated_threshold(grid: np.ndarray, thresholds: Sequence[float], labels: Sequence[float] | np.ndarray,
                              *, objective: Objective | None = None, folds: int = FOLDS,
                              seed: int = 0) -> CalibrationFit:
    """Choose a threshold by ``folds``-fold cross-validation (see the module). ``objective``:
    ``"ba"`` for binary labels (default), ``"rmse"`` (default for graded) or ``"pearson"``."""
    y = np.asarray(labels, dtype=float)
    scores = np.asarray(grid, dtype=float)
    if scores.shape != (len(thresholds), y.size):
        raise ValueError(f"grid must be thresholds x rows = {len(thresholds)} x {y.size}, got {scores.shape}")
    check_labels(y)
    binary = is_binary(y)
    goal: Objective = objective or ("ba" if binary else "rmse")
    if goal == "ba" and not binary:
        raise ValueError("balanced accuracy needs 0/1 labels; graded labels take rmse or pearson")
    out = np.empty(y.size)
    chosen = []
    for test in _folds(y, folds, seed):
        train = np.setdiff1d(np.arange(y.size), test)
        k = best_threshold(scores[:, train], y[train], goal)
        chosen.append(float(thresholds[k]))
        out[test] = scores[k, test]
    final = best_threshold(scores, y, goal)
    return CalibrationFit(threshold=float(thresholds[final]), fold_thresholds=chosen, objective=goal,
                          out_of_fold=agreement(y, out))
