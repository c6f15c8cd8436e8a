"""Text pieces that remember where they came from.

Every sentence, claim and window localeval produces is a `Span`: its text plus the character
offsets into the original string, so evidence can always point back at the user's own text
(``original[span.start:span.end] == span.text``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Span(BaseModel):
    """A piece of an original text: ``text == original[start:end]``."""

    model_config = ConfigDict(frozen=True)

    text: str
    start: int
    end: int


class Window(Span):
    """A run of consecutive sentences of one context, sized to fit the judge's input.

    ``sentence_indices`` are indices into the sentence list the window was built from.
    A window built from an over-long sentence holds a word-aligned piece of it; its
    ``sentence_indices`` then name that one sentence.
    """

    sentence_indices: tuple[int, ...]
