"""Deprecated: the old home of the judge and of claim attribution, kept so code written against
it still runs. The judge is now `localeval.judge`, the algorithms that use it
`localeval.evidence` (README, "Changelog").

``from localeval.backends import NLIJudge`` and ``from localeval.backends.session import
JudgeSession`` (the README's earlier examples) keep working, with a DeprecationWarning: each old
submodule name is the new module itself, so an object imported either way is the same object.
"""

from __future__ import annotations

import sys
import warnings
from importlib import import_module

warnings.warn("localeval.backends is deprecated: import from localeval.judge (the judge) or localeval.evidence "
              "(attribution, candidates, verdicts, relevance)", DeprecationWarning, stacklevel=2)

from localeval.judge import JudgeNotFoundError, NLIJudge, get_judge, list_models, resolve_model  # noqa: E402

# Old submodule -> its new home; registered so ``import localeval.backends.X`` finds the new module.
MOVED = {
    "attribution": "localeval.evidence.attribution", "candidates": "localeval.evidence.candidates",
    "verdict": "localeval.evidence.verdict", "relevance": "localeval.evidence.relevance",
    "cache": "localeval.judge.cache", "embeddings": "localeval.judge.embeddings",
    "formats": "localeval.judge.formats", "kernels": "localeval.judge.kernels", "labels": "localeval.judge.labels",
    "nli": "localeval.judge.nli", "precision": "localeval.judge.dtypes", "registry": "localeval.judge.registry",
    "session": "localeval.judge.session", "shared": "localeval.judge.shared",
}
for _old, _new in MOVED.items():
    sys.modules[f"{__name__}.{_old}"] = import_module(_new)

__all__ = ["NLIJudge", "JudgeNotFoundError", "get_judge", "list_models", "resolve_model"]
