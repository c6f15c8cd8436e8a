"""Contradiction checks read from a spaCy parse: what a claim states against what a premise states.

A small NLI judge passes "Yes, you can use vinegar to descale the machine." against "Never use
vinegar to descale the machine" (P(entailment) 0.91): every word is there. Its own
P(contradiction) does not tell such pairs from true restatements either (medians 0.06 and 0.09
over the 310 hand-written contrast pairs of `benchmarks/contrast` and `benchmarks/checks`), so
these checks read the structure the judge misses and leave the rest to it.

Both texts are parsed into *atoms*: one predicate (a verb's lemma, or "be" with its attribute)
with its slots -- agent (active subject, passive "by" object), patient (object, passive
subject), attribute, and each preposition's object -- where coordinated arguments are
distributed ("A and B walked" gives two atoms; "covers parts for two years and labour for one
year" gives "cover parts for two years" and "cover labour for one year"). An argument is its
head word's lemma with its modifiers (compounds, adjectives, numbers). Two arguments *agree*
when their heads match (or one's head is among the other's words) and their modifiers and
numbers do not differ; otherwise they *conflict*. A preposition's object conflicts only by a
different number, agrees by a shared word, else says nothing.

The checks, each a `localeval.text.contrast_rules` rule:

- ``polarity``: a premise atom that would support the claim's atom (same predicate, an agreeing
  slot, none conflicting) is negated where the claim's is not, or the other way round, and no
  atom of the premise supports the claim's with its own polarity in every slot the denying one
  agrees in ("may not sublet the flat" / "may sublet the flat"; "do not tighten the nuts with an
  impact wrench. Tighten them by hand" still denies "tighten the nuts with an impact wrench"; a
  verb under a negated "permitted to", "allowed to", "able to" is negated too); a premise's "it"
  / "them" acted on is read as the one thing acted on before it (`_resolved`), and a question
  states nothing; a premise atom inside a condition or an exception ("if you do not prime the
  pump, ...", "when charging overnight") denies only a claim atom inside one of the same kind,
  of the same verb, and one the premise does not assert ("a chance to praise colleagues", "do
  not need to renew") denies nothing unless it is itself negated (a prohibition inside a heading
  still forbids). A denial must cover what the claim says: not limited by a clause of its own to
  a circumstance the claim does not speak of ("do not drain the filter when the engine is
  running"), not of a group a clause narrows ("obstacles located below the sensors"), not of
  another act (a particle, "turn off" / "turn on"; the verb a "need" governs; a purpose, "to
  erase the channels", states no act); and a plain statement of an act does not deny a claim
  that denies it only in a circumstance of its own the premise never speaks of ("the TV may not
  be able to connect if the network is slower than 10 Mbps");
- ``swap``: no atom supports the claim's atom, and one with the same predicate differs from it
  in exactly one core slot while agreeing in another, the claim's value of that slot being
  given to something else in the premise (roles swapped across coordinated arguments, an
  attribute distributed to the wrong item: "Lindqvist leads cardiology" / "Osei leads
  cardiology, Lindqvist heads oncology"); not when that atom holds the claim's object after a
  preposition ("flew the night mission" / "flew the helicopter on the night mission");
- ``order``: the claim relates two things by "before/after", "earlier/later than" or a
  comparative ("higher", "more ... than"), the premise states a date or number for each (the
  number nearest a word only that side names; a year for an event, any number but a year for a
  quantity, the two of one unit where both have one; "named after" is no order), and the
  numbers say the other way round.

Every check fires only on positive evidence in the premise: an atom the claim's contradicts, or
two numbers. English only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from localeval.text.contrast_rules import quantity, same_value
from localeval.text.lexical import content_terms, stem
from localeval.text.numbers import (BELOW_HEDGES, HEDGES, NUMBER_WORDS, ORDINAL_WORDS, SCALE_WORDS, and_a_half, approximates,
                                     is_year, numbers_in)
from localeval.text.roles import COMPARING, is_object

__all__ = ["CHECKS", "EXTREME_WORDS", "RELATION_WORDS", "Atom", "Facts", "facts_of", "order_confirmation", "order_contrast", "polarity_contrast", "reads_premise", "restricted_denial", "supported_atom",
           "swap_contrast"]

_CORE = ("agent", "patient", "attr")
_COMPARED = frozenset({*_CORE, "comp"})
"""Slots whose values must name the same thing to agree: the core roles, and the verb a
"need", "try" or "want" governs ("does not need to be pointed" says nothing of "needs to be
replaced")."""
_NEGATING_HEADS = frozenset("permit allow let able possible safe fine ok okay".split())
_MOD_DEPS = frozenset({"compound", "amod", "nummod", "nmod", "poss", "npadvmod", "quantmod"})
_SKIP_LEMMAS = frozenset({"the", "a", "an", "-", "'s", "'"})
_TITLES = frozenset("dr mr mrs ms prof sir st".split())
_BOUND_WORDS = frozenset("more less fewer than over under least most".split())
_BOUND_RUN = _BOUND_WORDS | {"at", "no", "not"}  # the words of a bound before its number ("not more than", "at least")
_MONTHS = {m: i for i, m in enumerate("january february march april may june july august september october "
                                      "november december".split(), 1)}


@dataclass(frozen=True)
class Arg:
    """One argument: its head lemma, its modifiers' lemmas, every content lemma, its numbers."""

    head: str
    mods: frozenset[str]
    words: frozenset[str]
    numbers: frozenset[str]
    named: bool
    pronoun: bool = False  # "it", "them": agrees and conflicts with nothing (the denial checks read a premise's as the thing it stands for, `_resolved`)
    bounded: frozenset[str] = frozenset()
    """The bound words of a bounded quantity ("more than five days": {more, than}): a negation
    of its verb bounds the quantity instead (`_flips`)."""
    capital: bool = False  # written with a capital: the small tagger calls many a rare name a noun ("Sacagawea")
    restricted: bool = False
    """Narrowed by a clause of its own ("obstacles located below the sensors", "passengers who
    have not paid"): what is said of it is said of those alone."""
    contrasted: bool = False
    """Its text names the same head with other modifiers too ("the lower basket" and "the upper
    basket"): there the modifiers tell two things apart, wherever the noun stands."""
    hedge: str = ""
    """The word that makes its number an approximation ("about 5,000 households": "about";
    `numbers.HEDGES`), or ""."""


@dataclass(frozen=True)
class Atom:
    lemma: str
    negated: bool
    slots: tuple[tuple[str, Arg], ...]
    asserted: bool = True
    """False for a verb the text does not state as a fact: a gerund subject ("Subletting ...
    requires"), a clause of a noun, a non-finite "when using the drill", a question ("can I
    wash the lid ...")."""
    relational: bool = False
    """A comparative ("is longer than"): a relation between two things, read by the order check."""
    sentence: int = 0
    """Where the atom's sentence starts (a token index): a swap reads the atoms of one sentence
    as one coordinated statement."""
    condition: str = ""
    """"if" for a verb in a condition ("if the light does not flash", "when parking"),
    "unless" in an exception ("unless it is fifty years old"), "" for a plain statement."""
    conditioned: str = ""
    """The verb a condition is a condition of ("if you do not disconnect both batteries, injury
    could result": "result"), "" outside one."""
    particle: str = ""
    """The verb's particle: "turn off" and "turn on" are two acts."""
    restriction: frozenset[frozenset[str]] = frozenset()
    """The content words of the circumstance a clause of the verb limits it to ("do not drain
    the filter when the engine is running": "engine" and "running"), each as the stems of it
    and its alternatives (`_restriction`); empty when it has none."""
    form: str = field(default="", compare=False)
    """The verb as written, lower case: the tagger may give one word two lemmas ("must not be
    frozen": "freeze"; "may be frozen": "frozen")."""
    bound: frozenset[str] = frozenset()
    """The bounded quantities its own clause states, each as its words ("more than 14", "under
    18"), wherever the parse hangs them: a denial of the verb bounds them instead (`_flips`)."""

    def slot(self, name: str) -> Arg | None:
        return next((a for k, a in self.slots if k == name), None)


@dataclass(frozen=True)
class Relation:
    """A claim's "X before Y" / "X higher than Y": +1 when X's value is claimed the larger."""

    direction: int
    left: frozenset[str]
    right: frozenset[str]
    gap: float | None = None
    """The difference the claim states ("three years before", "150 euros more expensive"),
    or its ratio with ``times`` ("eight times the standard dose"); None when none is stated."""
    hedge: str = "exact"
    """How the gap is stated: exact, "almost" (at most), "about", "over" (at least), "under"."""
    stated_gap: bool = False
    events: bool = False
    """A "before/after" between two events: their values must read as years (100 to 2100) to
    confirm it (a number near an event -- an age, "after 11 years" -- is not its date)."""
    """A gap is stated, read or not: such a relation is left to the number rule by the order
    check, and confirmed only when its gap is read and matches."""
    ratio: bool = False
    """The gap is a factor ("eight times the standard dose", "twice as long as"), not a difference."""
    gap_alt: float | None = None
    """The gap in the larger unit of its kind when it is stated in a hundredth ("70 cents more":
    0.7), since the premise may give the prices in euros."""
    right_ends: bool = False
    """The right side is the end of a span ("after Victoria's reign ended"): its value is the
    span's end where the premise states one ("reigned from 1837 to 1901")."""
    units: frozenset[str] = frozenset()
    """What the compared numbers must count, where the comparative says: a currency for
    "cheaper", "more expensive"; empty: anything."""
    stated: tuple[float | None, float | None] = (None, None)
    """The year the claim itself gives each side of a before/after ("Kerr retired in 2015
    before his spell with Valencia": 2015 for the left), or None."""


@dataclass(frozen=True)
class Extreme:
    """A claim's "X fell first" / "X joined last": of those the text dates doing ``verb``,
    X did it earliest (``direction`` -1) or latest (+1)."""

    direction: int
    subject: Arg
    verb: str


@dataclass(frozen=True)
class State:
    """An opening or closing word as the parse reads it (`STATE_WORDS`): what it is said of, by
    whom, and whether as a fact, a step of a procedure, or not at all."""

    polarity: int
    """+1 open, -1 closed, a negation flipping it ("not fully closed" is open)."""
    thing: frozenset[str]
    """What is open or closed, its head and naming words (the object of "close the menu", the
    subject of "the north car park is open"); empty for a pronoun or where the parse names none."""
    agent: frozenset[str]
    """The doer of an act on a thing ("gas cans will not open the doors"), empty for none."""
    step: bool
    """An instruction or its purpose: "Close the menu", "to open the hood", "hold the doors open"."""
    said: bool
    """False for a word that states nothing: a modifier ("open heart operations"), a condition
    ("when the hood is open"), a circumstance ("With the harness open, pull ...")."""
    restriction: frozenset[frozenset[str]] = frozenset()
    """The circumstance the word is limited to (`_restriction`)."""


STATE_WORDS = {"open": 1, "close": -1, "shut": -1}
"""The lemmas whose parse the word rule ``opposite`` reads for its pair ``open`` (`states_conflict`)."""


@dataclass(frozen=True)
class Facts:
    atoms: tuple[Atom, ...] = ()
    relations: tuple[Relation, ...] = ()
    # Per clause of the text: its (lemma, numeric value or None) tokens.
    clauses: tuple[tuple[tuple[str, float | None], ...], ...] = field(default=())
    durations: tuple[tuple[str, float, str], ...] = ()
    """Each "<verb> for N years": the verb's lemma, N and its hedge ("followed for six years")."""
    spans: tuple[tuple[str, float, float], ...] = ()
    """Each verb dated by a span of years: its lemma, the first and the last year ("ran from 2015
    to 2019"; "enrolled in 2015 and followed them until 2021" dates "follow")."""
    extremes: tuple[Extreme, ...] = ()
    dates: frozenset[tuple[int, int]] = frozenset()
    """Where (clause, token) ``clauses`` holds a number that reads as a year (`_reads_as_year`)."""
    statements: tuple[Statement, ...] = ()
    """What each subject is said to be or do with numbers (`_statements`)."""
    units: frozenset[tuple[tuple[int, int], str]] = frozenset()
    """The unit of each number of ``clauses`` that has one (`_unit`), by (clause, token)."""
    states: tuple[State, ...] = ()
    """Each opening or closing word (`State`)."""


@dataclass(frozen=True)
class Statement:
    """A verb with its grammatical subject: the subject's name (its head and the words that
    name it: "the telephoto lens", "its main span" -> {telephoto, lens} / {main, span}), the
    numbers the rest of the statement states, and all its content lemmas."""

    subject: frozenset[str]
    pronoun: bool  # the subject is a pronoun ("it opens at 10:00"): it may be anything named before
    numbers: frozenset[str]
    words: frozenset[str]
    phrase: frozenset[str] = frozenset()
    """The content lemmas of the whole subject phrase, its possessor and prepositions included
    ("the bridge's main span" -> {bridge, main, span}): whose thing it is, not what is said of it."""


# ------------------------------------------------------------------ reading a parse

def _lemma(token) -> str:
    """A token's lemma, lower case, without the full stop the tokenizer leaves on a word that
    ends a sentence and looks like an abbreviation ("below 0 C." is "c", as "below 0 C;" is)."""
    lemma = token.lemma_.lower().replace("’", "'")
    return lemma.rstrip(".") or lemma


def _number(token) -> str | None:
    if (whole := _spelled_whole(token)) is not None:
        return whole
    if token.dep_ == "nummod" and _lemma(token) == "one":
        return "1"  # (the number reader leaves "one" out: it is more often a pronoun)
    if not (token.like_num or token.text[:1].isdigit()):
        return None
    values = numbers_in(token.text)
    return next(iter(values)) if len(values) == 1 else None


def _scaled(token) -> str | None:
    """An argument's number, with the scale word after its digits or the digits before it
    ("1.5 million", whichever of the two tokens is read): the parse cuts the number in two,
    and "1.5" alone disagrees with the "1,500,000" or "one and a half million" of the other
    side. (Clause numbers get their scale in `_value` and `_gap`.)"""
    doc, i = token.doc, token.i
    if token.text[:1].isdigit() and i + 1 < len(doc) and doc[i + 1].lower_ in SCALE_WORDS:
        values = numbers_in(f"{token.text} {doc[i + 1].text}")
    elif token.lower_ in SCALE_WORDS and i > 0 and doc[i - 1].text[:1].isdigit():
        values = numbers_in(f"{doc[i - 1].text} {token.text}")
    else:
        return _number(token)
    return next(iter(values)) if len(values) == 1 else None


def _spelled_whole(token) -> str | None:
    """The number of the spelled number ``token`` is one word of (`_spelled_span`), where its
    words read as one number ("ten and eleven", "one hundred and two hundred": each word alone)."""
    span = _spelled_span(token)
    values = numbers_in(span[2]) if span else frozenset()
    return next(iter(values)) if len(values) == 1 else None


def _spelled_span(token) -> tuple[int, int, str] | None:
    """Where the spelled number the parser cut into tokens around ``token`` starts and ends
    ("three", "hundred", "and", "sixty", "-", "five"; "Twenty", "-", "first"; "a", "hundred"),
    and its words with the word before them (which tells "the thirty-second" from "a
    thirty-second"), so that each of its tokens reads as the whole number (365, not 3 and 65;
    21, not 20; `numbers_in` reads the words, as it does in a text); None where ``token`` is a
    number word alone or no word at all. Whoever multiplies a number by the scale word after
    it ("2 million") must not do so inside such a span: the scale is in its number already."""
    doc, i = token.doc, token.i
    if token.lower_ not in NUMBER_WORDS:
        return None
    part = lambda t: t.lower_ in NUMBER_WORDS or t.text == "-" or t.lower_ == "and" or _of_and_a_half(t)  # noqa: E731
    start = i
    while start > 0 and (part(doc[start - 1]) or (doc[start - 1].lower_ in ("a", "an") and doc[start].lower_ in SCALE_WORDS)
                         or (doc[start - 1].lower_ == "half" and doc[start].lower_ in ("a", "an"))):  # "half a million"
        start -= 1
    end = i + 1
    while end < len(doc) and (part(doc[end]) or doc[end].lower_ in ORDINAL_WORDS):
        end += 1
        if doc[end - 1].lower_ in ORDINAL_WORDS:
            break  # an ordinal ends the number ("twenty-first")
    while end > i + 1 and doc[end - 1].lower_ in ("and", "-"):
        end -= 1
    while start < i and doc[start].lower_ in ("and", "-"):
        start += 1
    if end - start < 2:
        return None
    lead = doc[start - 1].text if start > 0 and not doc[start - 1].like_num else ""
    return start, end, f"{lead} {doc[start:end].text}"


def _of_and_a_half(token) -> bool:
    """Is ``token`` the "a" or "half" of "and a half" ("two and a half years")?"""
    doc, i = token.doc, token.i
    back = {"a": 1, "an": 1, "half": 2}.get(token.lower_)
    return back is not None and i >= back and and_a_half([t.lower_ for t in doc[i - back:i - back + 3]])


def _arg(token, clause=None) -> Arg:
    """``token`` as an argument of the verb ``clause`` (whose own relative clause, if it is
    one, says something of it rather than narrowing it)."""
    head = _lemma(token)
    mods, numbers = _modifiers(token)
    named = token.pos_ == "PROPN"
    lemmas = {_lemma(t) for t in token.subtree}
    # ("no more than eight tablets" is another bound than "more than eight tablets")
    bounded = frozenset(lemmas & (_BOUND_WORDS | {"no", "not"})) if lemmas & _BOUND_WORDS else frozenset()
    restricted = any(c.dep_ in ("acl", "relcl") and c is not clause and not _aside(c) for c in token.children)
    hedge = next((_lemma(t) for t in token.subtree if _lemma(t) in HEDGES and _number(t.head) is not None), "")
    return Arg(head, mods, mods | {head} | _appositive(token), numbers, named, token.pos_ == "PRON", bounded,
               token.text[:1].isupper(), restricted, hedge=hedge)


def _appositive(token) -> frozenset[str]:
    """The words of a name or description set beside the argument ("The tenant, Greene, sued";
    "Maria Lopez, our chief executive,"): the same thing written twice, so that either agrees
    with it ("Greene sued the council" is the tenant's act, "The council sued Greene" a swap)."""
    words: set[str] = set()
    for child in token.children:
        if child.dep_ == "appos":
            words |= {_lemma(child), *_modifiers(child)[0]}
    return frozenset(words)


def _aside(clause) -> bool:
    """A clause set off by a comma ("the acid, which is not soluble,"): it describes its noun,
    it does not single some of them out."""
    start = clause.left_edge.i
    return start > 0 and clause.doc[start - 1].text == ","


def _act(token) -> Arg:
    """The verb a "need" or "try" governs, as an argument of it: its lemma alone."""
    lemma = _lemma(token)
    return Arg(lemma, frozenset(), frozenset({lemma}), frozenset(), False)


def _modifiers(token) -> tuple[frozenset[str], frozenset[str]]:
    """An argument's modifier lemmas and its numbers (the head's own included)."""
    mods, numbers = set(), set()
    for child in token.children:
        # (Not spaCy's stop words: "two", "front", "first" are among them.)
        if child.dep_ in _MOD_DEPS and _lemma(child) not in _SKIP_LEMMAS and child.pos_ not in ("DET", "PRON"):
            mods.add(_lemma(child))
            numbers |= {n for n in (_scaled(child),) if n}
            for g in child.children:  # "8 kg cabin bag", "type 2 diabetes"
                if g.dep_ in _MOD_DEPS and g.pos_ not in ("DET", "PRON"):
                    mods.add(_lemma(g))
                    numbers |= {n for n in (_scaled(g),) if n}
    number = _scaled(token)
    if number:
        numbers.add(number)
    # Numbers are compared by value ("eight" / "8"), titles not at all ("Dr").
    mods -= _TITLES | {m for m in mods if numbers_in(m)} | numbers
    return frozenset(mods), frozenset(numbers)


def _conjuncts(token) -> list:
    return [_named_by(t) for t in (token, *(c for c in token.conjuncts if c.pos_ in ("NOUN", "PROPN", "NUM", "ADJ", "PRON")))]


_COLLECTIVE = frozenset("group team number couple pair crowd band handful majority minority bunch party batch "
                        "dozen dozens hundreds thousands millions".split())
"""Heads that only count or gather what their "of" object names: "a group of retired sailors"
founded the museum as the retired sailors did."""


def _named_by(token):
    """"those in group B" is group B: a pronoun's own "in/of/with" object names it; so does the
    "of" object of a collective head ("a group of sailors" is the sailors), and a relative
    pronoun's noun ("the acid, which is not soluble": the acid)."""
    if token.tag_ in ("WDT", "WP") and token.head.dep_ == "relcl" and token.head.head.pos_ in ("NOUN", "PROPN"):
        return _named_by(token.head.head)
    if token.pos_ == "PRON":
        return next((o for p in token.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"), token)
    if _lemma(token) in _COLLECTIVE:
        return next((o for p in token.children if p.dep_ == "prep" and _lemma(p) == "of"
                     for o in p.children if o.dep_ == "pobj"), token)
    return token


def _negated(verb) -> bool:
    """A "not"/"never" on the verb or its auxiliaries, a negative phrase before it
    (`_negative_front`: "under no circumstances should you"), or a negated permission above it
    ("are not permitted to carry", "must never be run", "may not be able to maintain")."""
    if any(_negates(c) for c in verb.children) or _negated_by_word(verb) or _negative_front(verb) is not None:
        return True
    head = verb.head
    if verb.dep_ == "xcomp" and head.i != verb.i and (_lemma(head) in _NEGATING_HEADS or head.pos_ == "AUX"):
        if head.dep_ == "acomp" and _lemma(head) in _NEGATING_HEADS and any(_negates(c) for c in head.head.children):
            return True
        return any(_negates(c) for c in head.children) or any(
            c.dep_ == "acomp" and _lemma(c) in _NEGATING_HEADS and any(_negates(g) for g in c.children)
            for c in head.children)
    return False


def _negates(token) -> bool:
    """A "not" or "never", but not the "or not" of "whether ... or not" (an alternative)."""
    if token.dep_ != "neg":
        return False
    before = token.doc[token.i - 1] if token.i > 0 else None
    return not (before is not None and before.lower_ == "or"
                and any(t.lower_ == "whether" for t in token.doc[token.sent.start:token.i]))


_CONDITION_WORDS = {"if": "if", "when": "if", "whenever": "if", "where": "if", "once": "if",
                    "unless": "unless", "except": "unless"}


def _condition(verb) -> tuple[str, str]:
    """("if", what it conditions) when ``verb`` is in a condition up its chain of clauses ("if
    you do not disconnect both batteries, serious injury could result": "result"; "when
    parking"), ("unless", ...) in an exception ("except where it has been determined that a
    risk does not exist"), else ("", "")."""
    token = verb
    for _ in range(6):
        if token.dep_ == "advcl":
            words = [c.lower_ for c in token.children if c.dep_ in ("mark", "advmod")]
            words += [c.lower_ for c in token.head.children if c.dep_ == "prep" and c.i < token.i]
            found = next((_CONDITION_WORDS[w] for w in words if w in _CONDITION_WORDS), None)
            if found:
                return found, _lemma(token.head)
        if token.dep_ not in ("advcl", "ccomp", "xcomp", "conj", "pcomp") or token.head.i == token.i:
            return "", ""
        token = token.head
    return "", ""


_RESTRICTING = frozenset("if when whenever while until till once where before after".split())
"""Words that limit a clause to a circumstance ("do not drain the filter when the engine is
running"); "unless" and "except" do not: "do not give it to children unless a doctor says so"
forbids it in general."""


def _restriction(verb) -> frozenset[frozenset[str]]:
    """The content words of the clauses that limit ``verb`` to a circumstance (`_RESTRICTING`),
    its own or those of the verb it completes ("will not be able to connect if your network
    speed is below 10 Mbps"): per word, the stems of it and of the words "or" joins to it, any
    one of which speaks of it ("while you are in the bath or shower": {bath, shower} is one)."""
    words: dict[int, set[str]] = {}
    holders = [verb]
    while holders[-1].dep_ in ("xcomp", "acomp") and len(holders) < 4:
        holders.append(holders[-1].head)
    for clause in (c for h in holders for c in h.children):
        if clause.dep_ == "advcl" and any(c.dep_ in ("mark", "advmod") and c.lower_ in _RESTRICTING
                                          for c in clause.children):
            for t in clause.subtree:
                if t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM") and not t.is_stop:
                    words.setdefault(_alternative_of(t).i, set()).add(stem(_lemma(t)))
    return frozenset(frozenset(w) for w in words.values())


def _alternative_of(token):
    """The first of the words "or" joins ``token`` to ("bath" for "shower" in "the bath or
    shower"), ``token`` itself where it is no alternative."""
    while token.dep_ == "conj" and any(c.dep_ == "cc" and c.lower_ in ("or", "nor") for c in token.head.children):
        token = token.head
    return token


def _purpose(verb) -> bool:
    """An infinitive of purpose ("To erase the channels, hold ...", "hold it to reset")."""
    return verb.dep_ == "advcl" and verb.tag_ == "VB" and any(c.dep_ == "aux" and c.tag_ == "TO" for c in verb.children)


def _asked(verb) -> bool:
    """A verb of a question: its sentence ends with "?" (a FAQ's heading), or a helping verb
    comes before its subject ("does the warranty cover limescale damage", "can I wash the lid":
    the row's question read before an answer, `localeval.metrics.pieced`, loses its "?"). It
    asks; it states nothing."""
    words = [t for t in verb.sent if not t.is_space]
    if words and words[-1].text == "?":
        return True
    subject = next((c.i for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return subject is not None and _negative_front(verb) is None and any(
        c.dep_ == "aux" and c.tag_ != "TO" and c.i < subject for c in verb.children)


def _negative_front(verb):
    """The negative phrase put before ``verb``'s subject that turns the helping verb round
    ("Under no circumstances should you open the casing", "At no time may the child be left
    alone", "Never should the valve be opened"): the phrase's preposition, or its adverb; None
    where there is none. The sentence is no question, and the phrase denies the verb. Without
    the turned helping verb the phrase denies nothing: "In no time, the kettle boils"."""
    subject = next((c.i for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or not any(c.dep_ == "aux" and c.tag_ != "TO" and c.i < subject for c in verb.children):
        return None
    for c in verb.children:
        if c.i < subject and (c.lower_ in ("never", "nowhere") or (c.dep_ == "prep" and any(
                o.dep_ == "pobj" and any(d.dep_ == "det" and d.lower_ == "no" for d in o.children)
                for o in c.children))):
            return c
    return None


_AVOIDING = frozenset("avoid stop quit cease".split())
"""Verbs that negate the verb they govern: "avoid giving aspirin" is "do not give aspirin"."""
_KEEPING_FROM = frozenset("refrain abstain prohibit forbid ban bar prevent".split())
"""Verbs that negate the verb of their "from": "refrain from driving" is "do not drive"."""


def _negated_by_word(verb) -> bool:
    """A verb negated by a word other than "not": governed by "avoid" ("avoid giving"), the
    "from" of "refrain" ("refrain from driving"), "without" ("returned without landing"), or
    the second of "X rather than / instead of Y" ("kept to yourself rather than shared")."""
    head = verb.head
    if head.i == verb.i:
        return False
    if verb.dep_ == "pcomp" and _lemma(head) == "without":
        return True
    if verb.dep_ == "xcomp" and _lemma(head) in _AVOIDING:
        return not any(c.dep_ == "neg" for c in head.children)
    if verb.dep_ == "pcomp" and _lemma(head) == "from" and _lemma(head.head) in _KEEPING_FROM:
        return not any(c.dep_ == "neg" for c in head.head.children)
    if verb.dep_ in ("conj", "pcomp", "advcl"):
        between = " ".join(_lemma(t) for t in verb.doc[min(head.i, verb.i):verb.i])
        return between.endswith(("rather than", "instead of")) or " rather than " in f" {between} "
    return False


def _bound(verb) -> frozenset[str]:
    """The bounded quantities of ``verb``'s own clause (`Atom.bound`): a number after bound words
    ("more than 14 nights", "at least 18", "not more than four"), read from the words and not
    the parse, which hangs "under 12" on the verb or the noun as it pleases."""
    out = set()
    for token in verb.subtree:
        number = _number(token)
        if number is None or _clause_verb(token).i != verb.i:
            continue
        words = []
        for before in reversed(verb.doc[max(0, token.i - 4):token.i]):
            lemma = _lemma(before)
            if lemma not in _BOUND_RUN:
                break
            words.insert(0, lemma)
        if set(words) & _BOUND_WORDS:
            out.add(" ".join([*words, number]))
    return frozenset(out)


def _clause_verb(token):
    """The verb whose clause ``token`` is in: its nearest verb above it, auxiliaries passed over."""
    head = token.head
    while head.i != head.head.i and not (head.pos_ in ("VERB", "AUX") and head.dep_ not in ("aux", "auxpass")):
        head = head.head
    return head


def _preps(token) -> list[tuple[str, object]]:
    return [(f"prep:{_lemma(p)}", o) for p in token.children if p.dep_ in ("prep", "agent") and _lemma(p) != "by"
            for o in p.children if o.dep_ == "pobj"]


def _atoms_of_verb(verb) -> list[Atom]:
    front = _negative_front(verb)  # ("under no circumstances" is no circumstance: a "not")
    agents, patients, attrs = [], [], []
    shared = [(k, o) for k, o in _preps(verb) if front is None or o.head.i != front.i]
    gapped = []  # "and labour for one year": a noun conjoined to the verb, its own object
    for child in verb.children:
        dep = child.dep_
        if dep == "nsubj":
            agents += _conjuncts(child)
        elif dep == "nsubjpass" or is_object(child):
            patients += _conjuncts(child)
        elif dep in ("attr", "acomp", "oprd"):
            attrs += _conjuncts(child)
        elif dep == "agent":
            agents += [g for p in child.children if p.dep_ == "pobj" for g in _conjuncts(p)]
        elif dep == "conj" and child.pos_ in ("NOUN", "PROPN"):
            gapped.append(child)
    if _shares_subject(verb) and not agents and not any(c.dep_ == "nsubjpass" for c in verb.children):
        # A conjoined or controlled verb shares its head's subject ("adults should ... and take"),
        # up a chain of such verbs ("X took eight years to build and was opened in 1894"); a
        # passive one takes it as what its act was done to.
        head = _subject_holder(verb)
        subjects = [g for c in head.children if c.dep_ == "nsubj" for g in _conjuncts(c)]
        (patients if any(c.dep_ == "auxpass" for c in verb.children) else agents).extend(subjects)
        if verb.dep_ == "conj":
            # A passive head's subject is what the act was done to only where this verb is
            # passive too ("was besieged ... but relieved by the Danes"); an active verb's doer
            # ("Drug B is used to treat migraine and can cause drowsiness": Drug B causes it).
            passive = [g for c in head.children if c.dep_ == "nsubjpass" for g in _conjuncts(c)]
            (patients if _passive_form(verb) else agents).extend(passive)
    lemma, negated, (condition, conditioned) = _lemma(verb), _negated(verb), _condition(verb)
    # (Under a negated "need" or "want" the verb is neither stated nor denied: "cognates do not
    # need to have the same meaning". A purpose, "To erase the channels, hold ...", states
    # what the act is for, not that it happens; a question asks whether it does.)
    asserted = (verb.dep_ not in _UNASSERTED and not (verb.dep_ == "advcl" and verb.tag_ in ("VBG", "VBN"))
                and not (verb.dep_ == "xcomp" and not negated and any(_negates(c) for c in verb.head.children))
                and not _purpose(verb) and not _asked(verb))
    comps = [c for c in verb.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")]
    shape = {"particle": next((_lemma(c) for c in verb.children if c.dep_ == "prt"), ""), "form": verb.lower_,
             "restriction": _restriction(verb), "condition": condition, "conditioned": conditioned,
             "bound": _bound(verb)}
    # (A factor relates two things too: "the limit is four times the intake" is no swap of "mg".)
    relational = any(t.tag_ in ("JJR", "RBR") for t in attrs) or any(
        _lemma(c) == "than" or (((_lemma(c) == "time" and c.tag_ == "NNS") or c.lower_ in _MULTIPLIERS)
                                and _compared(c) is not None)  # not "three times a day"
        for c in verb.subtree)
    out = []
    core = [("agent", agents), ("patient", patients), ("attr", attrs), ("comp", comps)]
    combos: list[list[tuple[str, object]]] = [[]]
    for name, tokens in core:
        if tokens:
            combos = [c + [(name, t)] for c in combos for t in tokens]
    for combo in combos:
        own = [p for _, t in combo for p in _preps(t) if t.pos_ in ("NOUN", "PROPN")]
        # A conjunct with a "not" of its own is denied: "ACC is a convenience system and not a
        # substitute for the driver" says it is no substitute.
        denied = any(t.dep_ == "conj" and any(_negates(c) for c in t.children) for _, t in combo)
        out.extend(_atoms(lemma, negated != denied, combo, shared + own, asserted, relational, verb, **shape))
    for noun in gapped:
        base = [(name, tokens[0]) for name, tokens in core if tokens and name == "agent"]
        obj = "patient" if patients else "attr" if attrs else "patient"
        out.extend(_atoms(lemma, negated, base + [(obj, noun)], _preps(noun), asserted, relational, verb, **shape))
    return out


def _passive_form(verb) -> bool:
    """A passive verb: with its own passive auxiliary, or a past participle with no auxiliary
    of its own (the second verb of "was written by Berg and published in 1934"); not "can
    cause", "reopened"."""
    if any(c.dep_ == "auxpass" for c in verb.children):
        return True
    return verb.tag_ == "VBN" and not any(c.dep_ == "aux" for c in verb.children)


def _shares_subject(verb) -> bool:
    """A conjoined or controlled verb, or one after "without" ("returned without landing"):
    its subject is its head verb's."""
    return verb.dep_ in ("conj", "xcomp", "advcl") or (verb.dep_ == "pcomp" and _lemma(verb.head) == "without")


def _subject_holder(verb):
    """The verb such a ``verb`` (`_shares_subject`) takes its subject from: its head (past a
    "without"), or further up while that has no subject of its own and shares one itself."""
    head = verb.head.head if verb.dep_ == "pcomp" else verb.head
    for _ in range(3):
        if any(c.dep_ in ("nsubj", "nsubjpass") for c in head.children) or not _shares_subject(head):
            break
        head = head.head.head if head.dep_ == "pcomp" else head.head
    return head


_UNASSERTED = frozenset({"csubj", "csubjpass", "pcomp", "acl", "amod", "compound", "pobj"})


def _atoms(lemma: str, negated: bool, combo: list, preps: list, asserted: bool, relational: bool,
           clause=None, **shape) -> list[Atom]:
    """One atom per choice among coordinated preposition objects ("flights to Madrid and Oslo
    leave from Terminal 2" states two facts), except for the prepositions that take their
    conjuncts together ("between 2 and 8 °C")."""
    core: list[tuple[str, Arg]] = [(name, _act(t) if name == "comp" else _arg(t, clause)) for name, t in combo]
    choices: list[list[tuple[str, Arg]]] = [[]]
    for name, obj in preps:
        objects = _conjuncts(obj)
        values = [(name, _arg(o)) for o in objects]
        # A conjunct with its own preposition, or of another kind, or the same preposition
        # again, is a gapped clause the parse hung here ("covered for one year and parts for
        # two years"): kept together.
        gapped = (len({o.pos_ for o in objects}) > 1 or any(c.dep_ == "prep" for o in objects[1:] for c in o.children)
                  or sum(n == name for n, _ in preps) > 1)
        if name in _TOGETHER or len(values) == 1 or gapped:
            choices = [c + values for c in choices]
        else:
            choices = [c + [v] for c in choices for v in values]
    return [Atom(lemma, negated, tuple(core + c), asserted, relational, **shape) for c in choices]


_TOGETHER = frozenset({"prep:between", "prep:among", "prep:amongst"})


_BEFORE = {"before": -1, "after": 1, "earlier": -1, "later": 1, "prior": -1}
_MORE = frozenset("more high large big great long tall heavy hot warm far expensive many much "
                  "late".split())
_LESS = frozenset("less few low small short light cold cool cheap little early".split())


def _relations(doc) -> list[Relation]:
    out = []
    for token in doc:
        lemma = _lemma(token)
        other = None
        direction = 0
        measure = None
        if lemma in ("before", "after") and token.dep_ in ("prep", "mark") and not (
                lemma == "after" and _lemma(token.head) in _NAMING):  # "named after her grandfather"
            direction = _BEFORE[lemma]
            other = next((c for c in token.children if c.dep_ == "pobj"), None) if token.dep_ == "prep" else token.head
            # "three years before": the gap hangs on "before", or on the clause "before" opens.
            measure = next((c for c in (*token.children, *(token.head.children if token.dep_ == "mark" else ()))
                            if c.dep_ == "npadvmod"), None)
        elif token.tag_ in ("JJR", "RBR") and lemma in _MORE | _LESS | set(_BEFORE) or token.lower_ in _ADVERB_COMPARATIVES:
            than = next((c for c in token.subtree if _lemma(c) == "than"), None) or next(
                (c for h in _up_to_verb(token) for c in h.children if _lemma(c) == "than"), None) or next(
                # "more inhabitants in 2020 than in 2010": the parse may hang "than" on "2020"
                (c for c in token.doc[token.i + 1:token.sent.end] if _lemma(c) == "than"), None)
            if than is not None:
                other = next((c for c in than.children if c.dep_ in ("pobj", "prep")), None)
                direction = _BEFORE.get(token.lower_) or _BEFORE.get(lemma) or (
                    1 if lemma in _MORE or token.lower_ in ("further", "farther") else -1)
                if _lemma(token) in ("more", "less") and token.head.pos_ == "ADJ" and _lemma(token.head) in _LESS:
                    direction = -direction  # "less expensive"
                # "150 euros more expensive", "an hour later", "90 km further"
                holders = (token, token.head) if _lemma(token) in ("more", "less") else (token,)
                measure = next((c for h in holders for c in h.children if c.dep_ == "npadvmod"), None)
        if other is None or not direction:
            continue
        right_tokens = set(other.subtree)
        measured = set(measure.subtree) if measure is not None else set()
        # What the comparative itself governs ("more per month") is the measure, not a side.
        own = set(token.subtree) if lemma not in ("before", "after") else {token}
        parallel = _parallel(other, right_tokens)
        left_tokens = [t for t in (parallel.subtree if parallel is not None else token.sent)
                       if t not in right_tokens | measured | own and _lemma(t) != "than"]
        left, right = _side_anchors(left_tokens, [t for t in right_tokens if t not in measured], parallel is not None)
        if left - right and right - left:
            gap, hedge = _gap(measure) if measure is not None else (None, "exact")
            out.append(Relation(direction, frozenset(left - right), frozenset(right - left), gap, hedge,
                                measure is not None, lemma in ("before", "after"),
                                gap_alt=_in_larger_unit(gap, measure),
                                right_ends=lemma in ("before", "after") and _lemma(other) in _ENDING,
                                units=_MONEY if {lemma, _lemma(token.head)} & _PRICE_WORDS else frozenset(),
                                stated=(_stated_year(left_tokens), _stated_year(right_tokens))
                                if lemma in ("before", "after") else (None, None)))  # events only
    return out + _ratios(doc) + _changes(doc)


def _stated_year(tokens) -> float | None:
    """The one year a side of the claim states ("retired in 2015", "for the 2012 season"), or None."""
    years = {_number(t) for t in tokens if _is_year_token(t)}
    return float(years.pop()) if len(years) == 1 else None


_PRICE_WORDS = frozenset({"cheap", "expensive", "costly", "pricey"})
_NAMING = frozenset("name call rename".split())
"""Verbs whose "after" says whom a thing is named for, not when."""
_ENDING = frozenset("end finish close conclude die stop cease expire retire abdicate".split())
"""Verbs that date the end of a span: "after Victoria's reign ended" reads 1901 of "reigned from
1837 to 1901"."""


def _naming_number(token) -> bool:
    """A number that names a thing ("the 2 L bottle"), not one stated of it ("ended in 476")."""
    return token.pos_ == "NUM" and token.dep_ in ("nummod", "compound") and _number(token) is not None


def _side_anchors(left_tokens: list, right_tokens: list, parallel: bool = False) -> tuple[set[str], set[str]]:
    """Each side's anchors; when both sides are told apart by a number ("the 2 L bottle" / "the
    1 L bottle", "in 2020" / "in 2010"), by their numbers alone: the words around them may be
    tagged differently on each side."""
    left, right = _anchors(left_tokens), _anchors(right_tokens)
    numbers = [{_lemma(t) for t in side if _naming_number(t) or (parallel and t.dep_ == "pobj" and _number(t))}
               for side in (left_tokens, right_tokens)]
    if all(numbers) and numbers[0] != numbers[1]:
        return numbers[0], numbers[1]
    return left, right


def _parallel(other, right_tokens: set):
    """The phrase a "than" phrase parallels when it is a preposition ("more inhabitants in 2020
    than in 2010": "in 2020"), or None: then the side is the rest of the sentence."""
    if other.dep_ != "prep":
        return None
    return next((t for t in other.sent if t.dep_ == "prep" and _lemma(t) == _lemma(other) and t not in right_tokens
                 and any(c.dep_ == "pobj" for c in t.children)), None)


_HUNDREDTHS = frozenset("cent cents penny pence p centime centimes".split())
"""Units a hundredth of the unit prices are usually stated in."""


def _in_larger_unit(gap: float | None, measure) -> float | None:
    if gap is None or measure is None or _lemma(measure) not in _HUNDREDTHS | {"cent"}:
        return None
    return gap / 100


_MULTIPLIERS = {"twice": 2.0, "thrice": 3.0, "double": 2.0, "triple": 3.0}


def _ratios(doc) -> list[Relation]:
    """"X is eight times the Y", "X lasts three times as long as Y", "twice the adult dose":
    the subject against the compared phrase, with the factor as a stated gap."""
    out = []
    for token in doc:
        lemma = _lemma(token)
        if lemma == "time" and token.tag_ == "NNS":
            # "eight times the dose" (the number on "times"), or "four times the intake"
            # parsed as a number of "intake" that "times" modifies.
            number = next((c for c in token.children if c.dep_ == "nummod"), None) or (
                token.head if token.dep_ == "quantmod" and token.head.pos_ == "NUM" else None)
            value = _number(number) if number is not None else None
            factor = float(value) if value and value.replace(".", "", 1).isdigit() else None
            hedge = next((_HEDGES[_lemma(c)] for c in number.children if _lemma(c) in _HEDGES),
                         "exact") if number is not None else "exact"
        elif token.lower_ in _MULTIPLIERS and token.pos_ in ("ADV", "ADJ"):
            factor, hedge = _MULTIPLIERS[token.lower_], "exact"
        else:
            continue
        if not factor or factor == 1:
            continue
        other = _compared(token)
        verb = next((h for h in (token, *token.ancestors) if h.pos_ in ("VERB", "AUX")), None)
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None) if verb is not None else None
        if other is None or subject is None:
            continue
        left, right = _side_anchors(list(subject.subtree), list(other.subtree))
        if left - right and right - left:
            out.append(Relation(1 if factor > 1 else -1, frozenset(left - right), frozenset(right - left), factor,
                                hedge, True, False, ratio=True))
    return out


def _compared(multiplier):
    """What a multiplier compares with: the noun phrase it governs ("times the standard dose"),
    or the object of the "as" that closes "as long as"."""
    for t in multiplier.doc[multiplier.i + 1:multiplier.sent.end]:
        if _lemma(t) == "as" and any(c.dep_ == "pobj" for c in t.children) and t.i > multiplier.i + 1:
            return next(c for c in t.children if c.dep_ == "pobj")
        if t.pos_ in ("NOUN", "PROPN") and t.dep_ in ("appos", "pobj", "dobj", "attr") and (
                multiplier in t.ancestors or t.head.i == multiplier.head.i or t in multiplier.ancestors):
            return t
    return None


_RISING = frozenset("rise increase grow climb gain jump soar improve".split())
_FALLING = frozenset("fall decrease drop decline shrink sink slip dip plunge worsen".split())


def _changes(doc) -> list[Relation]:
    """"Revenue fell from 2022 to 2023", "rose between 2022 and 2023": the value of the later
    year against the earlier one's, a "by" phrase its stated gap."""
    out = []
    for verb in doc:
        lemma = _lemma(verb)
        particle = next((_lemma(c) for c in verb.children if c.dep_ == "prt"), "")
        direction = (1 if lemma in _RISING or (lemma == "go" and particle == "up")
                     else -1 if lemma in _FALLING or (lemma == "go" and particle == "down") else 0)
        if not direction or verb.pos_ != "VERB":
            continue
        years = _span_years(verb)
        if years is None:
            continue
        start, end = years
        by = next((o for p in verb.children if p.dep_ == "prep" and _lemma(p) == "by"
                   for o in p.children if o.dep_ == "pobj"), None)
        gap, hedge = _gap(by) if by is not None else (None, "exact")
        if by is not None and gap is None and _number(by) is not None:
            gap = float(_number(by))
        out.append(Relation(direction, frozenset({end}), frozenset({start}), gap, hedge, by is not None, False))
    return out


def _span_years(verb) -> tuple[str, str] | None:
    """The two years of "from X to Y" or "between X and Y" on ``verb``, earlier first."""
    objects = {_lemma(p): o for p in verb.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"}
    pair = None
    if "from" in objects and ("to" in objects or "until" in objects):
        pair = (objects["from"], objects.get("to", objects.get("until")))
    elif "between" in objects and objects["between"].conjuncts:
        pair = (objects["between"], objects["between"].conjuncts[0])
    if pair is None or not all(_is_year_token(t) for t in pair):
        return None
    return _lemma(pair[0]), _lemma(pair[1])


def _is_year_token(token) -> bool:
    """A year in digits: a number in words is a count ("almost a thousand years before")."""
    number = _number(token)
    return bool(number and number.isdigit() and 1000 <= int(number) <= 2100) and _spelled_whole(token) is None


def _up_to_verb(token) -> list:
    """The token's heads up to its clause's verb ("opens earlier on Saturdays than ...": the
    parse may hang "earlier" on "on")."""
    out, head = [], token.head
    while head.i != token.i and len(out) < 4:
        out.append(head)
        if head.pos_ in ("VERB", "AUX") or head.head.i == head.i:
            break
        token, head = head, head.head
    return out


_ADVERB_COMPARATIVES = frozenset({"further", "farther", "later", "earlier", "sooner"})
"""Comparatives spaCy may tag as plain adverbs ("opens an hour later than", "travel 90 km further")."""
_HEDGES = {w: "almost" if w in BELOW_HEDGES else "about" for w in HEDGES} | {
    "over": "over", "more": "over", "under": "under", "less": "under", "fewer": "under"}
_SCALES = {"hundred": 100.0, "thousand": 1000.0, "million": 1e6, "billion": 1e9, "dozen": 12.0}


def _gap(measure) -> tuple[float | None, str]:
    """The number of a stated gap ("almost a thousand years" -> 1000, "almost"; "an hour" -> 1)
    and its hedge; None when no number is read ("a few years")."""
    value: float | None = None
    hedge = "exact"
    spans: set[tuple[int, int]] = set()  # the spelled numbers read: each holds its scale word
    for t in measure.subtree:  # the measure itself included: "by 3 million" hangs on "million"
        lemma = _lemma(t)
        if _spelled_whole(t) is not None and (span := _spelled_span(t)) is not None:
            if span[:2] in spans:
                continue
            spans.add(span[:2])
        if lemma in _HEDGES:
            hedge = _HEDGES[lemma]
        elif lemma in ("few", "several", "many", "some"):
            return None, hedge
        elif (number := _number(t)) is not None:
            try:
                value = (value or 1.0) * float(number)
            except ValueError:
                return None, hedge
        elif lemma in _SCALES:
            value = (value or 1.0) * _SCALES[lemma]
        elif lemma in ("a", "an") and value is None:
            value = 1.0
    return value, hedge


def _anchors(tokens: list) -> set[str]:
    """What a side of a relation is found by in the premise: its names, else its nouns (the
    verb and the measured quantity -- "fell", "inhabitants" -- are shared by both sides)."""
    names = {_lemma(t) for t in tokens if t.pos_ == "PROPN"}
    # A number naming the thing ("the 2 L bottle", "in 2020") tells the sides apart as well.
    numbers = {_lemma(t) for t in tokens if _naming_number(t)}
    return (names or {_lemma(t) for t in tokens if t.pos_ in ("NOUN", "ADJ") and not t.is_stop}) | numbers


def _clauses(doc) -> tuple[list[tuple[tuple[str, float | None], ...]], frozenset[tuple[int, int]],
                            frozenset[tuple[tuple[int, int], str]]]:
    """Per clause, its (lemma, numeric value or None) tokens; where a value reads as a year; and
    each value's unit, where it has one."""
    out: list[list[tuple[str, float | None]]] = [[]]
    dates: list[tuple[int, int]] = []
    units: list[tuple[tuple[int, int], str]] = []
    tokens = list(doc)
    for i, token in enumerate(tokens):
        if token.text in (".", ";", "!", "?") or (token.text == "," and i + 1 < len(tokens)
                                                  and tokens[i + 1].pos_ in ("PROPN", "NOUN")):
            if out[-1]:
                out.append([])
            continue
        value = _value(tokens, i)
        if value is not None and _cited(token):
            value = None  # a reference ("[32]") counts nothing
        at = (len(out) - 1, len(out[-1]))
        if _reads_as_year(token, value):
            dates.append(at)
        if value is not None and (unit := _unit(token)):
            units.append((at, unit))
        out[-1].append((_lemma(token), value))
    # Only the last clause can be empty (a new one starts after a non-empty one): indices hold.
    return [tuple(c) for c in out if c], frozenset(dates), frozenset(units)


_CURRENCIES = {"$": "$", "dollar": "$", "usd": "$", "€": "€", "euro": "€", "eur": "€", "£": "£", "pound": "£",
               "gbp": "£", "¥": "¥", "yen": "¥"}
_MONEY = frozenset(_CURRENCIES.values())
"""What "cheaper" and "more expensive" compare (`Relation.units`)."""
_UNIT_NAMES = {"percent": "%", "pct": "%"} | _CURRENCIES
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.IGNORECASE)


def _cited(token) -> bool:
    """A reference number in brackets ("associated with nilotinib [32]", "[4, 6]", "[11-13]")."""
    doc, listed = token.doc, lambda t: t.like_num or t.text in (",", "-", "–")
    before = next((doc[j] for j in range(token.i - 1, -1, -1) if not listed(doc[j])), None)
    after = next((doc[j] for j in range(token.i + 1, len(doc)) if not listed(doc[j])), None)
    return before is not None and after is not None and before.text == "[" and after.text == "]"


def _unit(token) -> str | None:
    """What a number counts: its currency ("$10", "3.20 euros", "$420 million"), the noun it
    numbers, through a scale word ("30 years", "three million kelvin", "5.1 %"), "ordinal" for
    "5th"; None when the parse says nothing ("rose to 450")."""
    if _ORDINAL.match(token.text):
        return "ordinal"
    if token.i > 0 and token.doc[token.i - 1].text in _CURRENCIES:  # "$800", however it is parsed
        return _CURRENCIES[token.doc[token.i - 1].text]
    for _ in range(4):
        symbol = next((c for c in token.children if c.text in _CURRENCIES), None)  # "$420 million"
        if symbol is not None:
            return _CURRENCIES[symbol.text]
        if token.dep_ not in ("nummod", "quantmod", "compound") or token.head.i == token.i:
            return None
        head = token.head
        if head.like_num or _lemma(head) in _SCALES:
            token = head
            continue
        if head.pos_ in ("NOUN", "PROPN", "SYM"):
            return _UNIT_NAMES.get(_lemma(head), _lemma(head))
        return None
    return None


def _reads_as_year(token, value: float | None) -> bool:
    """A year: four plain digits from 1000 to 2100 (or a date's year), or an integer from 100
    to 999 that counts no noun ("in 476", not "after 120 minutes"); never a number in several
    words ("three hundred", "a thousand": a count)."""
    if value is None or _spelled_whole(token) is not None:
        return False
    if 1000 <= value < 2101:
        return token.text.isdigit() or not float(value).is_integer()
    return 100 <= value < 1000 and float(value).is_integer() and token.dep_ != "nummod"


def _value(tokens: list, i: int) -> float | None:
    """A number token's value; a year with its month and day before it reads as a fraction of
    the year ("9 November 1989" -> 1989.86), so two dates of one year still order."""
    number = _number(tokens[i])
    if number is None:
        return None
    try:
        value = float(number)
    except ValueError:
        hours, _, minutes = number.partition(":")  # a time of day, "9:30" -> 9.5
        if not (hours.isdigit() and minutes.isdigit()):
            return None
        return int(hours) + int(minutes) / 60
    if 1000 <= value <= 2100 and i > 0 and _lemma(tokens[i - 1]) in _MONTHS:
        month = _MONTHS[_lemma(tokens[i - 1])]
        day = _number(tokens[i - 2]) if i > 1 else None
        day_value = float(day) if day and day.isdigit() and int(day) <= 31 else 0.0
        return value + (month - 1) / 12 + day_value / 372
    if i + 1 < len(tokens) and _lemma(tokens[i + 1]) in _MONTHS:
        return None  # the day of a date: its year carries it
    if i + 1 < len(tokens) and _lemma(tokens[i + 1]) in _SCALES and _spelled_whole(tokens[i]) is None:
        return value * _SCALES[_lemma(tokens[i + 1])]  # "2 million kelvin" against "5,800 kelvin"
    return value


def facts_of(doc) -> Facts:
    """The atoms, relations and numbered clauses of a parsed text (`localeval.text.roles`
    parses once for the role, merge and these checks)."""
    atoms = [replace(a, sentence=t.sent.start) for t in doc
             if t.pos_ in ("VERB", "AUX") and t.dep_ != "aux" and t.dep_ != "auxpass" for a in _atoms_of_verb(t)]
    atoms = _mark_contrasted(atoms, doc)
    clauses, dates, units = _clauses(doc)
    return Facts(tuple(a for a in atoms if len(a.slots) >= 1), tuple(_relations(doc)), tuple(clauses),
                 tuple(_durations(doc)), tuple(_spans(doc)), tuple(_extremes(doc)), dates, tuple(_statements(doc)),
                 units, tuple(_state(t) for t in doc if _lemma(t) in STATE_WORDS and t.pos_ in ("VERB", "ADJ")
                              and not _near(t)))


def _near(token) -> bool:
    """"close to the TV": near, not shut (the word rules skip it too: `contrast_rules._polar`)."""
    return token.lower_ == "close" and token.i + 1 < len(token.doc) and token.doc[token.i + 1].lower_ == "to"


def _state(token) -> State:
    """Read an opening or closing word: an act on an object ("close the menu"), an act of its
    subject ("a menu will open"), or a state of a subject ("the museum is closed") or of an
    object ("hold the doors open"); a word joined to another ("ajar/open") reads as that one."""
    holder = token
    while holder.dep_ == "conj" and holder.head.pos_ in ("ADJ", "VERB") and holder.head.i != holder.i:
        holder = holder.head
    # The verb the word hangs on: its own for an act or a passive, the copula or the verb of
    # "hold the doors open" for an adjective.
    verb = holder.head if holder.dep_ in ("acomp", "oprd", "ccomp", "xcomp") and holder.pos_ == "ADJ" else holder
    kids = {c.dep_: c for c in (*holder.children, *(verb.children if verb is not holder else ()))}
    obj = kids.get("dobj") if holder.pos_ == "VERB" else None
    subject = kids.get("nsubj") or kids.get("nsubjpass")
    thing = obj if obj is not None else subject
    agent = subject if obj is not None and subject is not None and subject.dep_ == "nsubj" else None
    negated = any(_negates(c) for c in (*token.children, *holder.children)) or (
        verb.pos_ in ("VERB", "AUX") and _negated(verb))
    step = verb.tag_ == "VB" and (any(c.dep_ == "aux" and c.tag_ == "TO" for c in verb.children) or (
        verb.dep_ in ("ROOT", "conj") and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)
        and not any(c.dep_ == "aux" and _lemma(c) != "do" for c in verb.children)))
    absolute = any(c.dep_ == "mark" and c.lower_ == "with" for c in holder.children)
    said = token.dep_ != "amod" and not absolute and _condition(verb)[0] == ""
    return State(STATE_WORDS[_lemma(token)] * (-1 if negated else 1), _naming(thing), _naming(agent), step, said,
                 _restriction(verb))


def _naming(token) -> frozenset[str]:
    """A noun's lemma with those of the words that name it ("north car park")."""
    if token is None or token.pos_ == "PRON":
        return frozenset()
    words, todo = set(), [token]
    while todo:  # "north" names "car", which names "park"
        t = todo.pop()
        words.add(_lemma(t))
        todo += [c for c in t.children if c.dep_ in _NAMING_DEPS]
    return frozenset(words)


def states_conflict(claim: Facts, premise: Facts) -> bool:
    """Can an opening or closing word of the claim be denied by one of the premise's of the other
    polarity? Both must state something (`State.said`) of the same thing (a pronoun may be
    anything), acts by the same doer where both name one; and a step of a procedure ("To close
    the hood, remove the rod" / "push the latch to open the hood") is denied only by a word
    limited to the same circumstance: a procedure opens and closes the same thing at other
    moments. True where the parse finds no such word in the claim (it does not overrule the
    words then); none in the premise means the premise's word is no state or act there (a
    label: 'highlight "Close"'), which denies nothing."""
    if not claim.states:
        return True
    return any(_conflict(m, t) for m in claim.states if m.said
               for t in premise.states if t.said and t.polarity != m.polarity)


def _conflict(mine: State, theirs: State) -> bool:
    if not (_alike(mine.thing, theirs.thing) and _alike(mine.agent, theirs.agent)):
        return False
    if mine.step or theirs.step:
        return bool(_words(mine.restriction) & _words(theirs.restriction))
    return True


def _alike(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Named alike: one's words among the other's ("the museum" / "the Harbour Museum"), or
    either unnamed; "the north car park" is not "the south car park"."""
    return not mine or not theirs or mine <= theirs or theirs <= mine


_NAMING_DEPS = frozenset({"amod", "compound"})  # the words that tell one subject from another of its kind


def _statements(doc) -> list[Statement]:
    """Each verb with a subject: the subject's head and naming words and numbers (not what hangs
    on it by a preposition or a possessive: "the main span of the bridge" is named "main span"), the
    numbers of the verb's subtree outside the subject, its content lemmas."""
    out = []
    for token in doc:
        if token.dep_ not in ("nsubj", "nsubjpass"):
            continue
        verb, inside = token.head, {t.i for t in token.subtree}
        rest = [t for t in verb.subtree if t.i not in inside]
        naming = [token, *(c for c in token.children if c.dep_ in _NAMING_DEPS)]
        # A number naming the subject is part of its name ("the 500 g jar" is not "the 250 g jar").
        subject = frozenset({_lemma(t) for t in naming}
                            | {n for t in naming for c in t.children if c.dep_ == "nummod" and (n := _number(c))})
        numbers = frozenset(n for t in rest if (n := _number(t)) is not None)
        words = frozenset(_lemma(t) for t in verb.subtree if t.is_alpha and not t.is_stop)
        phrase = frozenset(_lemma(t) for t in token.subtree if t.is_alpha and not t.is_stop)
        out.append(Statement(subject, token.pos_ == "PRON", numbers, words, phrase))
    return out


_EXTREMES = {"first": -1, "last": 1}


def _extremes(doc) -> list[Extreme]:
    """Each "X <verb> first / last": the adverb after an intransitive verb with a subject.
    Not "X was first used in 1922" (before the verb: the first time, not the first of several)
    nor "X visited Paris first" (an object: the order of the places, not of the visitors)."""
    out = []
    for token in doc:
        verb = token.head
        if (token.lower_ not in _EXTREMES or token.dep_ != "advmod" or verb.pos_ not in ("VERB", "AUX")
                or token.i < verb.i or any(c.dep_ == "dobj" for c in verb.children)):
            continue
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None and subject.pos_ != "PRON":
            out.append(Extreme(_EXTREMES[token.lower_], _arg(subject), _lemma(verb)))
    return out


def _mark_contrasted(atoms: list[Atom], doc) -> list[Atom]:
    """Each argument whose head the text also writes with modifiers it lacks, each side having
    its own ("lower basket" / "upper basket"; not "basket" / "upper basket"), in any of its
    nouns (the parse may leave "Load plates in the lower basket" without an atom)."""
    mods: dict[str, set[frozenset[str]]] = {}
    for token in doc:
        if token.pos_ in ("NOUN", "PROPN"):
            own = _modifiers(token)[0]
            if own:
                mods.setdefault(_lemma(token), set()).add(own)
    rivals = {head for head, sets in mods.items()
              if any(a - b and b - a for a in sets for b in sets)}
    if not rivals:
        return atoms
    return [replace(atom, slots=tuple((k, replace(arg, contrasted=True) if arg.head in rivals and arg.mods else arg)
                                      for k, arg in atom.slots)) for atom in atoms]


def _durations(doc) -> list[tuple[str, float, str]]:
    out = []
    for verb in doc:
        if verb.pos_ != "VERB":
            continue
        for p in verb.children:
            if p.dep_ == "prep" and _lemma(p) == "for":
                unit = next((o for o in p.children if o.dep_ == "pobj" and _lemma(o) == "year"), None)
                if unit is not None:
                    value, hedge = _gap(unit)
                    if value:
                        out.append((_lemma(verb), value, hedge))
    return out


def _spans(doc) -> list[tuple[str, float, float]]:
    """Verbs dated by a span of years: "from X to Y" on the verb, or "until Y" on it with the
    start on the verb it is coordinated with ("enrolled ... in 2015 and followed them until 2021")."""
    out = []
    for verb in doc:
        if verb.pos_ != "VERB":
            continue
        years = {_lemma(p): o for v in (verb, verb.head if verb.dep_ == "conj" else verb)
                 for p in v.children if p.dep_ == "prep" for o in p.children
                 if o.dep_ == "pobj" and _is_year_token(o)}
        own_end = [o for p in verb.children if p.dep_ == "prep" and _lemma(p) in _SPAN_ENDS
                   for o in p.children if o.dep_ == "pobj" and _is_year_token(o)]
        start = next((years[k] for k in ("from", "since", "in") if k in years), None)  # the span's first year
        if own_end and start is not None and start.i < own_end[0].i:
            out.append((_lemma(verb), float(_number(start)), float(_number(own_end[0]))))
    return out


def duration_confirmation(claim: Facts, premise: Facts) -> str | None:
    """Every "<verb> for N years" of the claim borne out by a span of the same verb in the
    premise ("were followed for six years" / "enrolled in 2015 and followed them until 2021")."""
    if not claim.durations:
        return None
    said = []
    for lemma, value, hedge in claim.durations:
        match = next(((a, b) for v, a, b in premise.spans if v == lemma and _gap_holds(value, hedge, b - a)), None)
        if match is None:
            return None
        said.append(f"{lemma} from {match[0]:g} to {match[1]:g}")
    return "duration: the evidence has " + "; ".join(said) + ", as long as the claim has it"


# ------------------------------------------------------------------ comparing atoms

def _numbers_differ(mine: Arg, theirs: Arg) -> bool:
    """Do both arguments state numbers, none of them shared?"""
    return bool(mine.numbers and theirs.numbers and not mine.numbers & theirs.numbers)


def _approximated(mine: Arg, theirs: Arg) -> bool:
    """Does one side say its number as an approximation of the other's ("about 5,000
    households" / "4,870 households"; `numbers.approximates`)?"""
    return any(a.hedge and approximates(n, b.numbers, a.hedge in BELOW_HEDGES)
               for a, b in ((mine, theirs), (theirs, mine)) for n in a.numbers)


def _same_quantity(mine: Arg, theirs: Arg) -> bool:
    """Do two arguments with other unit words, one among the modifiers of each, state the same
    quantity ("1.2 km" / "1,200 metres")? Compared in the dimension's base unit."""
    def quantities(arg: Arg) -> list[tuple[str, float]]:
        units = [m for m in arg.mods if quantity("1", m) is not None]
        return [q for n in arg.numbers if (q := quantity(n, units[0])) is not None] if len(units) == 1 else []

    if mine.mods == theirs.mods:
        return False  # the same units: their numbers say it
    return any(a[0] == b[0] and same_value(a[1], b[1]) for a in quantities(mine) for b in quantities(theirs))


def _compare(mine: Arg, theirs: Arg, core: bool) -> int:
    """+1 agree, -1 conflict, 0 neither (a pronoun; a preposition's object that shares nothing
    -- "on the Moon" / "on the lunar surface" -- unless both are names: "from Glasgow" /
    "from Edinburgh" conflict)."""
    if mine.pronoun or theirs.pronoun:
        return 0
    core = core or ((mine.named or mine.capital) and (theirs.named or theirs.capital))
    if _numbers_differ(mine, theirs):
        # ("1.2 km long" / "1,200 metres long": one length in other units; "about 5,000
        # households" / "4,870 households": one number and its approximation)
        return 1 if _same_quantity(mine, theirs) or _approximated(mine, theirs) else -1
    if mine.head == theirs.head:
        # Each with a modifier the other lacks: "rear brakes" / "front brakes", "part-time
        # staff" / "full-time staff"; "new drug" / "drug" agree.
        distinct = core or mine.contrasted or theirs.contrasted
        return -1 if distinct and (mine.mods - theirs.mods) and (theirs.mods - mine.mods) else 1
    if mine.head in theirs.words or theirs.head in mine.words:
        return 1
    if not core:
        return 1 if mine.words & theirs.words else 0
    return -1


def _match(mine: Atom, theirs: Atom) -> tuple[list[str], list[str], list[str]]:
    """The slots the two atoms agree in, those they conflict in, and those that say neither."""
    agree, conflict, neither = [], [], []
    for name in dict.fromkeys(k for k, _ in mine.slots):
        other = [a for k, a in theirs.slots if k == name]
        if not other:
            continue
        # A slot may hold several values ("on Germany on 3 September"): one pair agreeing is
        # enough, unless a value of the claim conflicts with every value of its kind (a number,
        # a word) the premise gives there ("the Prize in Chemistry in 1903" / "the Prize in
        # Physics in 1903": the year agrees, the field does not).
        mine_values = [m for k, m in mine.slots if k == name]
        verdicts = [_compare(m, a, name in _COMPARED) for m in mine_values for a in other]
        (conflict if _refuted(mine_values, other, name in _COMPARED) or (1 not in verdicts and -1 in verdicts)
         else agree if 1 in verdicts else neither).append(name)
    return agree, conflict, neither


def _refuted(mine: list[Arg], theirs: list[Arg], core: bool) -> bool:
    """Does a value of the claim's slot conflict with every value of its kind (number or word)
    in the premise's? Only a value alone of its kind in the claim's slot: two ("for one year
    and parts for two years") are a gapped clause the parse hung on one preposition."""
    for m in mine:
        if sum(bool(o.numbers) == bool(m.numbers) for o in mine) > 1:
            continue
        alike = [a for a in theirs if bool(a.numbers) == bool(m.numbers)]
        if alike and all(_compare(m, a, core) == -1 for a in alike):
            return True
    return False


def _supports(mine: Atom, theirs: Atom, polarity: bool = True, strict: bool = True) -> bool:
    """Same predicate (and polarity), an agreeing slot and no conflicting one; ``strict``: no
    shared slot left undecided either, pronouns aside ("pays for water" does not support
    "pays for electricity")."""
    if not _same_act(mine, theirs) or (polarity and mine.negated != theirs.negated):
        return False
    agree, conflict, neither = _match(mine, theirs)
    if conflict:
        return False
    if not strict:
        return bool(agree)
    undecided = [k for k in neither if not any(a.pronoun for a in (mine.slot(k), theirs.slot(k)) if a)
                 and not k.startswith("prep:")]
    return bool(agree) and not undecided


def _same_act(mine: Atom, theirs: Atom) -> bool:
    return mine.lemma == theirs.lemma and mine.particle == theirs.particle


def supported_atom(claim: Facts, premise: Facts) -> bool:
    """Does some premise atom state a claim atom's predicate with its polarity and no argument
    in conflict? (Then a word-level "negated" finding about the claim is not trusted:
    `localeval.text.contrast_rules`.) A premise's "it" / "them" as the thing acted on stands for
    the one thing acted on before it (`_resolved`)."""
    premise = _read_pronouns(premise)
    return any(_supports(c, p, strict=False) for c in claim.atoms if c.asserted for p in premise.atoms)


def _read_pronouns(premise: Facts) -> Facts:
    """``premise`` with each atom's "it" / "them" acted on read as the thing it stands for
    (`_resolved`), for the checks that ask what the premise affirms or denies of a thing."""
    return replace(premise, atoms=tuple(_resolved(p, premise) for p in premise.atoms))


def _resolved(atom: Atom, premise: Facts) -> Atom:
    """``atom`` with a pronoun patient replaced by the one thing acted on before it: by the
    atoms before it in its sentence ("Do not remove the filter while the pump is running, and
    replace it every six months": "replace filter"), or where those act on nothing, by the
    atoms of the sentence before ("Do not tighten the nuts with an impact wrench. Tighten them
    by hand"). A pronoun refers back, so a thing named after it is not a candidate ("replace it
    only when the laptop is switched off"); it is left alone wherever two things could be meant
    ("Do not wash the lid ...; take the jug apart and wash it")."""
    if not any(k == "patient" and a.pronoun for k, a in atom.slots):
        return atom
    before = premise.atoms[:next(i for i, a in enumerate(premise.atoms) if a is atom)]
    things = _patients(a for a in before if a.sentence == atom.sentence)
    if not things:
        previous = max((a.sentence for a in before if a.sentence < atom.sentence), default=None)
        things = _patients(a for a in before if a.sentence == previous)
    if len(things) != 1:
        return atom
    (thing,) = things.values()
    return replace(atom, slots=tuple((k, thing if k == "patient" and a.pronoun else a) for k, a in atom.slots))


def _patients(atoms: Iterable[Atom]) -> dict[str, Arg]:
    """The things ``atoms`` act on, pronouns aside, by head."""
    return {a.head: a for atom in atoms for k, a in atom.slots if k == "patient" and not a.pronoun}


def _say(atom: Atom) -> str:
    """An atom in a few words: its verb, then each argument's head, with the modifiers that
    tell it apart where the text has rivals, and its numbers ("cover warranty labour 2 year")."""
    def said(a: Arg) -> str:
        return " ".join([*(sorted(a.mods) if a.contrasted else ()), *sorted(a.numbers - a.mods - {a.head}), a.head])

    return " ".join(["not"] * atom.negated + [atom.lemma] + [atom.particle] * bool(atom.particle)
                    + [said(a) for _, a in atom.slots])


def _flips(mine: Atom, premise: Facts) -> list[Atom]:
    """The premise's atoms that would support ``mine`` but for their polarity; a verb the
    premise does not assert counts only where it forbids ("opportunities to blame others"
    states nothing; "Descaling: never use vinegar" forbids). A bounded quantity is denied only
    as the claim bounds it too, in the argument (`_same_bound`) or anywhere in the verb's clause
    (`Atom.bound`): "do not take more than four tablets" says nothing against "take four
    tablets", but does deny "you can take more than four tablets"."""
    return [p for p in premise.atoms if p.negated != mine.negated and _supports(mine, p, polarity=False)
            and all(_same_bound(mine.slot(k), a) for k, a in p.slots if a.bounded) and (p.asserted or p.negated)
            and p.bound <= mine.bound]


def _same_bound(mine: Arg | None, theirs: Arg) -> bool:
    """Is the claim's argument bounded as the premise's is: the same bound words and numbers?"""
    return mine is not None and mine.bounded == theirs.bounded and mine.numbers == theirs.numbers


def _said(premise: Facts) -> set[str]:
    return {lemma for clause in premise.clauses for lemma, _ in clause}


def _told(claim: Facts) -> set[str]:
    """The stems of the claim's lemmas ("swimming" and "swim" are one word)."""
    return {stem(lemma) for lemma in _said(claim)}


def _elsewhere(mine: Atom, theirs: Atom, said: set[str]) -> bool:
    """Does the claim place the act somewhere the premise never names: a preposition both atoms
    have, whose objects share nothing, the claim's a thing the premise does not mention at all?
    "Do not operate the engine at idle for long periods" says nothing of "operate the engine at
    moderate speeds"; but "cars are not allowed on board" does deny "cars are allowed on the
    ferry" where the premise is about the ferry (a support lets every such slot pass: "on the
    Moon" / "on the lunar surface"). ``said``: the premise's lemmas."""
    _, _, neither = _match(mine, theirs)  # (slots both atoms have)
    return any(not (mine.slot(k).pronoun or theirs.slot(k).pronoun) and not mine.slot(k).words & said
               for k in neither if k.startswith("prep:"))


def _denials(mine: Atom, flips: list[Atom], said: set[str], told: set[str]) -> list[Atom]:
    """The ``flips`` of ``mine`` (`_flips`) that deny it: in a condition of the same kind as its own and
    of the same act ("if you do not disconnect both batteries, injury could result" denies
    nothing of "if help is needed to disconnect the battery, see a dealer"), in no other
    circumstance (`_elsewhere`), about all of what the claim's is about (`_narrower`), and
    limited to no circumstance (`_restriction`) the claim does not speak of: more than half of
    its words among the claim's stems ``told`` ("do not drain the filter when the engine is
    running" denies nothing of "drain the water from the filter"; "never leave the fryer
    unattended while it is switched on" denies "you may leave it unattended while it is on").
    Nor does a plain statement deny a claim that denies the act only in a circumstance the
    premise does not speak of (`_spoken_of`): "you can get access to the Internet through your
    TV" leaves room for "the TV may not be able to connect if the network is slower than 10
    Mbps" (a general statement has exceptions; a general prohibition has none: "never leave
    the fryer unattended" denies "you may leave it unattended while it is switched on")."""
    if mine.negated and mine.restriction and not _spoken_of(mine.restriction, {stem(lemma) for lemma in said}):
        return []  # the claim's own exception
    return [p for p in flips if p.condition == mine.condition and p.conditioned == mine.conditioned
            and not _elsewhere(mine, p, said) and not _narrower(p, mine)
            and (not p.restriction or _spoken_of(p.restriction, told))]


def _spoken_of(restriction: frozenset[frozenset[str]], stems: set[str]) -> bool:
    """Does a text speak of a circumstance: more than half of its words among the text's stems,
    a word counted where the text names it or one of its alternatives (`_restriction`)?"""
    return 2 * sum(bool(word & stems) for word in restriction) > len(restriction)


def _words(restriction: frozenset[frozenset[str]]) -> frozenset[str]:
    """Every stem of a circumstance, alternatives included."""
    return frozenset().union(*restriction)


def _narrower(theirs: Atom, mine: Atom) -> bool:
    """Is a core argument of the premise's atom narrowed by a clause (`Arg.restricted`) where
    the claim's is not? "Obstacles located below the sensors will not be detected" denies
    nothing of "the system detects obstacles around the vehicle". Or is one set apart from the
    other by a word that says "not those" (`_OTHERS`)? "Do not remove the bolts" (the two just
    named) denies nothing of "remove the remaining eight bolts", nor the other way round."""
    return any((m := mine.slot(k)) is not None and ((a.restricted and not m.restricted)
                                                    or bool(m.mods & _OTHERS) != bool(a.mods & _OTHERS))
               for k, a in theirs.slots if k in _CORE)


_OTHERS = frozenset("other remain remaining rest additional further".split())
"""Modifiers that set a noun apart from the ones a text has just spoken of ("the other cables",
"the remaining bolts"), as lemmas ("remaining" is tagged a verb and read "remain", or not)."""


def polarity_contrast(claim: Facts, premise: Facts) -> str | None:
    said, told, premise = _said(premise), _told(claim), _read_pronouns(premise)
    for mine in claim.atoms:
        if not mine.asserted:
            continue
        # A condition states no fact: "if you do not disconnect both batteries" does not deny
        # "disconnect the batteries".
        flipped = _denials(mine, _flips(mine, premise), said, told)
        if flipped:
            # The premise may affirm the act and deny it too: the denial holds where it agrees
            # with the claim in all the affirmation does and more. "Do not tighten the nuts with
            # an impact wrench. Tighten them by hand." denies "tighten the nuts with an impact
            # wrench" (the "with" is the denial's alone) and affirms "tighten the nuts". A
            # circumstance the claim speaks of counts as one more thing agreed in: "Never paint
            # the fence while it is raining. Paint it on a dry day." denies "paint the fence
            # while it is raining".
            backing = [_backed(mine, p) | _in_circumstance(p, told)
                       for p in premise.atoms if _supports(mine, p, strict=False)]
            flipped = [d for d in flipped if _holds(set(_match(mine, d)[0]) | _in_circumstance(d, told), backing)]
        if flipped:
            return f"polarity: the evidence has '{_say(flipped[0])}'"
    return None


def _holds(agreed: set[str], backing: list[set[str]]) -> bool:
    """Does a denial agreeing with the claim in ``agreed`` slots outweigh every affirmation (each
    the slots it bears the claim out in): more than each, and all of each?"""
    return all(b < agreed for b in backing)


def _in_circumstance(atom: Atom, told: set[str]) -> set[str]:
    """{"circumstance"} where ``atom`` is limited to a circumstance the claim speaks of (its stems
    ``told``: `_spoken_of`), else nothing: a pseudo-slot `_holds` weighs beside the real ones."""
    return {"circumstance"} if atom.restriction and _spoken_of(atom.restriction, told) else set()


def _backed(mine: Atom, theirs: Atom) -> set[str]:
    """The slots in which ``theirs`` bears ``mine`` out: agreeing, or held by a pronoun on either
    side (which may be the same thing)."""
    agree, _, neither = _match(mine, theirs)
    return {*agree, *(k for k in neither if any(a.pronoun for a in (mine.slot(k), theirs.slot(k)) if a))}


def restricted_denial(claim: Facts, premise: Facts) -> bool:
    """Does the premise deny a claim's atom only inside a condition or an exception the claim's
    atom is not in, only in a circumstance the claim's is not (`_elsewhere`, `_restriction`),
    or deny another act of its verb (`_other_act`)? (Then a word-level "negated" finding is not
    trusted either: `localeval.text.contrast_rules`.)"""
    said, told, found, premise = _said(premise), _told(claim), False, _read_pronouns(premise)
    for mine in claim.atoms:
        if not mine.asserted:
            continue
        flips = _flips(mine, premise)
        if _denials(mine, flips, said, told):
            return False
        found = found or bool(flips) or _other_act(mine, premise)
    return found


def denies_other_acts(claim: Facts, premise: Facts) -> bool:
    """Does the premise negate only acts the claim does not speak of: it names none of their
    verbs (as lemma or as written: "must not be frozen" is named by "may be frozen") nor what
    they are done to? "The system cannot reprogram a key fob" says nothing of what the Sentry
    Key Immobilizer does; "Students may not bring calculators" speaks of the claim's
    calculators. A copula's subject and attribute are what it says ("refunds are not
    available"). False where the premise has no negated act."""
    negated = [p for p in premise.atoms if p.negated]
    told = _told(claim)
    return bool(negated) and not any(_denied_words(p) & told for p in negated)


def _denied_words(atom: Atom) -> set[str]:
    """The stems of a negated act's verb and of what it is done to (a copula's subject too)."""
    slots = ("patient", "attr", "agent") if atom.lemma == "be" else ("patient", "attr")
    return {stem(atom.lemma), stem(atom.form)} | {stem(a.head) for k, a in atom.slots if k in slots and not a.pronoun}


def _other_act(mine: Atom, premise: Facts) -> bool:
    """Does the premise negate (or state, for a negated claim) the claim's verb as another act:
    with another particle ("do not turn off the power" / "the TV is turned on") or governing
    another verb ("does not need to be pointed" / "needs to be replaced")?"""
    return any(p.lemma == mine.lemma and p.negated != mine.negated
               and (p.particle != mine.particle or "comp" in _match(mine, p)[1]) for p in premise.atoms)


def swap_contrast(claim: Facts, premise: Facts) -> str | None:
    return _swapped_roles(claim, premise) or _moved_number(claim, premise)


def _moved_number(claim: Facts, premise: Facts) -> str | None:
    """A number the premise states of one thing, given by the claim to another that the premise
    states another number of ("The first dose is given at 12 months. A booster follows at 4
    years." / "The booster is given at 12 months"). The claim's subject must be named in the
    premise (its head and naming words) by statements none of which, nor any statement of a
    pronoun, holds the claim's number; and no statement holding that number may share a word
    of what the claim says beyond its subject phrase, verb and units (then the claim may be
    telling that statement's fact in other words)."""
    stated = {n for st in premise.statements for n in st.numbers}
    aside = _unit_words(claim) | {a.lemma for a in claim.atoms}  # units and verbs
    for mine in claim.statements:
        if mine.pronoun or not mine.subject:
            continue
        homes = [st for st in premise.statements if not st.pronoun and mine.subject <= st.subject]
        if not homes:
            continue
        # What the claim says of its subject: not the subject phrase ("the bridge's main span"
        # says nothing of the bridge's length), not its verb or units.
        said = mine.words - mine.subject - mine.phrase - aside
        for number in sorted(mine.numbers & stated):
            if any(number in st.numbers for st in premise.statements if st in homes or st.pronoun):
                continue
            theirs = sorted({n for st in homes for n in st.numbers} - mine.numbers)
            holders = [st for st in premise.statements if number in st.numbers]
            if not theirs or any(st.words & said for st in holders):
                continue
            name = " ".join(sorted(mine.subject))
            return f"swap: the evidence gives {name} {theirs[0]}, and its {number} to something else"
    return None


def _unit_words(facts: Facts) -> set[str]:
    """The lemma after each number of the text's clauses ("12 months" -> "month")."""
    return {clause[i + 1][0] for clause in facts.clauses for i, (_, v) in enumerate(clause[:-1]) if v is not None}


def _swapped_roles(claim: Facts, premise: Facts) -> str | None:
    for mine in claim.atoms:
        if mine.relational:
            continue
        same = [p for p in premise.atoms if _same_act(mine, p) and p.negated == mine.negated]
        if not same or any(_supports(mine, p) and not _given_elsewhere(mine, p, same) for p in same):
            continue
        swapped = next((p for p in same if _swapped(mine, p)), None)
        if swapped is not None:
            return f"swap: the evidence has '{_say(swapped)}': agent and patient the other way round"
        for theirs in same:
            agree, conflict, _ = _match(mine, theirs)
            if len(conflict) != 1 or conflict == ["comp"]:  # another act, not a role given another
                continue
            slot = conflict[0]
            arg = mine.slot(slot)
            core = theirs.slot(slot)
            if ((slot == "agent" and _undergoes(mine, theirs)) or _dated_by(arg, theirs)
                    or _compared_with(mine, theirs, slot)):
                continue
            if (slot == "patient" and core is not None and core.head != arg.head
                    and any(k.startswith("prep:") and a.head == arg.head for k, a in theirs.slots)):
                # The premise's act holds it after a preposition ("flew the helicopter on the
                # mission"): another thing in the slot, not the claim's given to another.
                continue
            kind = _kind(arg)
            if kind != "other" and all(_kind(a) not in (kind, "other") for k, a in theirs.slots if k == slot):
                continue  # a name and a description ("Ben Elton" / "the comedian") may be one and the same
            # The claim's value is given something else in the premise: moved, not merely
            # unknown. With no other slot to pair it by, a name the predicate never takes in
            # that slot ("Collins walked" / "Armstrong and Aldrin walked ... Collins remained"),
            # the copula aside: it takes any subject, so another subject of "is" says nothing
            # ("Digital Summer is from Phoenix" / "A Cry Farewell is a band ... toured with
            # Digital Summer"). Given to something else: a name anywhere ("Ortiz leads
            # cardiology. Oncology is run by Reed."), a common noun in a parallel statement (an
            # atom of the same predicate; two copulas are not parallel, "is" relates any two
            # things) or in the same slot of another act of the same coordinated statement (the
            # same sentence: "The council approved the plan, while the residents' association
            # opposed it"). Not in another slot: "the loan is a refinance" is not moved by "your
            # mortgage was a refinance loan", nor is "line" in "The line will run ... .
            # Construction will cost 480 million euros.".
            namesakes = [a for k, a in theirs.slots if k == slot and a.head == arg.head]
            if namesakes:
                # The same thing with other modifiers: moved where the premise itself tells
                # two of them apart ("the lower basket" / "the upper basket"), where their
                # numbers differ ("for two years" / "for one year"), or where the claim's
                # own, modifiers and all, stands elsewhere in it; otherwise one thing
                # written two ways ("a British national" / "a UK national").
                moved = any(a.contrasted or (_numbers_differ(a, arg) and not _same_quantity(a, arg)
                                                 and not _approximated(a, arg))
                            for a in namesakes) or any(
                    _compare(arg, a, True) == 1 for p in premise.atoms for _, a in p.slots if a not in namesakes)
            else:
                parallel = mine.lemma != "be"
                moved = any(arg.head == a.head and (arg.named or (parallel and p.lemma == mine.lemma
                                                                  and not _whole_of(p, k, theirs))
                                                    or (p.sentence == theirs.sentence and k == slot))
                            for p in premise.atoms for k, a in p.slots)
            lone = (not agree and arg.named and mine.lemma != "be" and len([k for k, _ in mine.slots if k in _CORE]) == 1
                    and not any(_compare(arg, a, True) == 1 for p in same for k, a in p.slots if k == slot))
            if moved and (agree or lone):
                return f"swap: the evidence has '{_say(theirs)}', not '{_say(mine)}'"
    return None


def _dated_by(arg: Arg, theirs: Atom) -> bool:
    """Is the claim's value a year that the premise's very act holds under another preposition?
    A year places the act in time whichever preposition carries it ("rose from 1.9 million in
    2022 to 2.4 million in 2023" / "rose by about half a million from 2022 to 2023"): not a
    role given to something else. So does a named year ("fell from 1,240 pupils in the 2021-22
    school year to 1,180 in 2022-23" / "fell in the 2022-23 school year"). A year another act
    holds is still moved, and a number with a unit ("from 1,240 euros") is no year."""
    years = _year_values(arg)
    return bool(years) and any(years & _year_values(a) for _, a in theirs.slots)


_YEAR_NOUNS = frozenset({"year", "season", "term", "semester"})
"""Nouns a year names a time of ("the 2022-23 school year", "the 2023 season")."""


def _year_values(arg: Arg) -> set[str]:
    """The years an argument is: itself ("in 2022"), or those of a year noun ("in the 2023
    financial year"); none for anything else."""
    if is_year(arg.head):
        return {arg.head}
    if arg.head in _YEAR_NOUNS:
        return {n for n in arg.numbers if is_year(n)}
    return set()


def _compared_with(mine: Atom, theirs: Atom, slot: str) -> bool:
    """Does the claim compare its holder with the one the premise gives the act ("... when
    Constantinople fell to the Ottomans" / "The Western Empire fell almost a thousand years
    before Constantinople")? The claim names the premise's holder itself, as the other side of
    the comparison ("before Constantinople [fell]"): it tells of two acts, one of them the
    premise's, and says nothing of who did the premise's. Whether its own holder did the act
    is for the judge and the order checks, not a swap."""
    held = [a for k, a in theirs.slots if k == slot]
    beside = [a for k, a in mine.slots if k.startswith("prep:") and k[5:] in COMPARING]
    return any(_compare(a, b, True) == 1 for a in beside for b in held)


def _whole_of(p: Atom, k: str, theirs: Atom) -> bool:
    """Is the claim's common noun, found in slot ``k`` of atom ``p``, the "of" phrase of the very
    act it conflicts with? The parse hangs a noun's "of" phrase on the act, so "the primary
    objective of this study was to provide ..." reads as an act of the objective with "of
    study" beside it, and "the distribution of time from onset peaked" as one of the
    distribution: a claim that says the study provides, or the time peaks, names the thing
    by what the premise says of one of its aspects, not a role given to something else. Only
    that atom's own "of" phrase is excused: the noun given the act by another statement is
    still moved ("the purpose of the survey was to measure spending, while the census
    measured income" / "the survey measured income"), and a name is moved wherever it stands."""
    return p is theirs and k == "prep:of"


def _undergoes(mine: Atom, theirs: Atom) -> bool:
    """Is the claim's subject, of a verb used without an object, what the premise's act was
    done to? "The bridge opened in 1890" / "The bridge was opened by the Prince in 1890": one
    fact, the subject of an intransitive "open", "close", "sink" or "start" being the thing
    the transitive act is done to."""
    agent, patient = mine.slot("agent"), theirs.slot("patient")
    return (agent is not None and patient is not None and mine.slot("patient") is None
            and _compare(agent, patient, True) == 1)


def _kind(arg: Arg) -> str:
    """"name" (written with a capital), "description" (a word in lower case: "the comedian",
    "the club") or "other" (a number, a letter, a pronoun). By the writing, not the tagger: it
    calls many a rare name a noun ("Sacagawea") and, in lower-cased text, nouns names."""
    if arg.pronoun or arg.numbers or len(arg.head) < 2 or not arg.head.isalpha():
        return "other"
    return "name" if arg.capital else "description"


def _given_elsewhere(mine: Atom, theirs: Atom, same: list[Atom]) -> bool:
    """Is a preposition's object of the claim that ``theirs`` leaves undecided given to another
    atom of the same predicate? Then ``theirs`` does not support the claim: "the landlord pays
    for electricity" is not borne out by "the landlord pays for water" when the premise has
    "the tenant pays for electricity"."""
    _, _, neither = _match(mine, theirs)
    return any(_compare(m, a, False) == 1 for k in neither if k.startswith("prep:")
               for km, m in mine.slots if km == k
               for q in same if q is not theirs for kk, a in q.slots if kk == k)


_SYMMETRIC = frozenset("marry meet play fight face draw tie share partner collaborate merge join date divorce "
                       "resemble equal match border neighbour neighbor touch".split())
"""Predicates whose agent and patient can trade places without changing the fact."""


def _swapped(mine: Atom, theirs: Atom) -> bool:
    """The claim's agent is the premise's patient and its patient the premise's agent ("Ajax
    was beaten by Feyenoord" / "Ajax beat Feyenoord"), for a predicate that is not symmetric."""
    if mine.lemma in _SYMMETRIC:
        return False
    a, p, ta, tp = mine.slot("agent"), mine.slot("patient"), theirs.slot("agent"), theirs.slot("patient")
    if not (a and p and ta and tp):
        return False
    return (_compare(a, tp, True) == 1 and _compare(p, ta, True) == 1
            and _compare(a, ta, True) == -1 and _compare(p, tp, True) == -1)


def _dated(v: float | None, at: tuple[int, int], years: frozenset[tuple[int, int]] | None) -> bool:
    """Is ``v`` (at ``at`` in the clauses) a value a side can take: any number, or where
    ``years`` is given (the premise's `Facts.dates`) a year."""
    return v is not None and (years is None or at in years)


def _side_value(words: frozenset[str], clauses, avoid: frozenset[str],
                tied: list | None = None, years: frozenset[tuple[int, int]] | None = None,
                ) -> tuple[float, tuple[int, int]] | None:
    """The number nearest (in tokens, inside its clause) to a word only this side names (a
    number that names a side -- "in 2020", "the 2 L bottle" -- is an anchor, not a value);
    with ``years``, the nearest year. A tie is recorded in ``tied`` when given."""
    best: tuple[int, float, tuple[int, int]] | None = None
    tie = False
    for ci, clause in enumerate(clauses):
        anchors = [i for i, (lemma, _) in enumerate(clause) if lemma in words and lemma not in avoid]
        numbers = [(i, v) for i, (lemma, v) in enumerate(clause) if _dated(v, (ci, i), years) and lemma not in words | avoid]
        for a in anchors:
            for i, v in numbers:
                d = abs(i - a)
                if best is None or d < best[0]:
                    best, tie = (d, v, (ci, i)), False
                elif d == best[0] and (ci, i) != best[2] and v != best[1]:
                    tie = True
    if tie and tied is not None:
        tied.append(True)
    return None if best is None or tie else (best[1], best[2])


def _span_end(words: frozenset[str], clauses, avoid: frozenset[str],
              years: frozenset[tuple[int, int]] | None = None) -> tuple[float, tuple[int, int]] | None:
    """The end of a span ("from 1837 to 1901") in the one clause that names this side, or None."""
    ends = [(v, (ci, i)) for ci, clause in enumerate(clauses)
            if any(lemma in words and lemma not in avoid for lemma, _ in clause)
            for i, (_, v) in enumerate(clause) if _dated(v, (ci, i), years) and i > 0 and clause[i - 1][0] in _SPAN_ENDS]
    return ends[0] if len(ends) == 1 else None


_SPAN_ENDS = frozenset({"to", "until", "till", "through", "-", "–"})


def _distances(words: frozenset[str], clauses, avoid: frozenset[str],
               years: frozenset[tuple[int, int]] | None = None) -> dict[tuple[int, int], tuple[int, float]]:
    """Each number of the premise that shares a clause with a word only this side names: its
    distance (in tokens) to the nearest such word, and its value."""
    out: dict[tuple[int, int], tuple[int, float]] = {}
    for ci, clause in enumerate(clauses):
        anchors = [i for i, (lemma, _) in enumerate(clause) if lemma in words and lemma not in avoid]
        for i, (lemma, v) in enumerate(clause):
            if _dated(v, (ci, i), years) and anchors and lemma not in words | avoid:
                d = min(abs(i - a) for a in anchors)
                if (ci, i) not in out or d < out[(ci, i)][0]:
                    out[(ci, i)] = (d, v)
    return out


def _sides(rel: Relation, premise: Facts) -> tuple[float, float] | None:
    """The premise's values of the two sides of a claim's relation, when each is found: each
    side's nearest number; when both sides' nearest is the same number ("fell to 5.1 % in March
    from 5.6 % in February": 5.6 is nearest to both), the two distinct numbers nearest in sum,
    if one such pairing is best."""
    tied: list[bool] = []
    # Events are ordered by their years: "took eight years to build" dates nothing. A quantity
    # is not measured in years: "further north", "more films" are not read from "opened in 1929".
    years = premise.dates if rel.events else None
    clauses = premise.clauses if rel.events else _quantities(premise)
    left_clauses, right_clauses = _own(rel.left, rel.right, clauses), _own(rel.right, rel.left, clauses)
    # A year the claim gives a side dates it, if the premise states that year too: "Kerr
    # retired in 2015 before ..." is not read from the 2004 nearest "Kerr", and "retired in
    # 2019" from no year at all (whether 2019 is right is the number rule's question).
    stated_left, stated_right = rel.stated
    left = _in_premise(stated_left, clauses, years) if stated_left else _side_value(
        rel.left, left_clauses, rel.right, tied, years)
    right = _in_premise(stated_right, clauses, years) if stated_right else (
        rel.right_ends and _span_end(rel.right, right_clauses, rel.left, years)) or _side_value(
        rel.right, right_clauses, rel.left, tied, years)
    # Both sides nearest the same number, one side between two at the same distance ("312,000
    # in 2010 and 298,000 in 2020"), or the two nearest counting different things ("1 GB" /
    # "$45"): the pairing of one unit nearest in sum decides.
    units = dict(premise.units)
    both = left is not None and right is not None
    mismatch = both and not _comparable(rel, units, left[1], right[1])
    if (both and left[1] == right[1]) or tied or mismatch:
        ours = _distances(rel.left, left_clauses, rel.right, years)
        theirs = _distances(rel.right, right_clauses, rel.left, years)
        # After a mismatch, only two numbers of one stated unit: the nearest were two kinds.
        pairings = sorted((dl + dr, vl, vr) for pl, (dl, vl) in ours.items() for pr, (dr, vr) in theirs.items()
                          if pl != pr and vl != vr and _comparable(rel, units, pl, pr, strict=mismatch))
        if not pairings or (len(pairings) > 1 and pairings[1][0] == pairings[0][0]
                            and (pairings[1][1] - pairings[1][2]) * (pairings[0][1] - pairings[0][2]) < 0):
            return None
        return pairings[0][1], pairings[0][2]
    if left is None or right is None or left[1] == right[1] or left[0] == right[0]:
        return None
    return left[0], right[0]


def _in_premise(year: float, clauses, years: frozenset[tuple[int, int]] | None,
                ) -> tuple[float, tuple[int, int]] | None:
    """The premise's first date in ``year`` ("9 November 1989" for 1989) and where it stands."""
    return next(((v, (ci, i)) for ci, clause in enumerate(clauses) for i, (_, v) in enumerate(clause)
                 if _dated(v, (ci, i), years) and int(v) == year), None)


def _own(words: frozenset[str], other: frozenset[str], clauses):
    """The clauses one side's number may come from: where the side has a clause of its own
    (naming it and not the other side), not the clauses naming the other side too (blanked, so
    positions keep their indices). The claim's side carries the words it shares with the
    compared measure ("Imatinib raised glucose in more patients than nilotinib": "glucose",
    "patient"), and "Nilotinib raised glucose in 41 of 120 patients; imatinib raised it in 9 of
    115" must not give imatinib the 120 of nilotinib's clause."""
    mine, theirs = words - other, other - words

    def names(clause, side: frozenset[str]) -> bool:
        return any(lemma in side for lemma, _ in clause)

    if not any(names(c, mine) and not names(c, theirs) for c in clauses):
        return clauses
    return tuple(() if names(c, theirs) else c for c in clauses)


def _comparable(rel: Relation, units: dict[tuple[int, int], str], at: tuple[int, int], other: tuple[int, int],
                strict: bool = False) -> bool:
    """May a quantity be compared by these two numbers? Not when they count different things
    ("$800" and "Oct. 1", "1 %" and "5th", "$10" and "one gigabyte") or not what the comparative
    measures (`Relation.units`); ``units``: the premise's (`Facts.units`); ``strict``: only when
    both state one unit. Years date events, so an event's two are not asked."""
    if rel.events:
        return True
    mine, theirs = units.get(at), units.get(other)
    if rel.units and any(u is not None and u not in rel.units for u in (mine, theirs)):
        return False  # "cheaper" is not read from "7 adults" against "5 adults"
    if strict:
        return mine is not None and mine == theirs
    return mine is None or theirs is None or mine == theirs


def _quantities(facts: Facts) -> tuple[tuple[tuple[str, float | None], ...], ...]:
    """``facts.clauses`` as a quantity reads them: the four-digit years and the dates taken out
    of the values (their words stay, to name a side: "revenue in 2020"), and the whole of a
    part ("41 of 120 patients" counts 41 who did something, of 120 who were there: the 120 is
    nearest the noun, not what a "more patients" compares)."""
    def value(clause, ci: int, i: int) -> float | None:
        v = clause[i][1]
        if v is None or ((ci, i) in facts.dates and v >= 1000):
            return None
        whole = i >= 2 and clause[i - 1][0] == "of" and clause[i - 2][1] is not None
        return None if whole else v

    return tuple(tuple((lemma, value(clause, ci, i)) for i, (lemma, _) in enumerate(clause))
                 for ci, clause in enumerate(facts.clauses))


def _rel_gap_holds(rel: Relation, sides: tuple[float, float]) -> bool:
    """Does the premise bear out the relation's stated gap: a factor as the ratio of its two
    values, a difference as their difference (in either unit of a hundredth: "70 cents")?"""
    if rel.gap is None:
        return False
    if rel.ratio:
        low, high = sorted(abs(v) for v in sides)
        return low > 0 and _gap_holds(max(rel.gap, 1 / rel.gap), rel.hedge, high / low)
    difference = abs(sides[0] - sides[1])
    return any(_gap_holds(g, rel.hedge, difference) for g in (rel.gap, rel.gap_alt) if g)


def _gap_holds(gap: float, hedge: str, difference: float) -> bool:
    """Does the premise's ``difference`` bear out the claim's stated gap with its hedge?"""
    if hedge == "over":
        return difference > gap
    if hedge == "under":
        return difference < gap
    if hedge == "almost":
        return 0.8 * gap <= difference <= gap
    if hedge == "about":
        return 0.8 * gap <= difference <= 1.2 * gap
    return abs(difference - gap) <= 0.01 * gap + 1e-9


def _years(atom: Atom) -> list[float]:
    """The years an atom is dated by (in any of its prepositions' objects): 100 to 2100."""
    return [v for k, a in atom.slots if k.startswith("prep:") for n in a.numbers
            for v in (_float(n),) if v is not None and 100 <= v <= 2100 and float(v).is_integer()]


def _float(number: str) -> float | None:
    try:
        return float(number)
    except ValueError:
        return None


def _doer(atom: Atom, undergoes: bool = False) -> Arg | None:
    """Who did the act; with ``undergoes``, what it was done to (where the atom says)."""
    first, second = ("patient", "agent") if undergoes else ("agent", "patient")
    return atom.slot(first) or atom.slot(second)


def _extreme_years(ext: Extreme, premise: Facts) -> tuple[float, list[float]] | None:
    """X's year (its earliest for "first", its latest for "last") and each other doer's, from
    the premise's atoms of the same verb; None unless X and at least one other are dated. The
    claim's "X opened first" (no object) may say what the premise's act was done to ("X was
    opened by the Prince"): where X is one of its objects, the objects are compared."""
    mine: list[float] = []
    theirs: dict[str, list[float]] = {}
    undergoes = any(atom.lemma == ext.verb and (patient := atom.slot("patient")) is not None
                    and _compare(ext.subject, patient, True) == 1 for atom in premise.atoms)
    for atom in premise.atoms:
        doer = _doer(atom, undergoes)
        years = _years(atom)
        if atom.lemma != ext.verb or atom.negated or not atom.asserted or doer is None or doer.pronoun or not years:
            continue
        same = _compare(ext.subject, doer, True)
        if same == 1:
            mine += years
        elif same == -1:
            theirs.setdefault(doer.head, []).extend(years)
    if not mine or not theirs:
        return None
    pick = min if ext.direction < 0 else max
    return pick(mine), [pick(v) for v in theirs.values()]


def _named(arg: Arg) -> str:
    return " ".join(sorted(arg.words))[:40]


def _extreme_said(ext: Extreme) -> str:
    return f"{_named(ext.subject)} {ext.verb} {'first' if ext.direction < 0 else 'last'}"


def _extreme_contrast(ext: Extreme, premise: Facts, found: tuple[float, list[float]] | None) -> str | None:
    """The claim's "X <verb> first" against the premise: another doer dated earlier (later for
    "last"; ``found``: `_extreme_years`), or the premise's own "Y <verb> first" of someone else."""
    for other in premise.extremes:
        if other.verb == ext.verb and other.direction == ext.direction and _compare(ext.subject, other.subject, True) == -1:
            return f"order: the evidence says {_extreme_said(other)}, not {_named(ext.subject)}"
    if found is None:
        return None
    mine, others = found
    beyond = [y for y in others if (y - mine) * ext.direction > 0]
    if beyond:
        return f"order: the evidence dates {_named(ext.subject)} {mine:g} and another {beyond[0]:g}, so not {_extreme_said(ext)}"
    return None


def _extreme_holds(ext: Extreme, premise: Facts, found: tuple[float, list[float]] | None) -> str | None:
    if found is None or _extreme_contrast(ext, premise, found) is not None:
        return None
    mine, others = found
    if all((mine - y) * ext.direction > 0 for y in others):
        return f"{mine:g} for {_named(ext.subject)}, against {', '.join(f'{y:g}' for y in others)}"
    return None


def order_confirmation(claim: Facts, premise: Facts) -> str | None:
    """The claim's order or comparison borne out by the premise's numbers: each side's value
    found, the claim's direction theirs, and a stated gap ("three years before", "150 euros
    more") their difference. The judge reads "dedicated three years before" against "1886 ...
    1889" as a contradiction (P(entailment) 0.01): arithmetic is beyond it. Every relation of
    the claim must hold (one unconfirmed relation confirms nothing)."""
    if not claim.relations and not claim.extremes:
        return duration_confirmation(claim, premise)
    said = []
    for ext in claim.extremes:
        # An extreme the premise does not date is left to the relations beside it ("finished
        # first, eight years before the west wing"); one it dates must hold.
        found = _extreme_years(ext, premise)
        if found is None and claim.relations:
            continue
        held = _extreme_holds(ext, premise, found)
        if held is None:
            return None
        said.append(held)
    for rel in claim.relations:
        sides = _sides(rel, premise)
        if sides is None or (sides[0] - sides[1]) * rel.direction <= 0:
            return None
        if rel.events and not all(100 <= v < 2101 for v in sides):  # years (476 included), not ages
            return None
        if rel.stated_gap and not _rel_gap_holds(rel, sides):
            return None
        said.append(f"{_shown(sides[0])} for {' '.join(sorted(rel.left))[:40]} and {_shown(sides[1])} for "
                    f"{' '.join(sorted(rel.right))[:40]}")
    return "order: the evidence gives " + "; ".join(said) + ", as the claim has it"


def _shown(value: float) -> str:
    """A value in a reason: "1300", "3.2", "1989.86" (a date), "4.2 billion" (not "4.2e+09")."""
    for word, scale in (("billion", 1e9), ("million", 1e6)):
        if abs(value) >= scale:
            return f"{value / scale:g} {word}"
    return f"{value:g}"


def order_contrast(claim: Facts, premise: Facts) -> str | None:
    for ext in claim.extremes:
        reason = _extreme_contrast(ext, premise, _extreme_years(ext, premise))
        if reason is not None:
            return reason
    for rel in claim.relations:
        sides = _sides(rel, premise)
        if sides is None:
            continue
        left, right = (sides[0], None), (sides[1], None)
        if (left[0] - right[0]) * rel.direction < 0:
            return (f"order: the evidence gives {_shown(left[0])} for {' '.join(sorted(rel.left))[:40]} and {_shown(right[0])} "
                    f"for {' '.join(sorted(rel.right))[:40]}, the other way round from the claim")
    return None


CHECKS = ("polarity", "swap", "order")
RELATION_WORDS = re.compile(r"\b(?:before|after|than|earlier|later|times|twice|thrice|first|last)\b"
                            r"|\b(?:from|between)\b[^.;]*\b\d{4}\b|\bfor\b[^.;]*\byears?\b", re.IGNORECASE)
"""Words of a claim that orders, compares or dates things: the order check's gate."""
_NEGATION = re.compile(r"\b(?:not|never|cannot|no|without)\b|n't", re.IGNORECASE)
_SEVERAL = re.compile(r"\band\b|\bwhile\b|\bwhereas\b|\bby\b|[;,]|\.\s", re.IGNORECASE)
_BY = re.compile(r"\bby\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
EXTREME_WORDS = re.compile(r"\b(?:first|last)\b", re.IGNORECASE)
"""A claim's "first" / "last" (`Extreme`), read against the premise's own too."""


def _reordered(claim: str, premise: str) -> bool:
    """Do the content words the claim shares with the premise come there in another order (by
    their first mention: "The nurse trained the new doctor" / "The new doctor trained the
    nurse")?"""
    first: dict[str, int] = {}
    for i, term in enumerate(content_terms(premise)):
        first.setdefault(term, i)
    at = [first[t] for t in dict.fromkeys(content_terms(claim)) if t in first]
    return any(later < earlier for earlier, later in zip(at, at[1:]))


def reads_premise(claim: str, premise: str, check: str) -> bool:
    """Is ``check`` worth a parse of the pair? Cheap gates on the raw text: a negation on
    either side (polarity), several things stated in the premise (swap), a relation in the
    claim and a number (or its own "first" / "last") in the premise (order). (Several things:
    two sentences, a list, a passive "by" agent.) A swap of one statement's two sides needs no
    second one: a passive claim ("The mayor was criticised by the newspaper" / "The mayor
    criticised the newspaper") or the words both share in another order (`_reordered`)."""
    if check == "polarity":
        return bool(_NEGATION.search(premise) or _NEGATION.search(claim))
    if check == "swap":
        return bool(_SEVERAL.search(premise) or _BY.search(claim) or _reordered(claim, premise))
    # (A "first" or "last" of the claim is read against the premise's own too: "Amundsen
    # arrived first" refutes "Scott arrived first" without a date.)
    return bool(RELATION_WORDS.search(claim) and (_DIGIT.search(premise) or (
        EXTREME_WORDS.search(claim) and EXTREME_WORDS.search(premise))))
