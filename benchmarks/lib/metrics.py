"""Threshold-free and thresholded binary metrics, and a paired bootstrap, written with numpy only.

Everything here treats a score as "positive" when ``score >= threshold``: the same rule the
localeval metrics apply to the judge's stored thresholds, so a threshold found here means
the same thing when it is written into a model's config.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = [
    "accuracy",
    "auroc",
    "auroc_statistic",
    "balanced_accuracy",
    "balanced_accuracy_curve",
    "best_threshold",
    "candidate_thresholds",
    "macro_best_threshold",
    "paired_bootstrap_se",
]

Statistic = Callable[[np.ndarray, np.ndarray], "float | None"]
"""``stat(prediction, gold)``: RMSE, a correlation...; ``None`` where it is undefined."""


def _arrays(labels: Sequence[int], scores: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    if y.shape != s.shape:
        raise ValueError(f"{y.shape[0]} labels but {s.shape[0]} scores")
    return y, s


def accuracy(gold: Sequence, predicted: Sequence) -> float:
    gold_a, pred_a = np.asarray(gold), np.asarray(predicted)
    return float(np.mean(gold_a == pred_a)) if gold_a.size else float("nan")


def balanced_accuracy(labels: Sequence[int], scores: Sequence[float], threshold: float) -> float:
    """Mean of the true-positive and true-negative rates at ``threshold``."""
    return float(balanced_accuracy_curve(labels, scores, np.array([threshold]))[0])


def balanced_accuracy_curve(
    labels: Sequence[int], scores: Sequence[float], thresholds: np.ndarray
) -> np.ndarray:
    """Balanced accuracy at every threshold at once (NaN when a class is missing)."""
    y, s = _arrays(labels, scores)
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    if pos.size == 0 or neg.size == 0:
        return np.full(len(thresholds), np.nan)
    # searchsorted(..., "left") counts the scores strictly below t: those are predicted negative.
    tpr = 1.0 - np.searchsorted(pos, thresholds, side="left") / pos.size
    tnr = np.searchsorted(neg, thresholds, side="left") / neg.size
    return (tpr + tnr) / 2.0


def auroc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the ROC curve (Mann-Whitney U with average ranks for ties)."""
    y, s = _arrays(labels, scores)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    # Average rank inside every run of equal scores, so ties count one half.
    starts = np.flatnonzero(np.r_[True, sorted_s[1:] != sorted_s[:-1]])
    ends = np.r_[starts[1:], len(s)]
    for a, b in zip(starts, ends):
        ranks[order[a:b]] = (a + b + 1) / 2.0
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def auroc_statistic(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """`auroc` as a `Statistic` for `paired_bootstrap_se`: ``None`` (not NaN) where a sample
    holds one class only."""
    value = auroc(labels, scores)
    return None if np.isnan(value) else value


def candidate_thresholds(*score_lists: Sequence[float]) -> np.ndarray:
    """Midpoints between consecutive distinct scores, plus one below and one above them all.

    A midpoint rather than a score itself, so the chosen threshold does not sit on an example
    and small numeric differences (CPU vs GPU) do not flip that example.
    """
    values = np.unique(np.concatenate([np.asarray(s, dtype=np.float64) for s in score_lists]))
    if values.size == 0:
        return np.array([0.5])
    mids = (values[1:] + values[:-1]) / 2.0
    return np.concatenate([[values[0] - 1e-6], mids, [values[-1] + 1e-6]])


def best_threshold(labels: Sequence[int], scores: Sequence[float]) -> tuple[float, float]:
    """(threshold, balanced accuracy) maximising balanced accuracy on this one set: an oracle."""
    return macro_best_threshold([(labels, scores)])


def macro_best_threshold(
    sets: Sequence[tuple[Sequence[int], Sequence[float]]],
) -> tuple[float, float]:
    """The threshold maximising the unweighted mean balanced accuracy over several sets.

    Unweighted so that a large set (or one with many claims per item) does not decide the
    threshold alone. Ties go to the threshold nearest 0.5, the untuned default.
    """
    candidates = candidate_thresholds(*(s for _, s in sets))
    curves = np.vstack([balanced_accuracy_curve(y, s, candidates) for y, s in sets])
    defined = ~np.isnan(curves).all(axis=1)
    if not defined.any():  # every set has a single class: balanced accuracy is undefined
        return float("nan"), float("nan")
    mean = curves[defined].mean(axis=0)
    best = mean.max()
    tied = np.flatnonzero(np.isclose(mean, best, rtol=0, atol=1e-12))
    pick = tied[np.argmin(np.abs(candidates[tied] - 0.5))]
    return float(candidates[pick]), float(best)


def paired_bootstrap_se(gold: Sequence[float], base: Sequence[float], other: Sequence[float],
                        stats: Mapping[str, Statistic], draws: int = 1000, seed: int = 13) -> dict[str, float | None]:
    """Per statistic, the bootstrap standard error of ``stat(other, gold) - stat(base, gold)``.

    Paired: every resample draws rows (with replacement) and scores both predictions on the
    same rows, so what the two share (hard rows, label noise) cancels out of the difference.
    All statistics read the same resamples. A resample where either side of a statistic is
    undefined (``None``, e.g. a correlation of a constant) is left out of that statistic's
    standard error; ``None`` when no resample defines it.
    """
    g, a, b = (np.asarray(x, dtype=np.float64) for x in (gold, base, other))
    if not g.shape == a.shape == b.shape:
        raise ValueError(f"gold, base and other differ in length: {len(g)}, {len(a)}, {len(b)}")
    rng = np.random.default_rng(seed)
    diffs: dict[str, list[float]] = {name: [] for name in stats}
    for _ in range(draws):
        ix = rng.integers(0, len(g), len(g))
        for name, stat in stats.items():
            x, y = stat(b[ix], g[ix]), stat(a[ix], g[ix])
            if x is not None and y is not None:
                diffs[name].append(x - y)
    return {name: float(np.std(d)) if d else None for name, d in diffs.items()}
