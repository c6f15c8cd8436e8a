"""``addition``: a sentence with one detail more than its premise states, and one detail less.

The development families' unsupported claims (FRANK's out-of-article and circumstance errors,
SummaC's and RAGBench's invented details) are mostly a true sentence with something added: a
date, a place, an organisation the source never names. A judge trained on NLI pairs whose
neutral hypotheses are new sentences learns to find a missing *fact*, not a missing *detail*
inside a claim that otherwise repeats its evidence word for word, and word overlap then beats
it. These pairs teach the detail:

* **added** (neutral): a short trailing detail taken from another paragraph (``in 1987``, ``at
  the University of Vienna``, ``during the Second World War``) put before the sentence's final
  stop, when none of its words occur in this paragraph;
* **dropped** (entailed): one such detail of the sentence's own removed, in a sentence without
  a negation (removing "in 1990" from "did not go to Paris in 1990" would not be entailed).

Read the other way round (``reverse``), the labels swap: a premise with the extra detail entails
the original sentence, and a premise without one of its details does not entail it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from ..examples import NLI3
from .edits import ENT, NEU, Edit

_DETAIL = re.compile(
    r"\b(?:in|on|at|during|after|before|since|near|from) (?:the |a |an )?"
    r"(?:\d{4}|[A-Z][\w'-]+(?: (?:of |de |the |and )?[A-Z][\w'-]+){0,3})(?=[,.;:!?)]|$)"
)
_NEGATION = re.compile(r"\b(?:not|no|never|none|nor|without|neither|cannot)\b|n't\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_SMALL = frozenset({"in", "on", "at", "during", "after", "before", "since", "near", "from", "the", "a", "an",
                    "of", "de", "and"})
MIN_WORDS_LEFT = 5


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _SMALL}


def _ends_clause(text: str, end: int) -> bool:
    rest = text[end:].lstrip()
    if rest[:1] in ("", ".", ";", "!", "?"):
        return True
    return rest[:1] == "," and rest[1:].lstrip()[:1].islower()


def details(sentences: Iterable[str]) -> list[str]:
    """The trailing details (preposition + a year or a capitalised name) of ``sentences``."""
    return [m.group(0) for s in sentences for m in _DETAIL.finditer(s)]


def addition_edits(sentence: str, paragraph: str, foreign: Sequence[str], rng: random.Random) -> list[Edit]:
    """One detail of ``foreign`` (another paragraph's) added to ``sentence`` (neutral), and
    one of the sentence's own details dropped (entailed), each where one fits."""
    out: list[Edit] = []
    body = sentence.rstrip()
    if body.endswith((".", "!")) and len(foreign):
        known = _content(paragraph)
        for detail in rng.sample(list(foreign), min(len(foreign), 5)):
            words = _content(detail)
            if words and not words & known:
                out.append(Edit(f"{body[:-1]} {detail}{body[-1]}", NEU, NLI3, "addition"))
                break
    if not _NEGATION.search(sentence):
        # Only a detail that ends its clause ("... in 1990." / "... in 1990, when"): one that
        # runs on ("in Oklahoma City, Oklahoma") would leave half a name behind.
        own = [m for m in _DETAIL.finditer(sentence) if m.start() > 0 and _ends_clause(sentence, m.end())]
        rng.shuffle(own)
        for m in own:
            shorter = sentence[: m.start()].rstrip() + sentence[m.end():]
            if len(shorter.split()) >= MIN_WORDS_LEFT and ",," not in shorter.replace(" ", ""):
                out.append(Edit(shorter, ENT, NLI3, "addition"))
                break
    return out
