"""Who did what to whom: the role contrast of `localeval.text.contrast_rules`, from a spaCy parse.

A small NLI judge reads "Martin Hale wrote 'Winter Harbour'" as entailed by "'Winter Harbour'
was written by Clara Voss ... and adapted for the stage by Martin Hale": every word is there.
`role_contrast` parses both sides into (agent, verb, patient) triples -- active subjects and
objects, passive subjects and their "by" agents, conjuncts, a conjoined verb sharing its
subject -- and fires when the premise uses the claim's verb with

- the claim's two named arguments in each other's slots (a swap across a change of voice), or
- the claim's patient but another agent, while the claim's (named) agent is named elsewhere in
  the premise (an act moved to someone the premise also mentions). The premise's act may hold
  the claim's patient as its object or after a preposition ("Orville Wright piloted the Flyer
  on the first flight" / "Wilbur piloted the first flight").

It stays quiet whenever an argument is a pronoun, empty or an acronym (coreference is not
resolved), for light verbs ("have", "make", "include"...), and for a claim that names no one.
The parse is spaCy's installed pipeline (`localeval.text.entities.load_nlp`) without its entity
recogniser; it runs only on claims that name someone, and on premises that name the claim's
agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from localeval.text.lexical import normalise
from localeval.text.memo import active_memo

if TYPE_CHECKING:
    from localeval.text.checks import Facts

__all__ = ["COMPARING", "Parse", "Tagged", "facts", "is_object", "may_name_someone", "parse_many", "reads_premise",
           "role_contrast", "tagged_sentences"]

_PRONOUNS = frozenset("it he she they them him her this that these those which who whom its itself himself herself "
                      "themselves one you we i me us".split())
_LIGHT_VERBS = frozenset("have be do make take get give go come include use say see find show provide allow".split())
_SKIPPED_DEPS = frozenset({"det", "punct", "case", "cc", "prep", "relcl", "acl", "advcl"})
COMPARING = frozenset({"before", "after", "than", "like"})
"""The prepositions by which a claim sets its doer beside another ("Finland adopted the policy
before Norway", "fell before Constantinople"): the other is named as the other side of a
comparison, not given the act, so neither role check reads it as the claim's doer replaced."""
_DASHES = frozenset({"-", "\u2013", "\u2014"})
_TIME_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april may june "
                        "july august september october november december".split())
"""Nouns a range of hours may follow without being the verb's object ("opens Monday 9-5")."""


def is_object(child) -> bool:
    """Is a verb's dependent ``child`` its object? Its direct object, or a noun the small parser
    hangs on the verb as an adverbial noun because a match's score follows it ("Ajax beat
    Feyenoord 3-1": "Feyenoord" an ``npadvmod``). Such a noun stands after the verb, the verb
    has no direct object, the score ("3-1", "31-17") follows the noun at once, and the noun is
    not a day or month ("opens Mondays 9-5")."""
    if child.dep_ == "dobj":
        return True
    verb, doc = child.head, child.doc
    if (child.dep_ != "npadvmod" or child.pos_ not in ("PROPN", "NOUN") or child.i < verb.i
            or child.lower_.removesuffix("s") in _TIME_NAMES):
        return False
    if any(c.dep_ == "dobj" for c in verb.children):
        return False
    j = child.i + 1
    return j + 2 < len(doc) and doc[j].like_num and doc[j + 1].text in _DASHES and doc[j + 2].like_num


_CAPITALISED = re.compile(r"\b[A-Z][a-z]+")
_SENTENCE_STARTERS = frozenset("The A An In On At It This That These Those He She They We I His Her Its Their There "
                               "After Before When While Since If As By For From With".split())


@dataclass(frozen=True)
class _Argument:
    words: frozenset[str]  # stems of its content words
    head: str  # stem of its head word
    names: frozenset[str]  # its named words, lower case
    acronym: bool  # its head is an acronym ("PTH"): it may stand for anything

    @property
    def unknown(self) -> bool:
        return self.head in _PRONOUNS or not self.words or self.acronym


