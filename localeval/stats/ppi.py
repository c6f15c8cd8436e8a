"""Prediction-powered estimates of the mean a human would give (PPI++).

A judge scores every row; humans labelled a few. The judge's mean is biased wherever the judge
is wrong; the labels-only mean is unbiased but wide. Prediction-powered inference
(Angelopoulos, Bates, Fannjiang, Jordan and Zrnic 2023, "Prediction-powered inference",
Science 382) corrects the judge's mean over the unlabelled rows by its error measured on the
labelled rows. The power-tuned form (PPI++, Angelopoulos, Duchi and Zrnic 2023,
arXiv:2311.01453) weights the judge by a factor lambda chosen from the data to minimise the
variance, so the interval is never wider than the labels-only one beyond noise (lambda = 0
*is* the labels-only estimate):

    theta = mean(Y) + lambda * (mean(f_unlabelled) - mean(f_labelled))
    var   = lambda^2 Var(f_unlabelled) / N + Var(Y - lambda f_labelled) / n
    lambda = Cov(Y, f) / ((1 + n / N) Var(f))            (PPI++, the mean-estimation case)

with Y the labels, f the judge's scores, n labelled and N unlabelled rows. lambda is clipped
to [0, 1]: the variance is a convex function of lambda, smallest at the formula's value, so
any lambda between 0 and it is no worse than the labels alone; a negative value (a judge that
disagrees with the labels) falls back to 0, the labels alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from localeval.stats.intervals import finite_array

__all__ = ["MIN_LABELS", "PPIEstimate", "classical_mean", "ppi_mean", "Z95"]

Z95 = 1.959963984540054
MIN_LABELS = 10
"""Fewer labelled rows than this give no estimate: a normal interval from a handful of labels
claims more than it knows."""


class PPIEstimate(NamedTuple):
    estimate: float
    low: float
    high: float
    se: float
    n: int
    """Labelled rows."""
    unlabelled: int
    lam: float
    """The power-tuning weight (0: the labels alone; 1: plain PPI)."""


def _array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return finite_array(values, "labels and scores")


def classical_mean(labels: Sequence[float] | np.ndarray, *, z: float = Z95) -> PPIEstimate | None:
    """The labels-only mean with its normal (CLT) interval; ``None`` under `MIN_LABELS` labels."""
    y = _array(labels)
    if y.size < MIN_LABELS:
        return None
    se = float(y.std(ddof=1)) / math.sqrt(y.size)
    m = float(y.mean())
    return PPIEstimate(m, m - z * se, m + z * se, se, int(y.size), 0, 0.0)


def power_tuning(labels: np.ndarray, scores: np.ndarray, unlabelled: int) -> float:
    """PPI++'s variance-minimising lambda for a mean, clipped to [0, 1] (see the module)."""
    if unlabelled == 0 or labels.size < 2:
        return 0.0
    var_f = float(np.var(scores, ddof=1))
    if var_f <= 0.0:
        return 0.0
    cov = float(np.cov(labels, scores, ddof=1)[0, 1])
    lam = cov / ((1.0 + labels.size / unlabelled) * var_f)
    return float(min(1.0, max(0.0, lam)))


def ppi_mean(labels: Sequence[float] | np.ndarray, scores_labelled: Sequence[float] | np.ndarray,
             scores_unlabelled: Sequence[float] | np.ndarray, *, lam: float | None = None,
             z: float = Z95) -> PPIEstimate | None:
    """The PPI++ estimate of the mean label over all rows, with its 95 % interval.

    ``labels[i]`` is the human's value of the row the judge scored ``scores_labelled[i]``;
    ``scores_unlabelled`` are the judge's scores of the other rows. ``lam``: a fixed weight
    (1.0: plain PPI); by default PPI++'s estimate. ``None`` under `MIN_LABELS` labels."""
    y, f, g = _array(labels), _array(scores_labelled), _array(scores_unlabelled)
    if y.shape != f.shape:
        raise ValueError(f"one judge score per label: got {y.size} labels and {f.size} scores")
    if y.size < MIN_LABELS:
        return None
    n, big_n = y.size, g.size
    if big_n == 0:
        return classical_mean(y, z=z)
    weight = power_tuning(y, f, big_n) if lam is None else float(lam)
    estimate = float(y.mean() + weight * (g.mean() - f.mean()))
    var_g = float(np.var(g, ddof=1)) if big_n > 1 else 0.0
    variance = weight**2 * var_g / big_n + float(np.var(y - weight * f, ddof=1)) / n
    se = math.sqrt(max(variance, 0.0))
    return PPIEstimate(estimate, estimate - z * se, estimate + z * se, se, int(n), int(big_n), weight)
