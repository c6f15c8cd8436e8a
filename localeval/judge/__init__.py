"""The judge: a local NLI/relevance model as a pure predictor of pair probabilities.

Loading (`nli`, `formats`, `labels`, `dtypes`: the number format it computes in), where judges
live (`registry`), one loaded judge per process (`shared`), and what one run keeps while it asks
a judge (`session`, `cache`). The algorithms that use a judge's verdicts (claim attribution,
candidate selection, claim verdicts, relevance) are in `localeval.evidence`, one layer up.
"""

from localeval.judge.kernels import bound_kernel_cache

bound_kernel_cache()  # before any judge computes (oneDNN reads it once): kernels.py says why

from localeval.judge.nli import NLIJudge
from localeval.judge.registry import JudgeNotFoundError, list_models, resolve_model
from localeval.judge.shared import get_judge

__all__ = ["NLIJudge", "JudgeNotFoundError", "get_judge", "list_models", "resolve_model"]
