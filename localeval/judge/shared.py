"""One loaded judge per (model, device, input length, precision), shared by every metric of a process.

Loading takes seconds and hundreds of MB; a run with five NLI-based metrics must not load
the same weights five times.
"""

from __future__ import annotations

import os
import threading

from localeval.judge.formats import split_format
from localeval.judge.nli import JudgePair, NLIJudge
from localeval.judge.registry import resolve_model

_lock = threading.Lock()
_judges: dict[tuple[str, str | None, int | None, str], NLIJudge] = {}


def get_judge(
    model: str | os.PathLike[str] | NLIJudge | None = None,
    *,
    device: str | None = None,
    max_length: int | None = None,
    precision: str | None = None,
    relevance_model: str | os.PathLike[str] | NLIJudge | None = None,
) -> NLIJudge:
    """The shared `NLIJudge` for ``model`` (a loaded judge is passed through unchanged);
    with ``relevance_model``, a `JudgePair` of the two (each loaded once per process).

    ``model`` and ``relevance_model`` may name their format before the path
    (``"minicheck:/models/x"``, `localeval.judge.formats`)."""
    judge = _shared(model, device=device, max_length=max_length, precision=precision)
    if relevance_model is None:
        return judge
    return JudgePair(judge, _shared(relevance_model, device=device, max_length=None, precision=precision))


def _shared(model, *, device: str | None, max_length: int | None, precision: str | None) -> NLIJudge:
    if isinstance(model, NLIJudge):
        return model
    named, path = split_format(model)
    spec = str(resolve_model(path).resolve())
    key = (spec if named is None else f"{named}:{spec}", device, max_length, (precision or "auto").lower())
    with _lock:
        if key not in _judges:
            _judges[key] = NLIJudge(key[0], device=device, max_length=max_length, precision=precision)
        return _judges[key]
