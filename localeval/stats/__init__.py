"""Statistics a team can defend: intervals, paired comparisons, prediction-powered estimates
and threshold calibration, as pure functions of NumPy arrays (no model, no torch).

- `bootstrap_mean`: a 95 % percentile bootstrap interval of a mean (seeded).
- `paired_difference`: the mean difference of paired scores, its paired bootstrap interval and
  a paired sign-flip permutation p-value.
- `ppi_mean`, `classical_mean`: the prediction-powered (PPI++) estimate of the mean a human
  would give, and the labels-only one.
- `cross_validated_threshold`, `agreement`: thresholds chosen by cross-validation and
  agreement figures (balanced accuracy, AUROC, Pearson, RMSE) with standard errors.
"""

from localeval.stats.calibration import (
    Agreement,
    CalibrationFit,
    agreement,
    auroc,
    balanced_accuracy,
    cross_validated_threshold,
    pearson,
)
from localeval.stats.intervals import Interval, PairedDifference, bootstrap_mean, paired_difference, paired_pvalue
from localeval.stats.ppi import PPIEstimate, classical_mean, ppi_mean

__all__ = [
    "Agreement", "CalibrationFit", "Interval", "PPIEstimate", "PairedDifference", "agreement", "auroc",
    "balanced_accuracy", "bootstrap_mean", "classical_mean", "cross_validated_threshold", "paired_difference",
    "paired_pvalue", "pearson", "ppi_mean",
]
