"""Atomic parts of a claim, cut from its dependency parse (no language model).

A claim (`localeval.text.claims.split_claims`) is a sentence, a list item or a coordinated
clause. Many still state several facts at once, and a small judge then rejects the whole
sentence when one fact is missing from a unit or sits in another chunk. `atomic_parts` cuts a
claim into the facts it states, each rewritten from the claim's own tokens (nothing is
invented but a copula for appositives), by these rules, applied again to every piece until
none applies (at most `MAX_PARTS` parts):

1. clauses joined by a top-level ";" (each side two words or more) or ":" (each side with a verb);
2. a trailing "when / because / while / whereas / although" clause with its own subject:
   the main clause, and the subordinate clause without its marker; a "when" or "while" clause
   only where it tells of a past event beside a past event ("she died when her car hit a
   tree") or follows a comma as a contrast ("profit rose, while revenue fell"). Elsewhere it
   is the circumstance the main clause holds under ("the charger can be covered while it is
   in use", "the warranty is void when the seal is broken"): neither half is stated alone;
3. a non-restrictive relative clause (", which ...", ", who ..."): the main clause without
   it, and the relative clause with the pronoun replaced by the noun phrase it refers to;
4. an appositive (", the capital of X,"): the main clause without it, and "<noun> is <appositive>";
5. coordinated predicates sharing their subject ("switch it off, clean the filter and check
   the hose"): one part per predicate, each with the shared subject and auxiliaries;
6. coordinated nouns, numbers, adjectives or adverbs joined by "and" ("covers parts and
   labour for two years", "A and B walked"): one part per conjunct, with everything else the
   sentence says about them distributed to each;
7. two or more modifiers of the main verb (time, place, manner, cause: "sank on 15 April 1912
   after striking an iceberg"): one part per modifier, each with the core clause, so that a
   detail one text adds costs one part; a condition or circumstance ("if ...", "while holiday
   mode is on") belongs to the core and stays in every part; not when one modifier denies
   another ("by hand rather than in the dishwasher", "in the fridge, not in the freezer").

Not split: alternatives ("or", "nor", "either"), "between A and B", collective predicates
("A and B met / differ / combine"), conjuncts inside one named entity ("Procter and Gamble"),
conditional and leading subordinate clauses ("If X, Y"; "When the programme ends, rinse"),
circumstances ("when" / "while" clauses other than the past and contrastive ones of rule 2),
"before / after" clauses (the order is the claim), restrictive relatives ("the pen that you
use"), and a first predicate with nothing of its own ("washed and dried the dishes": the
object is shared and cannot be placed). Each part remembers the claim it came from.

The parse is the spaCy pipeline of `localeval.text.entities.load_nlp`; parts are computed only
for the claims a caller asks for (metrics ask for those no single unit supports).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from pydantic import BaseModel

from localeval.text.memo import TextMemo

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["MAX_PARTS", "AtomicPart", "atomic_parts", "atomic_parts_many", "parse_claims"]

MAX_PARTS = 8
"""A claim is cut into at most this many parts (splitting stops there): judge cost stays bounded."""

_SUBORDINATE_MARKERS = frozenset({"when", "because", "while", "whereas", "although", "though"})
_RELATIVE_PRONOUNS = frozenset({"which", "who"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_SHARED_BEFORE_VERB = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "aux", "auxpass", "neg"})
_VERBAL = frozenset({"VERB", "AUX"})
_SPLIT_CC = frozenset({"and", "&"})
_NO_SPLIT_CC = frozenset({"or", "nor", "either", "neither", "whether"})
# Predicates whose subjects or objects act together: "A and B met" does not say "A met".
_COLLECTIVE = frozenset(
    "meet marry differ mix combine compare connect link join collide agree disagree share "
    "merge fight negotiate separate distinguish swap exchange alternate".split()
)
_EDGE = " ,;:-–—"


class AtomicPart(BaseModel):
    """One fact of a claim: its text (built from the claim's tokens) and the claim it came from."""

    text: str
    source_start: int
    source_end: int
    """Character span, in the claim, of the tokens the part was built from (first to last)."""


def atomic_parts(claim: str) -> list[AtomicPart]:
    """The atomic parts of ``claim``; ``[]`` when the rules find nothing to split (the claim is
    its own single part)."""
    return atomic_parts_many([claim])[0]


def atomic_parts_many(claims: Sequence[str]) -> list[list[AtomicPart]]:
    """`atomic_parts` of each claim (parses memoised per process: metrics ask again per row)."""
    parse_claims(claims)
    return [list(_parts_of(c)) for c in claims]


def parse_claims(claims: Sequence[str]) -> None:
    """Parse, one spaCy batch per level, what `atomic_parts` would parse for ``claims`` and has
    not yet: the claims, then the pieces the rules cut from them, then those pieces' pieces.
    spaCy's ``pipe`` parses short texts about twice as fast as one call per text, with the
    same parses (`localeval.text.roles.parse_many`); a claim's pieces, parsed as they came,
    were half of the parts' parsing time. A claim stops adding pieces once it has
    `MAX_PARTS` at one level (`_parts_of` splits no further), so a few pieces it will not
    split may be parsed too."""
    level = {c: [c] for c in dict.fromkeys(c.strip() for c in claims if len(c.split()) >= 4)}  # claim: its pieces
    for _ in range(MAX_PARTS):  # a claim is split at most MAX_PARTS - 1 times along any path
        if not level:
            break
        todo = [t for t in dict.fromkeys(t for texts in level.values() for t in texts) if not _PARSES.lookup(_TABLE, t)[0]]
        for text, doc in zip(todo, _nlp().pipe(todo, batch_size=_PARSE_BATCH)):
            _PARSES.store(_TABLE, text, doc)
        level = {claim: pieces for claim, texts in level.items()
                 if 0 < len(pieces := [p for t in texts for p in _split_once(t) or ()]) <= MAX_PARTS}


@lru_cache(maxsize=4096)
def _parts_of(claim: str) -> tuple[AtomicPart, ...]:
    if len(claim.split()) < 4:
        return ()  # too short to hold two facts: no parse
    done: list[tuple[str, int, int]] = []
    todo: list[tuple[str, int, int]] = [(claim.strip(), 0, len(claim))]
    while todo:  # depth first, so the parts come in reading order
        text, start, end = todo.pop(0)
        pieces = None if len(done) + len(todo) + 1 >= MAX_PARTS else _split_once(text)
        if not pieces or len(done) + len(todo) + len(pieces) > MAX_PARTS:
            done.append((text, start, end))
            continue
        todo = [(piece, start, end) for piece in pieces] + todo
    done = list({text: (text, start, end) for text, start, end in reversed(done)}.values())[::-1]  # once each
    if len(done) < 2:
        return ()
    return tuple(AtomicPart(text=t, source_start=s, source_end=e) for t, s, e in _narrowed(claim, done))


def _narrowed(claim: str, parts: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Each part's span narrowed to the claim's text from its first word to its last one."""
    out = []
    for text, start, end in parts:
        words = re.findall(r"\w+", text)
        if words:
            lowered = claim.lower()
            a = lowered.find(words[0].lower(), start, end)
            b = lowered.rfind(words[-1].lower(), start, end)
            if 0 <= a <= b:
                start, end = a, b + len(words[-1])
        out.append((text, start, end))
    return out


def _nlp():
    from localeval.text.entities import load_nlp

    return load_nlp()


_PARSES = TextMemo(maxsize=8192)
"""The last 8,192 parses of this process, by text (`TextMemo`'s bounded table: `parse_claims`
fills it a batch at a time, `_parse` reads and fills it one text at a time)."""
_TABLE = "atoms.parse"
_PARSE_BATCH = 64


def _parse(text: str) -> Doc:
    found, doc = _PARSES.lookup(_TABLE, text)
    if not found:
        doc = _nlp()(text)
        _PARSES.store(_TABLE, text, doc)
    return doc


@lru_cache(maxsize=8192)
def _split_once(text: str) -> tuple[str, ...] | None:
    """The pieces of the first rule that applies to ``text`` (two or more, each with content,
    none equal to ``text``), else None. Remembered: `parse_claims` asks first, to parse the
    pieces in batches."""
    doc = _parse(text)
    for rule in (_punct_split, _subordinate_split, _relative_split, _appositive_split,
                 _predicate_split, _nominal_split, _adjunct_split):
        pieces = rule(doc)
        if pieces:
            pieces = [p for p in (_render_text(p) for p in pieces) if p]
            if len(pieces) >= 2 and all(p != _render_text(text) for p in pieces) and not _stranded(doc, pieces):
                return tuple(pieces)
    return None


def _stranded(doc: Doc, pieces: list[str]) -> bool:
    """Whether a piece ends on a preposition the parse left without its object ("Avoid alcohol
    for." from "during the course and for at least 48 hours", where the tagger read "for" as a
    conjunct of "during"): the parse is wrong there, and a part cut from it states a fact the
    claim does not."""
    dangling = {t.lower_ for t in doc if t.pos_ == "ADP" and t.dep_ in ("prep", "conj")
                and not any(c.dep_ in ("pobj", "pcomp") for c in t.children)}
    ends = (re.findall(r"\w+", p.lower()) for p in pieces)
    return any(words and words[-1] in dangling for words in ends)


# ----- rendering -------------------------------------------------------------------------


def _render(doc: Doc, keep: set[int]) -> str:
    """The kept tokens in order; a space where tokens were cut out between two words (the
    original spacing elsewhere)."""
    # A comma whose left neighbour was cut closed the phrase that went ("A, and B, should" -> "A should").
    order = [i for i in sorted(keep) if not (doc[i].text == "," and i > 0 and i - 1 not in keep)]
    out = []
    for k, i in enumerate(order):
        out.append(doc[i].text)
        if k + 1 < len(order):
            j = order[k + 1]
            glued = doc[j].is_punct and doc[j].text not in "([{—–"
            out.append(doc[i].whitespace_ if j == i + 1 else ("" if glued else " "))
    return "".join(out)


def _render_text(text: str) -> str:
    """Spaces tidied, dangling commas and conjunctions at the edges dropped, first letter upper
    case, a final full stop: a piece reads as a sentence of its own."""
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r",(\s*,)+", ",", text)
    text = text.strip(_EDGE + ".")
    text = re.sub(r"^(?:and|but|yet|so)\s+", "", text, flags=re.I).strip(_EDGE)
    text = re.sub(r"\s+(?:and|but)$", "", text, flags=re.I).strip(_EDGE)
    if not any(c.isalnum() for c in text):
        return ""
    return text[0].upper() + text[1:] + "."


def _subtree(token: Token) -> set[int]:
    return {t.i for t in token.subtree}


def _all(doc: Doc) -> set[int]:
    return {t.i for t in doc if not t.is_space}


def _with_commas(doc: Doc, removed: set[int]) -> set[int]:
    """``removed`` plus a comma right before it and one right after it (an inserted phrase)."""
    lo, hi = min(removed), max(removed)
    extra = {i for i in (lo - 1, hi + 1) if 0 <= i < len(doc) and doc[i].text in (",", "—", "–")}
    return removed | extra


# ----- rules -----------------------------------------------------------------------------


def _has_verb(tokens) -> bool:
    return any(t.pos_ in _VERBAL for t in tokens)


def _punct_split(doc: Doc) -> list[str] | None:
    """Rule 1: top-level ";" / ":" with a verb on both sides."""
    depth, cuts = 0, []
    for t in doc:
        depth += (t.text in "([{") - (t.text in ")]}")
        if depth == 0 and t.text in (";", ":"):
            cuts.append(t.i)
    if not cuts:
        return None
    bounds = [-1, *cuts, len(doc)]
    pieces = [doc[a + 1 : b] for a, b in zip(bounds, bounds[1:])]
    pieces = [p for p in pieces if any(t.is_alpha or t.is_digit for t in p)]
    # ";" joins statements, even verbless ones ("ibuprofen with food; the pen below 30 C");
    # ":" also introduces labels and lists ("Ingredients: water, salt"), so it needs verbs.
    needs_verb = any(doc[i].text == ":" for i in cuts)
    if len(pieces) < 2 or (needs_verb and not all(_has_verb(p) for p in pieces)) or any(len(p) < 2 for p in pieces):
        return None
    return [p.text for p in pieces]


def _marker(clause: Token) -> Token | None:
    first = min(clause.subtree, key=lambda t: t.i)
    if first.lower_ in _SUBORDINATE_MARKERS and first.dep_ in ("mark", "advmod"):
        return first
    return None


def _subordinate_split(doc: Doc) -> list[str] | None:
    """Rule 2: a trailing when/because/while... clause with its own subject, unless it is a
    circumstance (`_circumstance`)."""
    for sent in doc.sents:
        root = sent.root
        for child in root.children:
            if child.dep_ != "advcl" or child.i < root.i:
                continue
            marker = _marker(child)
            if marker is None or not any(c.dep_ in _SUBJECTS for c in child.children):
                continue
            if _circumstance(root, child):
                return None
            clause = _subtree(child)
            main = _all(doc) - _with_commas(doc, clause)
            return [_render(doc, main), _render(doc, clause - {marker.i})]
    return None


_CIRCUMSTANCE_MARKERS = frozenset({"when", "while", "whenever", "once", "until"})
"""Markers of a clause that can be the circumstance its main clause holds under, not a fact
of its own."""


def _circumstance(verb: Token, clause: Token) -> bool:
    """Whether ``clause`` (an adverbial clause of ``verb``) is the circumstance ``verb`` holds
    under: a clause of `_CIRCUMSTANCE_MARKERS`, unless both it and its main clause tell of the
    past ("she died when her car hit a tree": two events, each stated) or a comma sets a
    "while" apart as a contrast ("profit rose, while revenue fell"). In the present, with a
    modal or an order ("can be covered while it is in use", "do not open the door while it
    runs"), cut apart the main clause would hold always and the circumstance would be asserted
    as a fact."""
    doc = clause.doc
    for marker in clause.children:
        # "when" is tagged an adverb (WRB); "once" as an adverb is a count ("once a month")
        if marker.i > clause.i or not (marker.dep_ == "mark" or marker.tag_ == "WRB") \
                or marker.lower_ not in _CIRCUMSTANCE_MARKERS:
            continue
        if marker.lower_ == "while" and marker.i > 0 and doc[marker.i - 1].text == ",":
            return False
        # A main clause without a verb ("In August 2012, when it crossed the heliopause") is
        # an answer dated by its clause: nothing in it can hold under the clause.
        return not ((verb.pos_ not in _VERBAL or _past(verb)) and _past(clause))
    return False


def _past(verb: Token) -> bool:
    """Whether ``verb`` is in a past tense without a modal ("fell", "was arrested", "had left")."""
    helpers = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(h.tag_ == "MD" for h in helpers):
        return False
    return verb.tag_ == "VBD" or any(h.tag_ == "VBD" for h in helpers)


def _noun_phrase(doc: Doc, head: Token, without: set[int]) -> set[int]:
    """The noun phrase of ``head`` without the inserted phrase ``without`` and its commas."""
    phrase = _subtree(head) - _with_commas(doc, without)
    # Another inserted phrase of the same head (a second relative clause or appositive) goes too.
    for child in head.children:
        if child.dep_ in ("relcl", "appos", "acl") and child.i > head.i:
            phrase -= _with_commas(doc, _subtree(child))
    return phrase


def _relative_split(doc: Doc) -> list[str] | None:
    """Rule 3: ", which/who ..." stating its own fact about the noun before it."""
    for t in doc:
        if t.dep_ != "relcl" or t.head.i >= t.i:
            continue
        clause = _subtree(t)
        first = min(clause)
        if first == 0 or doc[first - 1].text != ",":
            continue  # restrictive: part of what the noun phrase means
        pronoun = next((c for c in t.children if c.lower_ in _RELATIVE_PRONOUNS and c.dep_ in ("nsubj", "nsubjpass")), None)
        if pronoun is None:
            continue
        main = _all(doc) - _with_commas(doc, clause)
        noun = _render(doc, _noun_phrase(doc, t.head, clause)).strip()
        rest = _render(doc, clause - {pronoun.i})
        return [_render(doc, main), f"{noun} {rest}"]
    return None


def _appositive_split(doc: Doc) -> list[str] | None:
    """Rule 4: "X, the Y of Z, ..." -> the sentence without it, and "X is the Y of Z"."""
    for t in doc:
        if t.dep_ != "appos" or t.head.i >= t.i or t.pos_ not in ("NOUN", "PROPN") or t.head.pos_ not in ("NOUN", "PROPN"):
            continue
        inserted = _subtree(t)
        if min(inserted) == 0 or doc[min(inserted) - 1].text not in (",", "(", "—", "–"):
            continue
        opener = doc[min(inserted)]
        # A noun phrase of its own ("the capital of X", "Paris"), not a quantity or a
        # restatement of one ("no more than eight in 24 hours").
        if not ((opener.pos_ == "DET" and opener.lower_ not in ("no", "any", "every", "each")) or opener.pos_ == "PROPN"):
            continue
        inserted_full = _with_commas(doc, inserted) | {i for i in (min(inserted) - 1, max(inserted) + 1)
                                                       if 0 <= i < len(doc) and doc[i].text in "()"}
        main = _all(doc) - inserted_full
        noun = _render(doc, _noun_phrase(doc, t.head, inserted)).strip()
        appos = _render(doc, inserted - {i for i in inserted if doc[i].text in "()"}).strip()
        if not noun or not appos:
            continue
        return [_render(doc, main), f"{noun} is {appos}"]
    return None


def _conjuncts(token: Token) -> list[Token]:
    """``token``'s conjuncts (spaCy chains "A, B and C" as A->B->C or A->B, A->C), in order."""
    out, stack = [], [token]
    while stack:
        head = stack.pop()
        for child in head.children:
            # A list of numbers is often parsed "1216 -appos-> 1217 -conj-> 1225".
            if child.dep_ == "conj" or (child.dep_ == "appos" and child.pos_ == head.pos_ == "NUM"):
                out.append(child)
                stack.append(child)
    return sorted(out, key=lambda t: t.i)


def _links(doc: Doc, members: list[Token]) -> set[int] | None:
    """The cc tokens, preconjunctions and commas that join ``members``; None when the
    coordination may not be split (an alternative, "either ... or")."""
    links: set[int] = set()
    for m in members:
        for c in m.children:
            if c.dep_ in ("cc", "preconj"):
                if c.lower_ in _NO_SPLIT_CC:
                    return None
                if c.dep_ == "cc" and c.lower_ not in _SPLIT_CC and c.lower_ not in ("but", "as", "well"):
                    return None
                links.add(c.i)
    if not any(doc[i].lower_ in _SPLIT_CC for i in links):
        return None  # "and" must join them ("but" alone contrasts)
    span = range(members[0].i, members[-1].i + 1)
    links |= {i for i in span if doc[i].text == "," and doc[i].head in members}
    # "as well as": three tokens, only "as" may be the cc
    for i in list(links):
        if doc[i].lower_ == "as" and i + 2 < len(doc) and doc[i + 1].lower_ == "well" and doc[i + 2].lower_ == "as":
            links |= {i + 1, i + 2}
    return links


def _own(token: Token, members: list[Token]) -> set[int]:
    """The tokens of one conjunct: its subtree without the other conjuncts' subtrees and the links."""
    own = _subtree(token)
    for m in members:
        if m.i > token.i and m.i in own:
            own -= _subtree(m)
    own -= {c.i for c in token.children if c.dep_ in ("cc", "preconj")}
    own -= {c.i for c in token.children if c.text == "," and c.i > token.i}
    return own


def _predicate_split(doc: Doc) -> list[str] | None:
    """Rule 5: coordinated predicates of one subject: one part per predicate."""
    for sent in doc.sents:
        verb = sent.root
        if verb.pos_ not in _VERBAL:
            continue
        # "Fill X, run Y and repeat Z": the parser often hangs the middle predicate on the
        # first by "dep" after a comma, and the rest on it by "conj".
        listed = [c for c in verb.children if c.dep_ in ("dep", "parataxis") and c.pos_ == "VERB"
                  and c.i > 0 and doc[c.i - 1].text == "," and not any(g.dep_ in _SUBJECTS for g in c.children)]
        members = sorted({verb, *listed, *[c for m in (verb, *listed) for c in _conjuncts(m) if c.pos_ in _VERBAL]},
                         key=lambda t: t.i)
        if len(members) < 2:
            continue
        links = _links(doc, members)
        if links is None:
            return None
        # A first predicate with nothing of its own after it ("washed and dried the dishes").
        if not any(c.i > verb.i and c.i not in links and c.dep_ not in ("punct", "conj") for c in verb.children):
            return None
        subject, auxiliaries = set(), set()
        for c in verb.children:
            if c.dep_ in _SHARED_BEFORE_VERB and c.i < verb.i:
                (subject if c.dep_ in _SUBJECTS else auxiliaries).update(_subtree(c))
        stolen = {m.i: _misplaced_subject(doc, verb, m, links) for m in members if m.i != verb.i}
        negated = any(doc[i].dep_ == "neg" for i in auxiliaries)
        if negated and any(not stolen[m.i] and not _has_own_aux(m) for m in members if m.i != verb.i):
            # "Do not freeze the pens and keep them cool": whether "not" reaches the second
            # predicate is the reader's guess, so the claim is kept whole.
            return None
        pieces = []
        for m in members:
            own = _own(m, members) - links
            if m.i == verb.i:
                others = set().union(*(_own(o, members) for o in members if o.i != verb.i), *stolen.values())
                own = (_all(doc) - others - links)
            elif stolen[m.i]:
                own |= stolen[m.i]
            elif not any(c.dep_ in _SUBJECTS for c in m.children):
                # Its own auxiliaries ("will run ... and will cost") replace the shared ones.
                own |= subject if _has_own_aux(m) else subject | auxiliaries
            pieces.append(_render(doc, own))
        return pieces
    return None


def _has_own_aux(predicate: Token) -> bool:
    return any(c.dep_ in ("aux", "auxpass") and c.i < predicate.i for c in predicate.children)


def _misplaced_subject(doc: Doc, verb: Token, member: Token, links: set[int]) -> set[int]:
    """The subject of a coordinated predicate that the parser hung on the first predicate:
    a noun phrase after the "and" and before the predicate's own auxiliaries ("gets 16 weeks,
    and up to five days can be carried over": "days" parsed as the object of "gets"). English
    puts nothing else there, so it is the conjunct's subject; empty when there is none."""
    if any(c.dep_ in _SUBJECTS for c in member.children):
        return set()
    joins = [i for i in links if i < member.i and doc[i].lower_ in _SPLIT_CC]
    aux = [c.i for c in member.children if c.dep_ in ("aux", "auxpass") and c.i < member.i]
    if not joins or not aux:
        return set()
    lo, hi = max(joins), min(aux)
    for c in verb.children:
        if lo < c.i < hi and c.pos_ in ("NOUN", "PROPN", "PRON") and c.dep_ not in ("conj", "punct", "cc"):
            span = _subtree(c)
            if min(span) > lo and max(span) < hi:
                return span
    return set()


def _in_one_entity(doc: Doc, members: list[Token]) -> bool:
    return any(ent.start <= members[0].i and members[-1].i < ent.end for ent in doc.ents)


def _nominal_split(doc: Doc) -> list[str] | None:
    """Rule 6: coordinated nouns, numbers, adjectives or adverbs: one part per conjunct."""
    for t in doc:
        if t.pos_ in _VERBAL or t.dep_ == "conj":
            continue
        members = [t, *_conjuncts(t)]
        if len(members) < 2:
            continue
        links = _links(doc, members)
        if links is None or _in_one_entity(doc, members):
            continue
        head = t.head
        if head.lower_ in ("between", "among", "amongst") or (
            t.dep_ in _SUBJECTS | {"dobj"} and head.lemma_.lower() in _COLLECTIVE
        ):
            continue
        if any(c.lower_ in ("both", "together", "each") for c in head.children) or any(
            w.lower_ in ("together", "respectively", "each other", "combined") for w in doc
        ):
            continue
        owns = [_own(m, members) for m in members]
        lo, hi = min(min(o) for o in owns), max(max(o) for o in owns)
        if hi + 1 < len(doc) and doc[hi + 1].text == "," and (lo == 0 or doc[lo - 1].text != ","):
            links = links | {hi + 1}  # "A, and B, should": the comma closing the coordination
        everything = _all(doc)
        pieces = []
        for k in range(len(members)):
            others = set().union(*(o for j, o in enumerate(owns) if j != k))
            pieces.append(_render(doc, everything - others - links))
        return pieces
    return None


_ADJUNCTS = frozenset({"prep", "advcl", "npadvmod", "agent"})
_CONDITION_MARKS = frozenset({"if", "unless"})
_NOT_ADJUNCT_MARKS = frozenset({"whether", "than", "as"})
_DENIED_ALTERNATIVE = frozenset({"rather", "instead", "than", "not", "never"})
"""Words that, inside a modifier, deny the modifier beside it ("by hand rather than in the
dishwasher", "in the fridge, not in the freezer"): cut apart, the denied one would be asserted."""


def _adjunct_split(doc: Doc) -> list[str] | None:
    """Rule 7: a predicate with two or more modifiers (time, place, manner, cause: "sank on 15
    April 1912 after striking an iceberg"): one part per modifier, each with the core clause
    (subject, verb, objects). A condition or circumstance ("if ...", "while it is in use") is
    part of the core: every part keeps it. A comparison clause stops the rule."""
    for sent in doc.sents:
        verb = sent.root
        if verb.pos_ not in _VERBAL:
            continue
        adjuncts = []
        for c in verb.children:
            if c.dep_ not in _ADJUNCTS:
                continue
            if c.dep_ == "advcl":
                marks = {m.lower_ for m in c.children if m.dep_ == "mark"}
                if marks & _NOT_ADJUNCT_MARKS:
                    return None  # a comparison: "than" / "as" clauses hang on the rest of the sentence
                if marks & _CONDITION_MARKS or _circumstance(verb, c):
                    continue  # cut off, each part would hold unconditionally: it stays in the core
            adjuncts.append(_subtree(c))
        if len(adjuncts) < 2:
            return None
        if any(doc[i].lower_ in _DENIED_ALTERNATIVE and doc[i].dep_ in ("cc", "advmod", "neg", "preconj")
               for a in adjuncts for i in a):
            return None
        if any(c.dep_ == "neg" and c.i > min(min(a) for a in adjuncts) for c in verb.children):
            return None  # "in the fridge, not in the freezer": the negation belongs to a modifier
        cut = set().union(*adjuncts)
        core = _all(doc) - cut
        if not any(t.is_alpha for t in (doc[i] for i in core if i != verb.i)):
            return None
        return [_render(doc, core | a) for a in adjuncts]
    return None

