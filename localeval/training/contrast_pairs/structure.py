"""Edits of the dependency parse, part 2: lists, attributes of coordinated items, and facts
of two sentences merged."""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

from ..examples import NLI2, NLI3
from .edits import CON, ENT, NOT_ENTAILED, Edit, _finalise
from .voice import past, third_person

if TYPE_CHECKING:
    from spacy.tokens import Span, Token


_COLLECTIVE = (
    r"\b(?:between|respectively|together|each other|one another|combined|jointly|mixture|"
    r"among|co-\w+|both|either|neither|rock and roll)\b|&"
)
# Lists whose members do not each carry the predicate ("between A and B", "A or B").
_GUARDS = re.compile(_COLLECTIVE + r"|\bor\b", re.IGNORECASE)
_GUARDS_NEGATED = re.compile(_COLLECTIVE, re.IGNORECASE)


def _own_span(tok: Token) -> tuple[int, int] | None:
    """Token range of one list member without its conjuncts, commas and conjunction."""
    drop: set[int] = set()
    for c in tok.children:
        if c.dep_ == "conj":
            drop.update(t.i for t in c.subtree)
        elif c.dep_ in ("cc", "punct", "preconj"):
            drop.add(c.i)
    own = [t.i for t in tok.subtree if t.i not in drop]
    lo, hi = min(own), max(own)
    return (lo, hi + 1) if hi - lo + 1 == len(own) else None


def _list_members(sent: Span, conjunctions: tuple[str, ...] = ("and",)) -> tuple[Token, list[Token]] | None:
    """The first noun list of the sentence (2-6 members, object position, governed by the
    main verb) with "and" as its conjunction."""
    for tok in sent:
        if tok.dep_ in ("conj", "compound") or tok.pos_ not in ("NOUN", "PROPN", "NUM"):
            continue
        members = [tok, *tok.conjuncts]
        if not 2 <= len(members) <= 6:
            continue
        if tok.dep_ not in ("dobj", "pobj", "attr", "oprd", "npadvmod", "appos"):
            continue
        if tok.dep_ == "attr" and any(
            c.dep_ == "nsubj" and c.tag_ in ("NNS", "NNPS") for c in tok.head.children
        ):
            continue  # "The largest moons are A and B": an identity, not a distributive list
        ccs = [t for m in members for t in m.children if t.dep_ == "cc"]
        if not ccs or any(c.lower_ not in conjunctions for c in ccs):
            continue
        gov = tok.head
        while gov.pos_ not in ("VERB", "AUX") and gov.dep_ != "ROOT":
            gov = gov.head
        if gov != sent.root:
            continue
        return tok, members
    return None


_FOCUS_ADVERBS = {"also", "still", "already", "now", "often", "always", "usually", "generally"}


def negate_clause(sent: Span, text: str | None = None) -> str | None:
    """Negate the main verb of ``sent`` (an auxiliary gets "not", a lexical verb do-support).
    ``text`` replaces the sentence text when the caller edited tokens after the verb."""
    root = sent.root
    if any(c.dep_ == "neg" for c in root.children) or re.search(r"\bnot\b|n't\b|\bnever\b", sent.text):
        return None
    doc = sent.doc
    base = sent.text if text is None else text
    auxes = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    if auxes:
        head = auxes[0]
    elif root.lemma_ == "be" and root.tag_ in ("VBZ", "VBP", "VBD"):
        head = root
    else:
        head = None
    offset = (doc[head.i].idx if head else root.idx) - sent.start_char
    if head is not None:
        after = doc[head.i + 1] if head.i + 1 < sent.end else None
        if after is not None and after.lower_ in _FOCUS_ADVERBS:
            head = after  # "is also not known", not "is not also known"
            offset = after.idx - sent.start_char
        end = offset + len(head.text)
        return base[:end] + " not" + base[end:]
    do = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(root.tag_)
    if do is None:
        return None
    return base[:offset] + f"{do} not {root.lemma_.lower()}" + base[offset + len(root.text):]


def affirm_clause(sent: Span, text: str) -> str | None:
    """Drop the "not" of the main verb of ``sent`` in ``text`` (``sent``'s text with tokens
    after the verb edited): "does not support" -> "supports", "is not" -> "is"."""
    root = sent.root
    neg = next((c for c in root.children if c.dep_ == "neg" and c.lower_ == "not"), None)
    if neg is None:
        return None
    base = sent.start_char
    aux = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < neg.i]
    if aux and aux[0].lemma_ == "do":
        form = {"did": past, "does": third_person, "do": lambda lemma: lemma}.get(aux[0].lower_)
        if form is None or len(aux) != 1 or neg.i != aux[0].i + 1 or root.i != neg.i + 1:
            return None
        start, end = aux[0].idx - base, root.idx + len(root.text) - base
        return text[:start] + form(root.lemma_.lower()) + text[end:]
    start = neg.idx - base
    return text[:start].rstrip() + " " + text[start + len(neg.text) :].lstrip()


