"""Per-metric thresholds chosen by k-fold cross-validation on development data.

The figure reported for a chosen threshold is its *cross-validated* agreement: every item is
predicted with a threshold chosen on the other folds only, and the agreement is computed on
these out-of-fold predictions. The threshold stored with the judge is then chosen once on all
of the development data (the usual last step of a CV protocol); its in-sample agreement is
kept in the JSON too, and is optimistic.

Two shapes:

* binary (faithfulness, context recall): an item's statistic is the lowest probability of its
  claims, so ``stat >= t`` is exactly the metric saying "every claim is supported" at ``t``.
  Families (dataset groups) weigh the same, as in `benchmarks.judge_eval`.
* graded (context relevance): an item's score at ``t`` is the share of its sentences with
  ``p >= t``; ``t`` minimises the RMSE against the graded label.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np

from benchmarks.lib.metrics import auroc, balanced_accuracy, candidate_thresholds, macro_best_threshold
from benchmarks.agreement.scoring import graded_figures, rmse

__all__ = ["FOLDS", "cv_binary", "cv_graded", "folds_of", "share_at"]

FOLDS = 5
SEED = 13


def folds_of(labels: Sequence, k: int = FOLDS, seed: int = SEED) -> np.ndarray:
    """A fold per item, stratified by label (each fold gets its share of every class)."""
    folds = np.zeros(len(labels), dtype=int)
    rng = random.Random(seed)
    by_label: dict = {}
    for i, lab in enumerate(labels):
        by_label.setdefault(lab, []).append(i)
    for lab in sorted(by_label, key=str):
        ix = by_label[lab]
        rng.shuffle(ix)
        offset = rng.randrange(k)
        for j, i in enumerate(ix):
            folds[i] = (j + offset) % k
    return folds


def cv_binary(families: Mapping[str, tuple[Sequence[int], Sequence[float]]], stored: float, k: int = FOLDS) -> dict:
    """Threshold on an item statistic that maximises the families' mean balanced accuracy.

    Returns the threshold chosen on everything, and per family: balanced accuracy out of
    fold (``ba_cv``), at the chosen threshold in sample, at ``stored`` (what the judge ships
    with before the choice), and AUROC of the statistic.
    """
    data = {f: (np.asarray(y, int), np.asarray(s, float)) for f, (y, s) in families.items()}
    folds = {f: folds_of(y.tolist(), k) for f, (y, _) in data.items()}
    oof = {f: np.zeros(len(y), dtype=bool) for f, (y, _) in data.items()}
    for fold in range(k):
        train = [(y[folds[f] != fold], s[folds[f] != fold]) for f, (y, s) in data.items()]
        t, _ = macro_best_threshold(train)
        for f, (_, s) in data.items():
            test = folds[f] == fold
            oof[f][test] = s[test] >= t
    chosen, _ = macro_best_threshold(list(data.values()))
    per_family = {}
    for f, (y, s) in data.items():
        per_family[f] = {
            "n": int(len(y)),
            "ba_cv": round(balanced_accuracy(y, oof[f].astype(float), 0.5), 4),
            "ba_chosen_in_sample": round(balanced_accuracy(y, s, chosen), 4),
            "ba_stored": round(balanced_accuracy(y, s, stored), 4),
            "auroc": round(auroc(y, s), 4),
        }
    return {
        "threshold": round(chosen, 4), "stored_before": stored, "folds": k, "families": per_family,
        "oof": {f: v.tolist() for f, v in oof.items()},  # out-of-fold verdicts, item order kept
    }


def share_at(probs: Sequence[Sequence[float]], t: float) -> np.ndarray:
    """Per item, the share of its probabilities >= t (the metric's score at threshold t)."""
    return np.array([float(np.mean(np.asarray(p) >= t)) if len(p) else 0.0 for p in probs])


def _best_rmse_threshold(probs: Sequence[Sequence[float]], gold: np.ndarray) -> float:
    flat = np.concatenate([np.asarray(p, float) for p in probs if len(p)] or [np.array([0.5])])
    # Midpoints between distinct probabilities, thinned to quantiles: RMSE is flat between them.
    candidates = candidate_thresholds(np.quantile(flat, np.linspace(0, 1, 401)))
    errors = np.array([rmse(share_at(probs, t), gold) for t in candidates])
    tied = np.flatnonzero(np.isclose(errors, errors.min(), rtol=0, atol=1e-12))
    return float(candidates[tied[np.argmin(np.abs(candidates[tied] - 0.5))]])


def cv_graded(probs: Sequence[Sequence[float]], gold: Sequence[float], stored: float, k: int = FOLDS) -> dict:
    """Threshold minimising RMSE of the share-above-threshold against a graded label."""
    g = np.asarray(gold, float)
    folds = folds_of([0] * len(g), k)
    oof = np.zeros(len(g))
    for fold in range(k):
        train = folds != fold
        t = _best_rmse_threshold([p for p, m in zip(probs, train) if m], g[train])
        oof[~train] = share_at([p for p, m in zip(probs, train) if not m], t)
    chosen = _best_rmse_threshold(probs, g)
    return {
        "threshold": round(chosen, 4),
        "stored_before": stored,
        "folds": k,
        "cv": graded_figures(oof, g),
        "chosen_in_sample": graded_figures(share_at(probs, chosen), g),
        "stored": graded_figures(share_at(probs, stored), g),
        "oof_scores": oof.tolist(),
    }
