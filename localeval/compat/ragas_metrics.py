"""RAGAS metric objects passed where localeval expects a metric: name the matching one.

A RAGAS user's first try is often ``evaluate(data, [faithfulness, context_recall])`` with
RAGAS' own metric objects. They carry an LLM client and cannot run here; the helpful answer
is the localeval name that judges the same thing. ragas is never imported: its objects are
recognised by their module and read by their ``name`` (or class name).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["is_ragas_metric", "ragas_metric_hint"]


def is_ragas_metric(obj: Any) -> bool:
    cls = obj if isinstance(obj, type) else type(obj)
    return cls.__module__.split(".")[0] == "ragas"


def _snake(name: str) -> str:
    # "LLMContextPrecisionWithReference" -> "llm_context_precision_with_reference"
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def ragas_metric_hint(obj: Any) -> str:
    """The error message for a RAGAS metric object or class given as a localeval metric."""
    from localeval.metrics.registry import ALIASES, METRICS, resolve_name

    cls = obj if isinstance(obj, type) else type(obj)
    name = getattr(obj, "name", None) if not isinstance(obj, type) else None
    candidates = [c for c in (name, _snake(cls.__name__)) if isinstance(c, str)]
    candidates += [c.removeprefix("nv_") for c in candidates]
    shown = name or cls.__name__
    for candidate in candidates:
        try:
            metric, _ = resolve_name(candidate)
        except ValueError:
            continue
        return (
            f"{cls.__name__} is a RAGAS metric, not a localeval one: pass the name {candidate!r} "
            f"to score {shown!r} with localeval's {metric.name} metric"
        )
    known = ", ".join(sorted({*METRICS, *ALIASES}))
    return f"{cls.__name__} is a RAGAS metric object ({shown!r}) with no localeval counterpart; localeval metrics: {known}"
