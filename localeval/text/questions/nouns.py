"""Rule 5: coordinated noun phrases ("the capitals of France and Germany") distributed into
one question each, where that is safe."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from localeval.text.questions.vocab import (
    REQUEST_VERBS,
    WH_WORDS,
    _COLLECTIVE,
    _FIXED_PAIRS,
    _NOUNISH,
    _OBJECT_DEPS,
    _is_wh,
    _near_the_question,
    _singular,
    _text,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token


class NounPhraseRules:
    """Mixin of `RuleBasedDecomposer` (uses its ``_parse``)."""

    # ------------------------------------------------------------------ 5. noun phrases
    def _split_nouns(self, clause: str, term: str, depth: int) -> list[str]:
        doc = self._parse(clause + (term or "?"))
        if depth <= 0 or not doc.has_annotation("DEP"):
            return [clause]
        words = {t.lower_ for t in doc}
        if words & _COLLECTIVE or {"each", "other"} <= words:
            return [clause]
        if not (words & WH_WORDS or doc[0].lower_ in REQUEST_VERBS):
            # Only what a wh-question or a request asks about is distributed: in a yes/no
            # question "X and Y" is usually one condition ("wash it with soap and water?").
            return [clause]
        for head in doc:
            conjuncts = self._coordination(doc, head)
            if not conjuncts:
                continue
            variants = self._distribute(doc, conjuncts, len(clause))
            if variants:
                return [v for variant in variants for v in self._split_nouns(variant, term, depth - 1)]
        return [clause]

    @staticmethod
    def _coordination(doc: Doc, head: Token) -> list[Token] | None:
        """The conjuncts of a safely distributable "X, Y and Z" headed by ``head``."""
        if head.dep_ == "conj" or head.pos_ not in _NOUNISH or not head.conjuncts:
            return None
        if head.dep_ in {"nsubj", "attr"}:
            # The subject (or predicate) of a copula is split only under a plural verb: "What
            # are the causes and effects ...", but "this dancer, actress and writer was ..."
            # and "who is a physicist and an adviser" name one person.
            if head.head.lower_ not in {"are", "were"}:
                return None
        elif head.dep_ not in _OBJECT_DEPS:
            return None
        conjuncts = sorted([head, *head.conjuncts], key=lambda t: t.i)
        if any(c.pos_ not in _NOUNISH for c in conjuncts):
            return None
        if not _near_the_question(head):
            return None
        if any(t.dep_ == "poss" and t.pos_ == "PRON" for c in conjuncts[1:] for t in c.lefts):
            return None  # "clematis and its berries": "its" would lose what it points to
        ccs = [t for c in conjuncts for t in c.children if t.dep_ == "cc"]
        if not ccs or any(t.lower_ != "and" for t in ccs):
            return None
        if any((a.lower_, b.lower_) in _FIXED_PAIRS or a.lower_ == b.lower_ for a, b in pairwise(conjuncts)):
            return None
        for ent in doc.ents:  # "Bosnia and Herzegovina" is one place
            if any(ent.start <= t.i < ent.end for t in ccs) or sum(ent.start <= c.i < ent.end for c in conjuncts) > 1:
                return None
        return conjuncts

    @staticmethod
    def _distribute(doc: Doc, conjuncts: list[Token], clause_chars: int) -> list[str]:
        """One clause per conjunct.

        Modifiers to the right of the coordination are shared ("the causes and effects of X",
        "the pros and cons of X", however the parser attached them) unless a conjunct before
        the last has its own ("the benefits of X and the risks of Y").
        """
        nexts = [c.i for c in conjuncts[1:]]

        def own_end(token: Token, limit: int) -> int:
            kids = [c for c in token.rights if c.dep_ not in {"cc", "conj", "punct"} and c.i < limit]
            return max((c.right_edge.i for c in kids), default=token.i)

        ends = [own_end(c, limit) for c, limit in zip(conjuncts, nexts)]
        last = conjuncts[-1]
        ends.append(last.right_edge.i if any(e > c.i for e, c in zip(ends, conjuncts)) else last.i)
        spans = [doc[c.left_edge.i : e + 1] for c, e in zip(conjuncts, ends)]
        if any(_is_wh(t) or t.pos_ == "SYM" or (t.is_punct and t.text not in {",", "-", "'"}) for span in spans for t in span):
            # "the capital of France and which river", "CC1 ~ CC4 / Text1": not a plain list
            return []
        if any(t.is_title and t.is_stop for span in spans[1:] for t in span if t.i > 0):
            return []  # "Fitz and The Tantrums": a capitalised "The" inside marks a name
        # Left modifiers of the first conjunct ("the", "increased SARS-CoV") are shared by
        # later conjuncts that have none of their own: "the GDP and population".
        first = conjuncts[0]
        shared = _text([t for t in spans[0] if t.i < first.i]) if first.i > spans[0].start else ""
        start, end = spans[0].start_char, spans[-1].end_char
        head = conjuncts[0]
        verb = head.head if head.dep_ == "nsubj" else None
        variants = []
        for conjunct, span in zip(conjuncts, spans):
            phrase = span.text
            if shared and conjunct is not first and not list(conjunct.lefts):
                phrase = f"{shared} {phrase}"
            text = doc.text[:start] + phrase + doc.text[end:clause_chars]
            if verb is not None and verb.lower_ in {"are", "were"} and _singular(conjunct):
                # "What are the GDP and population of X?" -> "What is the GDP of X?"
                singular = {"are": "is", "were": "was"}[verb.lower_]
                singular = singular.capitalize() if verb.text[0].isupper() else singular
                shift = 0 if verb.idx < start else len(phrase) - (end - start)
                text = text[: verb.idx + shift] + singular + text[verb.idx + shift + len(verb.text) :]
            variants.append(text)
        return variants
