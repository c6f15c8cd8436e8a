"""Word lists, patterns and token helpers shared by the question-decomposition rules."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Token

WH_WORDS = frozenset({"what", "who", "whom", "whose", "which", "when", "where", "why", "how"})
AUX_WORDS = frozenset({
    "is", "are", "was", "were", "am", "be", "'s", "do", "does", "did", "can", "could", "should",
    "would", "will", "shall", "may", "might", "must", "has", "have", "had",
})
REQUEST_VERBS = frozenset({
    "explain", "describe", "list", "name", "tell", "give", "compare", "contrast", "define",
    "summarize", "summarise", "show", "provide", "outline", "identify", "find", "state", "discuss",
})
_SINGULAR_AUX = frozenset({"is", "was", "does", "has", "'s"})
_PLURAL_AUX = frozenset({"are", "were", "do", "have"})
_NOUNISH = frozenset({"NOUN", "PROPN"})
_OBJECT_DEPS = frozenset({"dobj", "pobj", "appos"})
# Words that make "X and Y" one joint thing: splitting would change the question. ("each
# other" is checked as a pair.)
_COLLECTIVE = frozenset({
    "between", "common", "together", "both", "relationship", "relationships", "relation",
    "relations", "related", "relate", "differ", "differs", "different", "difference",
    "differences", "similar", "similarity", "similarities", "same", "compare", "compared",
    "comparison", "versus", "vs", "vs.", "v.", "combined", "combine", "total", "sum", "ratio",
    "correlation", "interact", "interaction", "interactions", "distance", "mix", "merge",
    "jointly",
})
# Fixed "X and Y" pairs that name one thing.
_FIXED_PAIRS = frozenset(
    {
        ("research", "development"), ("rock", "roll"), ("trial", "error"), ("salt", "pepper"),
        ("bread", "butter"), ("black", "white"), ("law", "order"), ("arts", "crafts"),
        ("bed", "breakfast"), ("fish", "chips"), ("q", "a"), ("r", "d"), ("m", "a"),
        ("mergers", "acquisitions"), ("profit", "loss"), ("supply", "demand"),
    }
)

_WH = r"(?:what|who|whom|whose|which|when|where|why|how)"
_WH_STACK = re.compile(rf"^({_WH}(?:\s*,\s*(?:(?:and|or)\s+)?{_WH}|\s+(?:and|or)\s+{_WH})+)\s+(\S.*)$", re.IGNORECASE)
_AS_WELL_AS = re.compile(r"\s*,?\s+as well as\s+", re.IGNORECASE)
_TAIL = (
    r"(?=\s*(?:[?.!;,:]|$)|\s+(?:in terms of|with respect to|with regard to|regarding|"
    r"when it comes to|for|in|on|at|as|when|if)\b)"
)
_PART = r"[^,;:?!]+?"
_COMPARISONS = (
    re.compile(rf"\b(?:differences?|distinctions?|contrast)\s+between\s+(?P<x>{_PART})\s+and\s+(?P<y>{_PART}){_TAIL}", re.IGNORECASE),
    re.compile(rf"\b(?:compare|comparing|contrast|contrasting)\s+(?P<x>{_PART})\s+(?:and|with|to|against|vs\.?|versus)\s+(?P<y>{_PART}){_TAIL}", re.IGNORECASE),
    re.compile(rf"\bhow\s+(?:does|do|did|is|are|was|were)\s+(?P<x>{_PART})\s+(?:differ|different)\s+from\s+(?P<y>{_PART}){_TAIL}", re.IGNORECASE),
    re.compile(rf"\bhow\s+(?:do|did|are|were)\s+(?P<x>{_PART})\s+and\s+(?P<y>{_PART})\s+(?:differ|different|compare)\b", re.IGNORECASE),
)


def _is_wh(token: Token) -> bool:
    return token.lower_ in WH_WORDS


def _content_word(token: Token) -> bool:
    return not (token.is_stop or token.is_punct or token.is_space) and any(ch.isalnum() for ch in token.text)


_CLAUSE_DEPS = frozenset({"relcl", "acl", "advcl", "ccomp", "xcomp", "pcomp", "csubj", "csubjpass"})


def _near_the_question(token: Token) -> bool:
    """True when ``token`` belongs to what the question asks about: no clause boundary and
    at most two prepositions between it and the main verb. A list inside a description is
    not: "the designer of the attraction with variants in California, France and Tokyo",
    "a film starring Nicolas Cage and Tea Leoni" ask one question each."""
    prepositions = 0
    while token.dep_ != "ROOT" and token.head.i != token.i:
        if token.dep_ in _CLAUSE_DEPS:
            return False
        prepositions += token.dep_ == "prep"
        token = token.head
    return prepositions <= 2


def _singular(token: Token) -> bool:
    """A singular noun; a name by its spelling, since taggers guess names' number ("Romeo"
    comes out NNPS, "the Andes" NNP)."""
    if token.pos_ == "PROPN":
        return not token.lower_.endswith("s")
    return token.tag_ == "NN"


def _text(tokens: Sequence[Token], replace: dict[int, str] | None = None) -> str:
    """The original text of consecutive tokens, optionally with some tokens replaced."""
    replace = replace or {}
    return "".join(replace.get(t.i, t.text) + t.whitespace_ for t in tokens).strip()
