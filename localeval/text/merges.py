"""Two facts merged into a false one: the merge contrast of `localeval.text.contrast_rules`.

"Canberra is the capital of Australia. Sydney, the largest city in the country, hosted the
2000 Olympic Games." A small NLI judge reads "Sydney is the capital of Australia" as entailed:
every word of the claim is in the unit. `merge_contrast` looks for the one sentence of the
unit that states everything the claim says (all its content words) and fires when

- that sentence opens with another name (its first or second name, typically its subject)
  where the claim opens with its own, and
- the claim's name is missing from that sentence but named in another sentence of the unit:
  the claim took its subject from one sentence and its predicate from another.

Names are proper nouns by spaCy's tagger (so "Select the file." names nothing) and numbers (a
name stands in for a name, a number for a number);
a name also used in lower case ("Press", "hispanic") is no name, and years, weekdays and months
are left to the number rule. It stays quiet when the stating sentence opens with a pronoun
("It is the capital of ...": who "it" is stays open), also after a fronted phrase ("In 1911
she won ..."), and when the unit has one sentence.
The parse is the role rule's (`localeval.text.roles.tagged_sentences`), one per text.
"""

from __future__ import annotations

import re

from localeval.text.lexical import normalise, stop_words
from localeval.text.memo import remembered
from localeval.text.numbers import numbers_in
from localeval.text.roles import tagged_sentences

__all__ = ["merge_contrast", "reads_premise"]

_CALENDAR = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april may june "
                      "july august september october november december".split())
_PRONOUN_STARTS = frozenset("it they he she this that these those its their his her".split())
_PERSONAL = frozenset("it they he she we".split())
_LOWER_WORD = re.compile(r"\b[a-z][\w'-]*")


class _Sentence:
    """A sentence's words in order, each as (normalised, as written, kind): kind is "number"
    (one per number `numbers_in` reads), "capital" (a capitalised word) or "word"; and
    ``proper``, its capitalised words spaCy tagged as proper nouns."""

    def __init__(self, words: tuple[tuple[str, str], ...]) -> None:
        self.first = words[0][0].lower() if words else ""
        # A pronoun before the sentence's first verb is its subject, also after a fronted
        # phrase ("On Sundays it opens at 8:00", "In 1911 she won ..."): who it is stays open.
        verb = next((i for i, (_, pos) in enumerate(words) if pos in ("VERB", "AUX")), len(words))
        self.pronoun_subject = self.first in _PRONOUN_STARTS or any(
            pos == "PRON" and text.lower() in _PERSONAL for text, pos in words[:verb])
        self.tokens: list[tuple[str, str, str]] = []
        proper: set[str] = set()
        for text, pos in words:
            if text[0].isdigit():
                self.tokens += [(n, text, "number") for n in numbers_in(text)]
            elif text[0].isupper():
                self.tokens.append((normalise(text.lower()), text, "capital"))
                if pos == "PROPN":
                    proper.add(normalise(text.lower()))
            else:
                self.tokens.append((normalise(text.lower()), text, "word"))
        self.proper = frozenset(proper)


class _View:
    """A sentence's names (in order) and content words, given the words that are names: the
    small tagger misses a proper noun now and then ("Lyon is ..."), so a capitalised word
    tagged a proper noun anywhere in the claim or the premise is a name everywhere."""

    def __init__(self, sentence: _Sentence, proper: frozenset[str]) -> None:
        stops = stop_words()
        self.first = sentence.first
        self.pronoun_subject = sentence.pronoun_subject
        self.names: list[str] = []
        self.shown: dict[str, str] = {}
        words: set[str] = set()
        for norm, text, kind in sentence.tokens:
            if kind == "number" or (kind == "capital" and norm in proper):
                if norm not in self.shown:
                    self.names.append(norm)
                    self.shown[norm] = text
            elif _is_content(text, stops):
                words.add(norm)
        self.ids = frozenset(self.names)
        self.words = frozenset(words)


def _is_content(word: str, stops: frozenset[str]) -> bool:
    """A content word of a sentence's view, and so of `reads_premise`'s check: the two must agree."""
    return word.lower() not in stops and len(word) > 2


