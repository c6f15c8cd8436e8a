"""Rule 2: comparisons ("difference between X and Y", "X vs Y") -> what is X, what is Y, and
the comparison itself."""

from __future__ import annotations

import re

from localeval.text.questions.vocab import (
    _COMPARISONS,
    _NOUNISH,
    _content_word,
)


class ComparisonRules:
    """Mixin of `RuleBasedDecomposer` (uses its ``_parse``)."""

    # ------------------------------------------------------------------ 2. comparisons
    def _comparison(self, core: str, term: str, is_question: bool) -> list[str] | None:
        found = next((m for m in (p.search(core) for p in _COMPARISONS) if m), None)
        if found:
            x, y, rest = found.group("x").strip(), found.group("y").strip(), core[found.end():]
        else:
            x_y = self._versus(core)
            if x_y is None:
                return None
            x, y, rest = *x_y, ""
        if not x or not y or x.lower() == y.lower():
            return None
        comparison = core + term if is_question else f"How do {x} and {y} differ{rest.rstrip()}?"
        return [f"What {self._be(x)} {x}?", f"What {self._be(y)} {y}?", comparison]

    def _versus(self, core: str) -> tuple[str, str] | None:
        """X and Y of a sentence opening with "X vs Y" (or "versus"): the noun chunks (else
        single content words) that touch it."""
        if not re.search(r"\b(?:vs\.?|versus)\s", core, re.IGNORECASE):
            return None
        doc = self._parse(core)
        if not doc.has_annotation("DEP"):
            return None
        for token in doc:
            if token.lower_ not in {"vs", "vs.", "versus"}:
                continue
            chunks = list(doc.noun_chunks)
            left = next((c for c in chunks if c.end == token.i), None)
            right = next((c for c in chunks if c.start == token.i + 1), None)
            # Without a noun chunk, one content word will do: taggers often miss product
            # names ("PostgreSQL" comes out as an adverb).
            if left is None and token.i > 0 and _content_word(doc[token.i - 1]):
                left = doc[token.i - 1 : token.i]
            if right is None and token.i + 1 < len(doc) and _content_word(doc[token.i + 1]):
                right = doc[token.i + 1 : token.i + 2]
            # Only "X vs Y ..." opening the sentence: inside one, "vs" is as often part of a
            # name ("graft versus host disease") as a comparison.
            if left is None or right is None or any(t.is_alpha for t in doc[: left.start]):
                return None
            return left.text, right.text
        return None

    def _be(self, phrase: str) -> str:
        """"are" for a plural noun phrase, else "is"."""
        doc = self._parse(phrase)
        nouns = [t for t in doc if t.pos_ in _NOUNISH]
        plural = " and " in f" {phrase.lower()} " or bool(nouns and nouns[-1].tag_ in {"NNS", "NNPS"})
        return "are" if plural else "is"
