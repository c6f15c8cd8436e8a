"""Content words: the lexical view of a text that cheap checks compare.

Used where a model call would be wasteful: validating an LLM's claims against the words of their
source (localeval.llm.validate) and choosing which units of a long context are worth judging
for a claim (localeval.evidence.attribution, ``max_units``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import lru_cache
from pathlib import Path

from localeval.text.memo import remembered

__all__ = ["content_terms", "content_words", "normalise", "stem", "stemmed_words", "stop_words", "states_in_order",
           "word_overlap"]

_WORD = re.compile(r"\w+(?:'\w+)?", re.UNICODE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")  # "1,200" and "1200" are one number


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """spaCy's English stop words. Importing them imports spaCy itself (about a second), so
    when spaCy is not loaded yet, its word-list file (plain Python, no imports) is read on
    its own: a re-run that parses nothing then never pays for spaCy."""
    if "spacy" not in sys.modules:
        try:
            spec = importlib.util.find_spec("spacy")
            source = Path(spec.origin).parent / "lang" / "en" / "stop_words.py"  # type: ignore[union-attr, arg-type]
            namespace: dict[str, object] = {}
            exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)  # noqa: S102
            return frozenset(namespace["STOP_WORDS"])  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - a changed layout: import it the ordinary way
            pass
    from spacy.lang.en.stop_words import STOP_WORDS  # a word list: loads no pipeline

    return frozenset(STOP_WORDS)


def normalise(word: str) -> str:
    """A crude stem, applied alike to both sides of every comparison."""
    w = word.lower().replace("’", "'")
    w = w.removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(w) > len(suffix) + 2 and w.endswith(suffix) and not w.endswith("ss"):
            return w[: -len(suffix)] + repl
    return w


def content_terms(text: str) -> list[str]:
    """Normalised words of ``text`` that are not stop words, in order, repeats kept (numbers
    count as words): what term-frequency scores such as BM25 count."""
    return [t for t in map(_term, _words(text)) if t is not None]


def _words(text: str) -> list[str]:
    """``text``'s words in order, a number's thousands separators dropped ("1,200" is "1200")."""
    return _WORD.findall(_THOUSANDS.sub("", text))


@lru_cache(maxsize=1 << 16)
def _term(word: str) -> str | None:
    """``word`` normalised, or ``None`` for a stop word or a word without a letter or digit.
    Remembered: texts repeat a small vocabulary, and this was most of a cached re-run's time."""
    if word.lower() in stop_words() or word == "_" or not any(c.isalnum() for c in word):
        return None
    return normalise(word)


def content_words(text: str) -> set[str]:
    """Normalised words of ``text`` that are not stop words (numbers count as words)."""
    return set(content_terms(text))


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.snowball import SnowballStemmer  # rules only: no NLTK data is read

    return SnowballStemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of one lower-case word."""
    # Per word (a bounded vocabulary), not per text: a long text as a key is what made
    # process-wide memos grow (`localeval.text.memo`).
    return _stemmer().stem(word)


def stemmed_words(text: str) -> frozenset[str]:
    """Snowball stems of ``text``'s content words: "descaling", "descaled" and "descale" are one
    word ("descal"), "months" and "monthly" another; what the relevance screen compares."""
    stops = stop_words()
    return frozenset(stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in stops)


def word_overlap(wanted: set[str], found: set[str]) -> float:
    """Share of ``wanted`` (a claim's content words) present in ``found``; 0.0 when empty."""
    return len(wanted & found) / len(wanted) if wanted else 0.0


_NEGATORS = frozenset("not never no nor cannot".split())
_UNREAD = frozenset({"a", "an", "the", "s"})  # articles, and the "s" of a tokenised "'s"


def states_in_order(claim: str, premise: str) -> bool:
    """Does the premise write the claim, word for word in the claim's order, in one stretch?
    Case, articles and punctuation aside, with a few content words of its own allowed in
    between ("Natalia Moon (pictured) learned ...") but no function word ("was caught by" is
    not "caught") or number, and no negation in or just before the stretch.

    Then nothing was moved or merged: the contrast rules that find an act given to another,
    a slot swapped or a subject taken from another sentence (`localeval.text.contrast_rules`)
    would be reading a parse that took the two copies differently (a lower-cased summary, a
    caption run into the next sentence), not a contradiction."""
    return _in_order((claim, premise))


@remembered
def _in_order(pair: tuple[str, str]) -> bool:
    """`states_in_order`, remembered per pair for the run: the batched rules ask it for a pair's
    parses, then each rule set asks it again."""
    claim, premise = pair
    wanted = _plain_words(claim)
    if len(wanted) < 4:
        return False
    words = _plain_words(premise)
    if not set(wanted) <= _word_set(premise):
        return False
    from localeval.text.numbers import numbers_in

    slack = max(1, len(wanted) // 6)
    for start, word in enumerate(words):
        if word != wanted[0]:
            continue
        k, skipped, j = 1, 0, start + 1
        while k < len(wanted) and j < len(words):
            if words[j] == wanted[k]:
                k += 1
            elif skipped < slack and _term(words[j]) is not None and not numbers_in(words[j]):
                skipped += 1
            else:
                break
            j += 1
        if k == len(wanted) and not any(w in _NEGATORS or w.endswith("n't") for w in words[max(0, start - 2): j]):
            return True
    return False


@remembered
def _plain_words(text: str) -> tuple[str, ...]:
    return tuple(w for w in (normalise(w.lower()) for w in _words(text)) if w not in _UNREAD)


@remembered
def _word_set(text: str) -> frozenset[str]:
    return frozenset(_plain_words(text))