def _argument(token) -> _Argument:
    words, names = set(), set()
    for t in token.subtree:
        if t.dep_ in _SKIPPED_DEPS or (t.is_stop and t.pos_ not in ("PROPN", "NUM")):
            continue
        words.add(normalise(t.lemma_.lower()))
        # A name: a proper noun, or a capitalised word inside the sentence ("the Polish army").
        if t.pos_ == "PROPN" or (t.is_title and not t.is_sent_start):
            names.add(t.text.lower())
    acronym = token.text.isupper() and 1 < len(token.text) <= 6
    return _Argument(frozenset(words), normalise(token.lemma_.lower()), frozenset(names), acronym)


def _with_conjuncts(token) -> list:
    return [token, *token.conjuncts]


Tagged = tuple[tuple[tuple[str, str], ...], ...]
"""Per sentence (spaCy's), its words as (text, coarse part of speech), punctuation left out."""


Triple = tuple[str, _Argument, _Argument, str]
"""(verb, agent, patient, preposition): the patient is the verb's object (preposition ""), or
the object of that preposition (lower case)."""

Parse = tuple[tuple[Triple, ...], Tagged, "Facts"]
"""A text's (verb, agent, patient) triples, its tagged sentences and its atoms for the
contradiction checks: one parse serves every rule that needs one (role,
`localeval.text.merges`, `localeval.text.checks`)."""

_PARSE_BATCH = 64
_PARSES = f"{__name__}.parse"  # the run memo's table of parses (`localeval.text.memo`)


def parse_many(texts: Iterable[str]) -> None:
    """Parse those of ``texts`` the run has not parsed, in batches, into its memo
    (`localeval.text.memo`; without one there is nowhere to keep them and nothing is done):
    spaCy's ``pipe`` parses short texts about twice as fast as one call per text, with the
    same result (measured on 800 units: identical tags, dependencies and heads).
    `localeval.text.contrast_rules.contrast_many` calls it before reading the rules on many pairs."""
    memo = active_memo()
    if memo is None:
        return
    todo = [t for t in dict.fromkeys(texts) if not memo.lookup(_PARSES, t)[0]]
    if todo:  # nothing new: spaCy is not even loaded
        for text, parse in zip(todo, _parsed(todo)):
            memo.store(_PARSES, text, parse)


def _parse(text: str) -> Parse:
    memo = active_memo()
    found, parse = memo.lookup(_PARSES, text) if memo is not None else (False, None)
    if not found:
        parse = _parsed([text])[0]
        if memo is not None:
            memo.store(_PARSES, text, parse)
    return parse


def _parsed(texts: list[str]) -> list[Parse]:
    from localeval.text.entities import load_nlp

    # The entity recogniser is half the parse's cost and adds nothing the capitalisation test
    # of `_argument` misses (checked on the contrast set): it is not run.
    docs = load_nlp().pipe(texts, batch_size=_PARSE_BATCH, disable=["ner"])
    from localeval.text.checks import facts_of

    return [(_triples_of(doc), _tagged(doc), facts_of(doc)) for doc in docs]


def _tagged(doc) -> Tagged:
    return tuple(tuple((t.text, t.pos_) for t in sent if not (t.is_punct or t.is_space)) for sent in doc.sents)


def tagged_sentences(text: str) -> Tagged:
    """``text``'s sentences as spaCy splits them, each word with its part of speech."""
    return _parse(text)[1]


def facts(text: str) -> Facts:
    """``text``'s atoms, relations and numbered clauses (`localeval.text.checks`)."""
    return _parse(text)[2]


def _triples(text: str) -> tuple[Triple, ...]:
    return _parse(text)[0]


def _triples_of(doc) -> tuple[Triple, ...]:
    out = []
    for verb in doc:
        if verb.pos_ != "VERB":
            continue
        agents, patients = [], []
        for child in verb.children:
            if child.dep_ == "nsubj":
                agents += _with_conjuncts(child)
            elif child.dep_ == "nsubjpass" or is_object(child):
                patients += _with_conjuncts(child)
            elif child.dep_ == "agent":
                agents += [g for p in child.children if p.dep_ == "pobj" for g in _with_conjuncts(p)]
        if verb.dep_ == "conj" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
            # "was besieged by X but was relieved by Y": the second verb shares the subject.
            for child in verb.head.children:
                if child.dep_ == "nsubjpass":
                    patients += _with_conjuncts(child)
                elif child.dep_ == "nsubj" and not agents:
                    agents += _with_conjuncts(child)
        lemma = normalise(verb.lemma_.lower())
        out += [(lemma, _argument(a), _argument(p), "") for a in agents for p in patients]
        # What the act was on or about, by a preposition ("piloted the Flyer on the first
        # flight"): read only where the premise gives the act to another doer.
        objects = [(prep.lower_, o) for prep in verb.children if prep.dep_ == "prep" for o in prep.children if o.dep_ == "pobj"]
        out += [(lemma, _argument(a), _argument(o), prep) for a in agents for prep, o in objects]
    return tuple(out)


