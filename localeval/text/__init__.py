"""Text processing: sentence splitting (NLTK Punkt), claim splitting, context windowing.

Importing this package loads neither NLTK nor spaCy; each is loaded on first use, from
installed packages only (nothing is downloaded).
"""

from localeval.text.claims import split_claims
from localeval.text.sentences import (
    available_languages,
    list_item_body,
    split_sentences,
)
from localeval.text.spans import Span, Window
from localeval.text.windows import make_windows, window_text

__all__ = [
    "Span",
    "Window",
    "available_languages",
    "list_item_body",
    "make_windows",
    "split_claims",
    "split_sentences",
    "window_text",
]
