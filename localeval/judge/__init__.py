"""Model backends: the NLI/relevance judge, the registry of local judges, claim attribution."""

from localeval.backends.kernels import bound_kernel_cache

bound_kernel_cache()  # before any judge computes (oneDNN reads it once): kernels.py says why

from localeval.backends.nli import NLIJudge
from localeval.backends.registry import JudgeNotFoundError, list_models, resolve_model
from localeval.backends.shared import get_judge

__all__ = ["NLIJudge", "JudgeNotFoundError", "get_judge", "list_models", "resolve_model"]
