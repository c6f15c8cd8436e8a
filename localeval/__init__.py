"""localeval: offline-first evaluation of retrieval-augmented generation.

Every judgement comes from a model on local disk: an NLI cross-encoder trained by this
project (``models/``), spaCy NER and NLTK's Punkt. Nothing is downloaded, ever.
"""

from localeval.schema import Sample

__version__ = "0.1.0"
__all__ = ["Sample", "__version__"]
