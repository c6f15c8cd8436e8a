"""localeval: offline-first evaluation of retrieval-augmented generation.

Every judgement comes from a model on local disk: an NLI cross-encoder trained by this
project (``models/``), spaCy NER and NLTK's Punkt. Nothing is downloaded, ever.
"""

from __future__ import annotations

from typing import Any

from localeval.schema import Sample

__version__ = "0.1.0"
__all__ = ["Sample", "aevaluate", "evaluate", "__version__"]


def __getattr__(name: str) -> Any:
    # `evaluate` pulls in torch and the metrics: loaded on first use, so `import localeval`
    # stays light for code that only builds Samples.
    if name in ("evaluate", "aevaluate"):
        import importlib

        return getattr(importlib.import_module("localeval.runner.evaluate"), name)
    raise AttributeError(f"module 'localeval' has no attribute {name!r}")
