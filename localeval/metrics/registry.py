"""Metrics by name, as the CLI and configs refer to them (spaCy-style registry).

Each metric class registers itself under a versioned name with
``@register_metric("context_recall.v1")`` (`localeval.metrics.base`); its declaration (options,
threshold keys, direction) is data in `localeval.catalog`, which the layers below the metrics
read without importing one. A plain name (``context_recall``) is the newest version; a RAGAS
name is an alias with the options that make it mean the same (`localeval.catalog.ALIASES`).
Builders are keyword-only: ``get_metric("faithfulness", max_units=3)``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from localeval.catalog import ALIASES, METRIC_SPECS, known_threshold_keys, metric_spec, resolve_alias
from localeval.catalog import higher_is_better as _declared_direction
from localeval.metrics.base import REGISTERED, Metric

__all__ = ["ALIASES", "METRICS", "get_metric", "higher_is_better", "known_threshold_keys", "registered", "resolve_name",
           "threshold_uses"]


def registered(versioned: str) -> type[Metric]:
    """The class registered under ``versioned`` (its module imported on first use)."""
    if versioned not in REGISTERED:
        import_module(next(spec.module for spec in METRIC_SPECS if spec.name == versioned))
    return REGISTERED[versioned]


METRICS: dict[str, type[Metric]] = {spec.plain: registered(metric_spec(spec.plain).name) for spec in METRIC_SPECS}
"""The newest version of every metric, by plain name (what users type)."""


def resolve_name(name: str) -> tuple[type[Metric], dict[str, Any]]:
    """The metric class for ``name`` (plain, versioned or a RAGAS alias) and the options the
    alias implies."""
    spec, options = resolve_alias(name)
    return registered(spec.name), options


def threshold_uses(name: str) -> list[tuple[str, str]]:
    """``(kind, per-metric key)`` of each decision the metric ``name`` makes (none for a
    metric that does not ask the judge)."""
    return [tuple(use) for use in metric_spec(name).thresholds]  # type: ignore[misc]


def higher_is_better(metric: str | Metric) -> bool:
    """Whether a higher score is better for ``metric``: a name (ours or a RAGAS alias, with the
    options the alias implies, so ``noise_sensitivity`` reads lower-is-better) or a metric."""
    if isinstance(metric, Metric):
        return bool(metric.higher_is_better)
    return _declared_direction(metric)


def get_metric(name: str, /, **options: Any) -> Metric:
    """Build the metric registered under ``name`` (or a RAGAS alias) with its options, given
    by keyword only."""
    cls, implied = resolve_name(name)
    return cls(**{**implied, **options})
