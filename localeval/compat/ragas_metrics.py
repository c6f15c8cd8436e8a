"""RAGAS metric objects passed where localeval expects a metric: scored by the matching one.

A RAGAS user's first try is often ``evaluate(dataset=df, metrics=[Faithfulness(), ...])`` with
RAGAS' own metric objects. They carry an LLM client and cannot run here, but most name a
thing localeval scores: such an object is replaced by localeval's metric of that name (its
``mode`` kept where localeval has it: ``FactualCorrectness(mode="precision")``), with a
one-line notice; only an object with no counterpart is refused, with the list of metrics.
ragas is never imported: its objects are recognised by their module and read by their
``name`` (or class name).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["is_ragas_metric", "ragas_equivalent", "ragas_metric_hint", "ragas_notice"]


def is_ragas_metric(obj: Any) -> bool:
    cls = obj if isinstance(obj, type) else type(obj)
    return cls.__module__.split(".")[0] == "ragas"


def _snake(name: str) -> str:
    # "LLMContextPrecisionWithReference" -> "llm_context_precision_with_reference"
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _candidates(obj: Any) -> list[str]:
    cls = obj if isinstance(obj, type) else type(obj)
    name = getattr(obj, "name", None) if not isinstance(obj, type) else None
    found = [c for c in (name, _snake(cls.__name__)) if isinstance(c, str)]
    found += [c.removeprefix("nv_") for c in found]
    mode = getattr(obj, "mode", None) if not isinstance(obj, type) else None
    if isinstance(mode, str):  # FactualCorrectness(mode="precision"), NoiseSensitivity(mode="irrelevant")
        found = [f"{c}_{mode.strip().lower()}" for c in found] + found
    return found


def ragas_equivalent(obj: Any) -> str | None:
    """The localeval metric name (ours or an alias) that scores what the RAGAS metric object
    or class ``obj`` scores, or ``None`` when localeval has none."""
    from localeval.metrics.registry import resolve_name

    for candidate in _candidates(obj):
        try:
            resolve_name(candidate)
        except ValueError:
            continue
        return candidate
    return None


def ragas_notice(obj: Any, name: str) -> str:
    """The one line said when a RAGAS object is scored by localeval's metric ``name``."""
    from localeval.metrics.registry import resolve_name

    cls = obj if isinstance(obj, type) else type(obj)
    metric, _ = resolve_name(name)
    same = "" if metric.name == name else f" ({metric.name})"
    return f"RAGAS {cls.__name__} scored by localeval's {name!r}{same} with the local judge; its LLM and settings are not used"


def ragas_metric_hint(obj: Any) -> str:
    """The error message for a RAGAS metric object or class with no localeval counterpart."""
    from localeval.metrics.registry import ALIASES, METRICS

    cls = obj if isinstance(obj, type) else type(obj)
    name = getattr(obj, "name", None) if not isinstance(obj, type) else None
    shown = name or cls.__name__
    known = ", ".join(sorted({*METRICS, *ALIASES}))
    return f"{cls.__name__} is a RAGAS metric object ({shown!r}) with no localeval counterpart; localeval metrics: {known}"
