"""One loaded judge per (model, device, input length, precision), shared by every metric of a process.

Loading takes seconds and hundreds of MB; a run with five NLI-based metrics must not load
the same weights five times.
"""

from __future__ import annotations

import os
import threading

from localeval.backends.nli import NLIJudge
from localeval.backends.registry import resolve_model

_lock = threading.Lock()
_judges: dict[tuple[str, str | None, int | None, str], NLIJudge] = {}


def get_judge(
    model: str | os.PathLike[str] | NLIJudge | None = None,
    *,
    device: str | None = None,
    max_length: int | None = None,
    precision: str | None = None,
) -> NLIJudge:
    """The shared `NLIJudge` for ``model`` (a loaded judge is passed through unchanged)."""
    if isinstance(model, NLIJudge):
        return model
    key = (str(resolve_model(model).resolve()), device, max_length, (precision or "auto").lower())
    with _lock:
        if key not in _judges:
            _judges[key] = NLIJudge(key[0], device=device, max_length=max_length, precision=precision)
        return _judges[key]