@remembered
def _sentences(text: str) -> tuple[_Sentence, ...]:
    return tuple(_Sentence(words) for words in tagged_sentences(text) if words)


@remembered
def _claim(text: str) -> _Sentence:
    return _Sentence(tuple(w for words in tagged_sentences(text) for w in words))


def _is_number(name: str) -> bool:
    return name[:1].isdigit()


def _is_year(name: str) -> bool:
    return name.isdigit() and 1000 <= int(name) <= 2100


def reads_premise(claim: str, premise: str) -> bool:
    """Could `merge_contrast` fire, by the words alone? Its sentence states every content word
    the claim writes in lower case, so the premise must hold them all (spaCy's tokenizer, the
    parse's own tokens, costs a fraction of a parse). Under ``exhaustive`` most units fail
    this and are never parsed for the merge rule. It also needs a name the rule could find
    missing: a number or capitalised word of the claim that is no year, no calendar word and
    not written in lower case by either text (the parse only narrows these down)."""
    if not _lower_content_words(claim) <= _all_words(premise):
        return False
    lower = _lower_words(premise) | _lower_words(claim)
    return any(not _is_year(n) and n not in _CALENDAR and n not in lower for n in _name_candidates(claim))


@remembered
def _name_candidates(text: str) -> frozenset[str]:
    """Every word `_Sentence` could make a name of, before the tagger says which are proper nouns."""
    out: set[str] = set()
    for t in _tokens(text):
        if t.text[0].isdigit():
            out |= numbers_in(t.text)
        elif t.text[0].isupper():
            out.add(normalise(t.text.lower()))
    return frozenset(out)


@remembered
def _lower_words(text: str) -> frozenset[str]:
    return frozenset(normalise(w) for w in _LOWER_WORD.findall(text))


@remembered
def _lower_content_words(text: str) -> frozenset[str]:
    stops = stop_words()
    return frozenset(normalise(t.text.lower()) for t in _tokens(text)
                     if not (t.text[0].isdigit() or t.text[0].isupper()) and _is_content(t.text, stops))


@remembered
def _all_words(text: str) -> frozenset[str]:
    return frozenset(normalise(t.text.lower()) for t in _tokens(text))


def _tokens(text: str) -> list:
    from localeval.text.entities import load_nlp

    return [t for t in load_nlp().tokenizer(text) if not (t.is_punct or t.is_space)]


def merge_contrast(claim: str, premise: str) -> str | None:
    """A reason when the premise's sentence that states the claim names another subject."""
    if not reads_premise(claim, premise):
        return None
    parsed = _sentences(premise)
    if len(parsed) < 2:
        return None
    claim_parsed = _claim(claim)
    proper = claim_parsed.proper.union(*(s.proper for s in parsed))
    c = _View(claim_parsed, proper)
    if not c.ids or not c.words:
        return None
    sentences = [_View(s, proper) for s in parsed]
    best = max(sentences, key=lambda s: (len(c.words & s.words), len(c.ids & s.ids)))
    if not c.words <= best.words or best.pronoun_subject:
        return None  # no one sentence states all the claim says, or its subject is a pronoun
    lower = _lower_words(premise) | _lower_words(claim)
    missing = {m for m in c.ids - best.ids if not _is_year(m) and m not in _CALENDAR and m not in lower}
    foreign = best.ids - c.ids - c.words - lower
    first_claim = next((n for n in c.names if n not in _CALENDAR), None)
    # The other name must be of the claim's name's kind: a number ("the 3.2-kilometre
    # runway") is a measure, not a subject standing in for a named one.
    others = [n for n in best.names if n not in c.ids and n not in _CALENDAR
              and _is_number(n) == _is_number(first_claim or "")]
    if not (first_claim in missing and others and others[0] in foreign and best.names.index(others[0]) <= 1):
        return None
    if any(first_claim in s.ids for s in sentences if s is not best):
        return (f"merge: the sentence stating it names {best.shown[others[0]]}, not "
                f"{c.shown[first_claim]} (named in another sentence)")
    return None
