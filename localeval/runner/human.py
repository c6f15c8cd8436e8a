"""Human judgements carried in the data: a column ``human_<metric>`` per metric (or mapped with
the column map, ``{"human_faithfulness": "my_label"}``), 0/1 or a score in [0, 1], on some rows.

They are never inputs: the reader passes them through untouched (`localeval.schema.Sample`
ignores unknown columns), and nothing is trained on them silently. They are read only by the
summary (labels-only and prediction-powered estimates, `localeval.stats.ppi`), by
``localeval compare`` and by ``localeval calibrate``.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["HUMAN_PREFIX", "LabelError", "human_column", "read_label"]

HUMAN_PREFIX = "human_"


class LabelError(ValueError):
    """A label cell holds something that is not 0/1 or a number in [0, 1]."""


def human_column(metric: str) -> str:
    """The column holding the human judgement of ``metric`` (an output metric name)."""
    return f"{HUMAN_PREFIX}{metric}"


def read_label(value: Any) -> float | None:
    """The label in a cell: ``None`` for no label (absent, empty, NaN), else a float in [0, 1]
    (``True``/``False``, ``1``/``0``, ``"1"``, ``0.75``). Raises `LabelError` for anything else."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if not text:
            return None
        if text in ("true", "yes"):
            return 1.0
        if text in ("false", "no"):
            return 0.0
        try:
            value = float(text)
        except ValueError:
            raise LabelError(f"not a label: {value[:40]!r} (0/1 or a number in [0, 1])") from None
    if isinstance(value, (int, float)) or hasattr(value, "__float__"):
        number = float(value)
        if math.isnan(number):
            return None
        if not 0.0 <= number <= 1.0:
            raise LabelError(f"label {number} is outside [0, 1]")
        return number
    raise LabelError(f"not a label: a {type(value).__name__} (0/1 or a number in [0, 1])")
