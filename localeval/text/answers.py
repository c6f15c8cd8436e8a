"""What answer-side metrics need to know about a response before judging it.

* `is_non_answer`: a statement that declines to answer ("I don't know", "I cannot answer
  that", "The context does not say"). RAGAS calls such answers *noncommittal* and scores their
  relevancy 0; DeepEval lets them count as relevant. localeval flags them explicitly in the
  details and follows RAGAS for the score (see `localeval.metrics.answer_relevancy`).
* `polarity`: the "yes" or "no" a text opens with ("No. Never use vinegar ..."), so that a
  response answering a yes/no question the other way from its reference is known wrong
  whatever the judge reads in the rest (`localeval.metrics.factual_correctness`).
* `non_english_note`: the judge, the claim splitter and the embedding model are English
  models. Text that is plainly not English is still scored (a row is never dropped), but the
  result says why its score deserves less trust.

Both are deterministic rules over the text, no model.
"""

from __future__ import annotations

import re

__all__ = ["declines", "is_non_answer", "looks_non_english", "non_english_note", "polarity"]

# Each alternative is a whole way of declining. They are matched against one statement at a
# time, so "I don't know the exact year, but it was finished in 1889" is split first and only
# its first clause is a non-answer.
_DECLINE = re.compile(
    r"""
    \b(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+(?:really\s+|honestly\s+|simply\s+)?
        (?:not\s+sure|not\s+certain|not\s+able\s+to|unable\s+to|have\s+no\s+idea
          |(?:do|did)\s*n[o']?t\s+(?:know|have\s+(?:that|this|enough|any|the))|dont\s+know
          |can\s*n[o']?t|cannot|could\s*n[o']?t|could\s+not)
  | \b(?:i|we)\s+have\s+no\s+(?:idea|information|knowledge|data)\b
  | \bno\s+idea\b
  | \b(?:i'm|i\s+am)\s+sorry\b
  | \b(?:unable|not\s+able)\s+to\s+(?:answer|help|provide|determine|find|say)\b
  | \b(?:as\s+an\s+ai|as\s+a\s+language\s+model)\b
  | \b(?:the\s+)?(?:provided\s+|given\s+|retrieved\s+)?(?:context|contexts|documents?|sources?|passages?|information|text|reference|article)\s+(?:provided\s+|given\s+)?(?:does|do)\s*(?:n[o']?t|not)\s+(?:mention|say|state|contain|include|provide|specify|answer|cover|give)
  | \bthere\s+is\s+(?:no|not\s+enough|insufficient)\s+(?:information|data|context|evidence)\b
  | \b(?:not\s+enough|insufficient)\s+(?:information|data|context|evidence)\b
  | \bcannot\s+be\s+(?:determined|answered)\b
  | \bunknown\b\s*[.!]?\s*$
  | ^\s*(?:n/?a|none|no\s+answer|unknown)\s*[.!]?\s*$
    """,
    re.IGNORECASE | re.VERBOSE,
)


def is_non_answer(statement: str) -> bool:
    """True when ``statement`` declines to answer rather than saying something about the
    question ("I don't know.", "I'm sorry, I cannot help with that.", "The context does not
    mention it.", "N/A")."""
    return bool(_DECLINE.search(statement.replace("\u2019", "'")))


# A bare "yes" / "no" opening the text, set off by punctuation or alone: "No more than eight
# tablets" and "No smoking is allowed" open with a word, not an answer.
_POLARITY = re.compile(r"\s*(yes|yeah|yep|no|nope)\s*(?:[,.;:!]|[-\u2013\u2014]\s|$)", re.IGNORECASE)
_POLAR_SIDE = {"yes": "yes", "yeah": "yes", "yep": "yes", "no": "no", "nope": "no"}


def polarity(text: str | None) -> str | None:
    """``"yes"`` or ``"no"`` when ``text`` opens with that answer word set off by punctuation
    ("No. Sale items ...", "Yes, take it with food"), else ``None``.

    >>> polarity("No, cast iron pans are not dishwasher safe."), polarity("No more than eight tablets.")
    ('no', None)
    """
    found = _POLARITY.match(text or "")
    return _POLAR_SIDE[found.group(1).lower()] if found else None


def declines(text: str) -> bool:
    """True when every sentence of ``text`` is a non-answer (and there is at least one)."""
    from localeval.text.sentences import split_sentences

    sentences = split_sentences(text)
    return bool(sentences) and all(is_non_answer(s.text) for s in sentences)


# Frequent English function words: almost every English sentence of six words or more has
# one, and text in other languages rarely has several.
_ENGLISH = frozenset(
    "the a an of and or to in on at is are was were be been it its this that these those for "
    "with by from as not no but has have had he she they we you i his her their our your "
    "which who what when where why how do does did will would can could should there".split()
)
# Frequent function words of the commonest other Latin-script languages (German, French,
# Spanish, Italian, Portuguese, Dutch); words that are also English ("in", "a") left out.
_OTHER = frozenset(
    "der die das und ist nicht ein eine einer dem den des mit von wurde sind auf für ich "
    "le la les et est une du des au aux sur pour dans qui que pas sont "
    "el los las y es un una del por para con se como al "
    "il lo gli della delle che di non sono per con "
    "o os da do dos das em um uma não são "
    "het een en van zijn niet met voor op".split()
) - _ENGLISH
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def looks_non_english(text: str) -> bool:
    """True when ``text`` is plainly not English: most of its letters are outside the Latin
    alphabet, or it has at least six words and more function words of another common European
    language (at least two) than English ones. Short or mixed text is given the benefit of the doubt."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    latin = sum(c.isascii() or "\u00c0" <= c <= "\u024f" for c in letters)
    if latin / len(letters) < 0.5:
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 6:
        return False
    # Counting only English words misreads terse technical English ("Photosynthesis converts
    # light energy into chemical energy"): another language must show its own words.
    other = sum(w in _OTHER for w in words)
    return other >= 2 and other > sum(w in _ENGLISH for w in words)


def non_english_note(**texts: str | None) -> str | None:
    """A reason to attach to a score when some of ``texts`` (by column name) is not English."""
    which = [name for name, text in texts.items() if text and looks_non_english(text)]
    if not which:
        return None
    return (f"{' and '.join(which)} does not look like English: localeval's judge, splitters and "
            "embedding model are English models, so this score is less reliable")
