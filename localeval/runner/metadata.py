"""What a run was made with: localeval's version, the judge (name and weights hash), the
thresholds each metric used, the metrics' options, the date. Written into ``--summary-json``
so a dashboard (or a reader a month later) knows which numbers can be compared."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from localeval.metrics.base import Metric
from localeval.metrics.judged import JudgedMetric

__all__ = ["metric_options", "run_metadata"]

_SKIP = {"batch_size"}  # how fast, not what is measured


def metric_options(metric: Metric) -> dict[str, Any]:
    """The metric's public settings that are plain values (``mode``, ``max_units`` ...)."""
    out: dict[str, Any] = {}
    for key, value in sorted(metric.settings().items()):
        if key.startswith("_") or key in _SKIP:
            continue
        if value is None or isinstance(value, (str, int, float, bool)):
            out[key] = value
        elif key == "decomposer":
            out[key] = type(value).__name__
    return out


def run_metadata(metrics: Iterable[tuple[str, Metric]], *, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The run's metadata for built metrics (judges are already loaded by then)."""
    from localeval import __version__

    judges: dict[int, Any] = {}
    given: dict[int, dict[str, float]] = {}  # the run's thresholds (RunOptions), by judge
    described: dict[str, Any] = {}
    for name, metric in metrics:
        entry: dict[str, Any] = {"metric": metric.name, "options": metric_options(metric)}
        if isinstance(metric, JudgedMetric):
            judge = metric.judge
            judges.setdefault(id(judge), judge)
            given.setdefault(id(judge), {}).update(metric.given_thresholds)
            entry["thresholds"] = [
                {"decision": kind, "key": choice.key, "value": choice.value, "source": choice.source}
                for kind, _, choice in metric.thresholds_in_force()
            ]
        described[name] = entry
    return {
        "localeval_version": __version__,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "judges": [
            {"name": j.name, "weights_hash": j.identity, "device": str(j.device), "precision": j.precision,
             "given_thresholds": given.get(key, {})}
            for key, j in judges.items()
        ],
        "metrics": described,
        **dict(extra or {}),
    }