def _same(x: _Argument, y: _Argument) -> bool:
    """Could the two be the same thing? Unknown arguments could be anything."""
    return x.unknown or y.unknown or x.head in y.words or y.head in x.words or bool(x.words & y.words)


def _describes(description: _Argument, named: _Argument, lowered_premise: str) -> bool:
    """Is ``description`` (no name of its own: "the airport") how the premise refers back to
    ``named``? It is when the premise writes one of the names in a phrase ending in the
    description's head that holds all the description's words ("Northfield Airport ... the
    airport"): the same thing, not another doer ("the central bank" is not "Halvorsen Bank")."""
    if description.names or len(description.head) < 3:
        return False
    head = re.escape(description.head)
    for name in named.names:
        for found in re.finditer(rf"\b{re.escape(name)}(?:\s+[\w'-]+){{0,2}}?\s+{head}\w*\b", lowered_premise):
            if description.words <= {normalise(w) for w in found.group(0).split()}:
                return True
    return False


def may_name_someone(claim: str) -> bool:
    """The role rule's gate before any parse: a capitalised word that does not merely start a
    sentence. A claim without one is never parsed for the role rule."""
    return any(w not in _SENTENCE_STARTERS for w in _CAPITALISED.findall(claim))


def _named_triples(claim: str) -> list[Triple]:
    """The claim's acts on an object with a named argument (none when it names no one: then
    no parse is paid for)."""
    if not may_name_someone(claim):
        return []
    return [t for t in _triples(claim) if t[0] not in _LIGHT_VERBS and not t[3] and (t[1].names or t[2].names)]


def _names_someone(mine: list[Triple], lowered_premise: str) -> bool:
    return any(n in lowered_premise for _, a, p, _ in mine for n in a.names | p.names)


def reads_premise(claim: str, premise: str) -> bool:
    """Does `role_contrast` parse the premise? Only when it names someone the claim's acts
    name (the claim is parsed to know)."""
    return _names_someone(_named_triples(claim), premise.lower())


def role_contrast(claim: str, premise: str) -> str | None:
    """A reason when the premise gives the claim's act another agent or swaps its arguments."""
    mine = _named_triples(claim)
    lowered = premise.lower()
    if not _names_someone(mine, lowered):
        return None

    def named_here(x: _Argument) -> bool:
        return bool(x.names) and all(n in lowered for n in x.names)

    theirs = _triples(premise)
    for verb, agent, patient, _ in mine:
        same_verb = [(a, p, prep) for v, a, p, prep in theirs if v == verb and not (prep and p.unknown)]
        if not same_verb or any(_same(agent, a) and _same(patient, p) for a, p, _ in same_verb):
            continue
        beside = [o for v, a, o, prep in _triples(claim) if v == verb and prep in COMPARING and a == agent]
        for a, p, prep in same_verb:
            if any(o.names & a.names for o in beside):
                continue  # the premise's doer is the claim's other side ("before Norway")
            if (not prep and named_here(agent) and named_here(patient) and agent.names & p.names
                    and patient.names & a.names and not agent.names & a.names):
                return f"role: the evidence has {' '.join(sorted(a.names))} {verb} {' '.join(sorted(p.names))}"
            if (_same(patient, p) and named_here(agent) and not a.unknown
                    and not agent.words & a.words and not agent.names & a.names and not _describes(a, agent, lowered)):
                return (f"role: in the evidence, {' '.join(sorted(a.words))} (not "
                        f"{' '.join(sorted(agent.names))}) {verb} {' '.join(sorted(patient.words))}")
    return None
