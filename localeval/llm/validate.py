"""Parsing and checking what a local model wrote, before anything is scored with it.

A model's output is a list of lines; each candidate item is checked on its own:

* **claims**: one sentence (at least three words, with a verb, not a question, not a header
  ending in ":", not several sentences: an echo of the whole text is not a decomposition); every content word found in the source text (after light normalisation:
  case, possessive "'s", plural and -ed/-ing endings, thousands separators). A claim with a
  content word the source does not contain is kept only if the judge finds it entailed by the
  source (checked by the decomposer, which owns the judge).
* **sub-questions**: ends with "?", at least two words, shares a content word with the
  question, and adds none the question does not contain (a few question-frame words such as
  "difference" or "mean" are allowed).

A decomposition as a whole must also **cover** the source: at least ``min_coverage`` of the
source's content words must appear in the kept items, so a model that drops half the text
does not silently shrink the denominator of a recall.

Content words are words that are not stop words (spaCy's English list) with a letter or
digit. The checks are surface checks: they stop invented entities, numbers and names; they
cannot see a claim that recombines the source's own words into a false statement (the
entailment check is there for claims with new words only).
"""

from __future__ import annotations

import re

from localeval.llm.prompts import EXAMPLE_STARTS
from localeval.text.decomposition import Rejected
from localeval.text.lexical import content_words, normalise
from localeval.text.sentences import split_sentences

__all__ = ["check_claim", "check_sub_question", "content_words", "coverage", "normalise", "parse_items"]

_MARKER = re.compile(r"^\s*(?:[-*•·]+|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+", re.IGNORECASE)
# Words a sub-question may add to frame what the question asks ("What is the difference ...").
QUESTION_FRAME = frozenset({
    "difference", "differ", "different", "mean", "meaning", "happen", "role", "purpose", "example",
    "define", "definition", "called", "name", "type", "kind", "use", "used", "work", "compare",
})


def parse_items(output: str) -> list[str]:
    """Candidate items of a model's output: one per line, list markers stripped, up to the
    first line that starts a new few-shot example; duplicates removed (first kept)."""
    items: list[str] = []
    for line in output.splitlines():
        line = line.strip()
        if items and line.lower().startswith(EXAMPLE_STARTS):
            break
        line = _MARKER.sub("", line).strip().strip('"').strip()
        if line and line.lower() not in {i.lower() for i in items}:
            items.append(line)
    return items


def _has_verb(text: str) -> bool:
    from localeval.text.entities import load_nlp

    doc = load_nlp()(text, disable=["ner", "lemmatizer"])
    return any(t.pos_ in {"VERB", "AUX"} for t in doc)


def check_claim(claim: str, source_words: set[str]) -> tuple[Rejected | None, set[str]]:
    """(why the claim is not a claim, or None; its content words missing from the source)."""
    if claim.lower().startswith(EXAMPLE_STARTS) or claim.endswith(":"):
        return Rejected(text=claim, reason="a header, not a claim"), set()
    if claim.endswith("?"):
        return Rejected(text=claim, reason="a question, not a claim"), set()
    words = content_words(claim)
    if len(claim.split()) < 3 or not words:
        return Rejected(text=claim, reason="not a sentence (fewer than three words or no content word)"), set()
    if len(split_sentences(claim)) > 1:
        return Rejected(text=claim, reason="more than one sentence"), set()
    if not _has_verb(claim):
        return Rejected(text=claim, reason="not a sentence (no verb)"), set()
    return None, words - source_words


def check_sub_question(sub: str, question_words: set[str]) -> Rejected | None:
    if not sub.endswith("?"):
        return Rejected(text=sub, reason="not a question (does not end with '?')")
    words = content_words(sub)
    if len(sub.split()) < 2 or not words & question_words:
        return Rejected(text=sub, reason="shares no content word with the question")
    invented = sorted(words - question_words - {normalise(w) for w in QUESTION_FRAME})
    if invented:
        return Rejected(text=sub, reason=f"words not in the question: {', '.join(invented)}")
    return None


def coverage(source_words: set[str], items: list[str]) -> float:
    """Share of the source's content words that appear in ``items`` (1.0 without any)."""
    if not source_words:
        return 1.0
    found = set().union(*(content_words(i) for i in items)) if items else set()
    return len(source_words & found) / len(source_words)
