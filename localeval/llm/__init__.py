"""Optional local instruction model for decomposition (claims, sub-questions).

Install the extra first: ``pip install "localeval[llm]"`` (``gguf`` and ``accelerate``, for
GGUF files through transformers). Then ``LLMDecomposer(PATH)`` or ``localeval score
--decomposer PATH``; ``"rule"`` names the default rule-based decomposer.
"""

from __future__ import annotations

import os
from typing import Any

from localeval.llm.decomposer import LLMDecomposer
from localeval.llm.generator import Generator, TransformersGenerator
from localeval.llm.prompts import CLAIMS_PROMPT, QUESTIONS_PROMPT
from localeval.options import RULE_NAMES

__all__ = [
    "CLAIMS_PROMPT",
    "QUESTIONS_PROMPT",
    "Generator",
    "LLMDecomposer",
    "RULE_NAMES",
    "TransformersGenerator",
    "resolve_decomposer",
]



def resolve_decomposer(spec: Any, *, judge: Any = None, device: str | None = None) -> Any:
    """``None`` for the default rules (``None`` or a name in `RULE_NAMES`), a decomposer object
    as it is, else an `LLMDecomposer` over the model directory or GGUF file ``spec``."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in RULE_NAMES):
        return None
    if isinstance(spec, (str, os.PathLike)):
        return LLMDecomposer(spec, judge=judge, device=device)
    if not (callable(getattr(spec, "claims", None)) or callable(getattr(spec, "decompose_batch", None))):
        raise TypeError(f"decomposer must be 'rule', a model path or a Decomposer, got {spec!r}")
    return spec
