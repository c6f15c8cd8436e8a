"""Bootstrap intervals of a mean and of a paired difference, and a paired p-value.

Every function is deterministic for a given ``seed``: the same scores give the same interval
on every machine (NumPy's PCG64 stream does not depend on the platform).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED", "Interval", "PairedDifference", "bootstrap_mean",
           "paired_difference", "paired_pvalue"]

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
LEVEL = 0.95

_CELLS = 4_000_000
"""Resampled values held at once (32 MB of float64): resamples are drawn in blocks this size."""

_DISTINCT = 2_000
"""Up to this many distinct values, a resample is drawn as counts over the distinct values:
the same distribution as drawing rows, in time independent of the number of rows (scores
are often fractions like 0, 1/3, 1/2, 1)."""

_ROWS_DRAWN = 5_000
"""Up to this many rows with more distinct values, rows are drawn one by one. Beyond, values
are rounded to 3 decimals for the resampling only and every resampled mean is shifted back by
the rounding's effect on the mean: each value moves by at most 5e-4, so the spread of the
resampled means moves by at most 5e-4 / sqrt(n) < 1e-5, far below the 1e-4 by which CPU
scores already vary (docs/guarantees.md); a million rows then cost what a thousand distinct
values cost."""


class Interval(NamedTuple):
    estimate: float
    low: float
    high: float
    n: int


class PairedDifference(NamedTuple):
    """``mean(b - a)`` over rows scored in both runs."""

    estimate: float
    low: float
    high: float
    p_value: float
    """Two-sided paired sign-flip permutation p-value of "no difference"."""
    n: int


def finite_array(values: Sequence[float] | np.ndarray, what: str = "scores") -> np.ndarray:
    """``values`` as a flat float array; a NaN or infinity is refused, naming ``what``."""
    x = np.asarray(values, dtype=float).ravel()
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what} must be finite numbers (leave unscored rows out, never as zeros)")
    return x



def _counted_means(values: np.ndarray, counts: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``resamples`` multinomial resamples of rows holding ``values`` ``counts`` times,
    drawn as successive conditional binomials (one vectorised draw per distinct value)."""
    n = int(counts.sum())
    remaining = np.full(resamples, n, dtype=np.int64)
    sums = np.zeros(resamples)
    left = float(n)
    for value, count in zip(values[:-1], counts[:-1]):
        draw = rng.binomial(remaining, min(1.0, count / left))
        sums += draw * value
        remaining -= draw
        left -= count
    sums += remaining * values[-1]
    return sums / n


def _resampled_means(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    n = x.size
    values, counts = np.unique(x, return_counts=True)
    if values.size <= _DISTINCT:
        return _counted_means(values, counts, resamples, rng)
    if n > _ROWS_DRAWN:
        rounded = np.round(x, 3)
        values, counts = np.unique(rounded, return_counts=True)
        return _counted_means(values, counts, resamples, rng) + (x.mean() - rounded.mean())
    out = np.empty(resamples)
    block = max(1, _CELLS // n)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        out[start:stop] = x[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return out


def bootstrap_mean(values: Sequence[float] | np.ndarray, *, resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, level: float = LEVEL) -> Interval | None:
    """The mean of ``values`` with its percentile bootstrap interval over rows (Efron and
    Tibshirani 1993, ch. 13); ``None`` for no value. One value: an interval of zero width
    (nothing to resample, and nothing known about the spread)."""
    x = finite_array(values)
    if x.size == 0:
        return None
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    mean = float(x.mean())
    means = _resampled_means(x, resamples, np.random.default_rng(seed))
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    # A percentile interval may miss the estimate by rounding only: keep it inside.
    return Interval(mean, float(min(low, mean)), float(max(high, mean)), int(x.size))


def paired_pvalue(differences: Sequence[float] | np.ndarray, *, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> float:
    """Two-sided p-value of "the two runs do not differ" from paired differences: under that
    hypothesis each row's difference is as likely negative as positive, so its sign is flipped
    at random (a paired permutation test, Fisher 1935); p = (1 + #{|mean*| >= |mean|}) /
    (1 + resamples), never 0."""
    d = finite_array(differences)
    if d.size == 0:
        return 1.0
    rng = np.random.default_rng(seed)
    # Flipping signs moves only |d|: count the distinct |d| (rounded to 3 decimals beyond
    # `_ROWS_DRAWN` rows, the observed mean computed from the same values) and draw, per value,
    # how many of its rows keep their sign: a binomial, whatever the number of rows.
    size = np.abs(d) if d.size <= _ROWS_DRAWN else np.round(np.abs(d), 3)
    observed = abs(float(np.sum(np.sign(d) * size)))
    values, counts = np.unique(size, return_counts=True)
    hits = 0
    block = max(1, _CELLS // values.size)
    for start in range(0, resamples, block):
        rows = min(resamples, start + block) - start
        kept = rng.binomial(counts, 0.5, size=(rows, values.size))
        sums = np.abs((2 * kept - counts) @ values)
        # A tolerance: sign patterns giving the same |sum| up to rounding count as as extreme.
        hits += int(np.sum(sums >= observed - 1e-9 * max(1.0, observed)))
    return (1 + hits) / (1 + resamples)


def paired_difference(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *,
                      resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                      level: float = LEVEL) -> PairedDifference | None:
    """``mean(b - a)`` of paired scores (row i of ``a`` is row i of ``b``), its paired bootstrap
    interval (rows resampled, both runs' scores together) and `paired_pvalue`."""
    xa, xb = finite_array(a), finite_array(b)
    if xa.shape != xb.shape:
        raise ValueError(f"paired scores need the same number of rows, got {xa.size} and {xb.size}")
    interval = bootstrap_mean(xb - xa, resamples=resamples, seed=seed, level=level)
    if interval is None:
        return None
    p = paired_pvalue(xb - xa, resamples=resamples, seed=seed)
    return PairedDifference(interval.estimate, interval.low, interval.high, p, interval.n)