def list_edits(sent: Span, rng: random.Random) -> list[Edit]:
    """One list member kept alone (entailed) and that sentence with its polarity reversed
    (contradiction): "open on A, B and C" -> "not open on B"; "does not support A or B" ->
    "supports B"."""
    negated = any(c.dep_ == "neg" for c in sent.root.children)
    if (_GUARDS_NEGATED if negated else _GUARDS).search(sent.text):
        return []
    found = _list_members(sent, ("or", "nor") if negated else ("and",))
    if found is None:
        return []
    first, members = found
    spans = [_own_span(m) for m in members]
    if any(s is None for s in spans):
        return []
    doc = sent.doc
    lo = first.left_edge.i
    hi = max(m.right_edge.i for m in members) + 1
    start, end = spans[rng.randrange(len(spans))]  # type: ignore[misc]
    if lo <= sent.root.i < hi:
        return []
    member = doc[start:end].text
    before = doc[sent.start : lo].text
    after = doc[hi : sent.end].text
    single = _finalise(f"{before} {member} {after}")
    out = [Edit(single, ENT, NLI3, "list_negation")]
    # Rebuild the negation on the original tokens (the verb precedes the list or follows it;
    # its character offset is unchanged when it precedes).
    if sent.root.i < lo:
        reverse = affirm_clause if negated else negate_clause
        flipped = reverse(sent, f"{before} {member} {after}")
        if flipped:
            out.append(Edit(_finalise(flipped), CON, NLI3, "list_negation"))
    return out


_SWAP_ENTS = ("DATE", "CARDINAL", "MONEY", "PERCENT", "QUANTITY", "GPE", "PERSON", "ORG", "LOC",
              "NORP", "ORDINAL")


def attribute_edits(sent: Span, rng: random.Random) -> list[Edit]:
    """Exchange two same-type entities that belong to different items (not entailed), the
    modifiers of two coordinated nouns (not entailed), or two coordinated members whole
    (entailed)."""
    if re.search(r"\brespectively\b|\bfrom\b.*\bto\b|\bbetween\b", sent.text):
        return []
    doc = sent.doc
    out: list[Edit] = []
    text, base = sent.text, sent.start_char

    def swapped(a: tuple[int, int], b: tuple[int, int]) -> str:
        (s1, e1), (s2, e2) = sorted([a, b])
        return text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]

    def chars(lo: int, hi: int) -> tuple[int, int]:
        """Character range, inside the sentence, of tokens ``lo``..``hi - 1``."""
        return doc[lo].idx - base, doc[hi - 1].idx + len(doc[hi - 1]) - base

    found = _list_members(sent)
    coordinated: set[int] = set()
    if found is not None and not _GUARDS.search(text):
        _, members = found
        coordinated = {m.i for m in members}
        spans = [_own_span(m) for m in members]
        if all(span is not None for span in spans):
            i, j = rng.sample(range(len(spans)), 2)
            new = swapped(chars(*spans[i]), chars(*spans[j]))  # type: ignore[misc]
            if new != text:
                out.append(Edit(_finalise(new), ENT, NLI3, "attribute"))
            mods = []
            for m in (members[i], members[j]):
                mm = [c for c in m.children if c.dep_ in ("amod", "nummod") and c.i < m.i]
                mods.append(mm[0] if len(mm) == 1 else None)
            m1, m2 = mods
            if m1 is not None and m2 is not None and m1.lower_ != m2.lower_:
                new = swapped(chars(m1.i, m1.i + 1), chars(m2.i, m2.i + 1))
                out.append(Edit(_finalise(new), NOT_ENTAILED, NLI2, "attribute"))
                return out
    by_label: dict[str, list] = {}
    for ent in sent.ents:
        if ent.label_ in _SWAP_ENTS and ent.root.i not in coordinated:
            by_label.setdefault(ent.label_, []).append(ent)
    pairs = [
        (a, b)
        for ents in by_label.values()
        for k, a in enumerate(ents)
        for b in ents[k + 1 :]
        if a.text.lower() != b.text.lower()
        and b.root not in a.root.conjuncts
        and a.text not in b.text and b.text not in a.text
    ]
    if pairs:
        a, b = rng.choice(pairs)
        new = swapped((a.start_char - base, a.end_char - base), (b.start_char - base, b.end_char - base))
        out.append(Edit(_finalise(new), NOT_ENTAILED, NLI2, "attribute"))
    return out


def merge_edits(first: Span, second: Span, rng: random.Random) -> list[Edit]:
    """Put an entity of one sentence into the other (not entailed); or join the two sentences
    with "and" (entailed, each fact as stated)."""
    out: list[Edit] = []
    a_ents = [e for e in first.ents if e.label_ in _SWAP_ENTS]
    b_ents = [e for e in second.ents if e.label_ in _SWAP_ENTS]
    options = []
    for x in a_ents:
        for y in b_ents:
            if x.label_ != y.label_ or x.text.lower() == y.text.lower():
                continue
            if y.text in first.text or x.text in second.text:
                continue
            options.append((first, x, y))
            options.append((second, y, x))
    if options:
        target, old, new = rng.choice(options)
        s, e = old.start_char - target.start_char, old.end_char - target.start_char
        out.append(Edit(_finalise(target.text[:s] + new.text + target.text[e:]), NOT_ENTAILED, NLI2,
                        "merge"))
    a_text, b_text = first.text.rstrip(), second.text.strip()
    if a_text.endswith(".") and len(a_text) + len(b_text) < 320 and (out or rng.random() < 0.3):
        head = second[0]
        b_join = b_text if head.pos_ == "PROPN" or head.text == "I" or head.text.isupper() else (
            b_text[:1].lower() + b_text[1:])
        out.append(Edit(_finalise(f"{a_text[:-1]}, and {b_join}"), ENT, NLI3, "merge"))
    return out
