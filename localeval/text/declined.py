"""Answers that decline to answer, recognised as a whole.

"I'm sorry, the provided documents do not say." asserts nothing: scoring its faithfulness
0.0 puts it beside a hallucination, and scoring its relevancy 0.0 beside an off-topic answer.
A RAG system that declines when its retrieval found nothing is doing the right thing, so
answer-side metrics leave such an answer unscored with `DECLINED_REASON` (the run's summary
counts it under that reason) unless asked to score it (``score_declined``).

The rules are stricter than `localeval.text.answers.is_non_answer`, which finds a declining
*statement* anywhere in a longer answer: here every sentence must be a refusal read from its
start (after an apology, "unfortunately", or "based on the context,"), or a courtesy line
such as "I hope this helps!", and at least one must be a refusal. "I'm sorry to say the
museum closed in 1990." is not declined: after the apology it states a fact.
"""

from __future__ import annotations

import re

__all__ = ["DECLINED_REASON", "is_declined", "is_declining_sentence"]

DECLINED_REASON = "the answer declines to answer"

# Words that may open a refusal without being one; what follows them must be a refusal.
_LEAD = re.compile(
    r"""^(?:
        (?:i\s*'?\s*m|i\s+am|we\s*'?\s*re|we\s+are)\s+(?:very\s+|really\s+|so\s+)?(?:sorry|afraid)
      | sorry | unfortunately | sadly | regrettably | apologies | my\s+apologies
      | (?:based\s+on|according\s+to|from|given|in)\s+(?:the\s+|this\s+|these\s+)?
          (?:provided\s+|given\s+|retrieved\s+|available\s+)?(?:context|contexts|documents?|sources?|passages?|information|text|articles?|excerpts?)
          (?:\s+(?:provided|given|above))?
    )\s*[,:;.!-]*\s*(?:but\s+|however,?\s+)?""",
    re.IGNORECASE | re.VERBOSE,
)
_SOURCE = r"(?:the\s+|these\s+|this\s+|my\s+)?(?:provided\s+|given\s+|retrieved\s+|available\s+|supplied\s+)?" \
          r"(?:context|contexts|documents?|sources?|passages?|information|text|articles?|excerpts?|data|knowledge\s+base)" \
          r"(?:\s+(?:provided|given|above|i\s+have))?"
_NEG = r"(?:do|does|did|can|could)\s*(?:not|n'?t)|cannot|ca\s*n'?t"
_REFUSAL = re.compile(
    rf"""^(?:
        (?:i|we)\s+(?:{_NEG}|am\s+not|'?m\s+not|are\s+not|am\s+unable\s+to|'?m\s+unable\s+to|am\s+not\s+able\s+to|'?m\s+not\s+able\s+to|have\s+no)
          \s+(?:know|sure|certain|answer|find|say|tell|determine|provide|help|access|see|have\s+(?:enough|any|that|this|the|sufficient)|idea|information|knowledge)
      | (?:i|we)\s+(?:do\s*n'?t|dont)\s+know
      | {_SOURCE}\s+(?:{_NEG}|has\s+no|have\s+no|lacks?)\s*(?:explicitly\s+|directly\s+|specifically\s+)?
          (?:say|mention|contain|include|provide|specify|state|answer|cover|give|tell|address|discuss|have|information|details?)
      | there\s+(?:is|was|are)\s+(?:no|not\s+enough|insufficient|nothing)\s*(?:relevant\s+|specific\s+)?
          (?:information|data|context|evidence|mention|answer|details?|in\s+the)
      | (?:no|not\s+enough|insufficient)\s+(?:relevant\s+)?(?:information|answer|data|details?)\s+(?:is\s+|was\s+)?(?:available|provided|found|given|about|on|regarding)
      | (?:it|this|that|the\s+answer)\s+(?:is\s+not|isn'?t|cannot\s+be|can'?t\s+be|was\s+not|wasn'?t)\s+
          (?:mentioned|stated|specified|determined|known|answered|clear|provided|given|possible\s+to\s+(?:say|tell|determine|answer))
      | (?:n/?a|none|unknown|no\s+answer|not\s+sure|no\s+idea|cannot\s+answer|can'?t\s+answer)\s*$
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Pointing elsewhere states nothing about the question either: allowed beside a refusal.
_REFERRAL = re.compile(
    r"^(?:i\s+(?:would\s+)?(?:recommend|suggest)|you\s+(?:may|might|could|should)\s+(?:want\s+to\s+)?|please|try)\s*"
    r"(?:checking|consulting|contacting|asking|looking|referring|visiting|check|consult|contact|ask|look|refer|visit)\b",
    re.IGNORECASE,
)
# "I don't know the exact year, but it was finished in 1889" answers after all.
_YET = re.compile(r"\b(?:but|however|although|though|yet|except)\b", re.IGNORECASE)
_EDGES = " \t\r\n\"'*_>-•"


def _normal(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").strip(_EDGES)


def is_declining_sentence(sentence: str) -> bool:
    """True when ``sentence``, read from its start, refuses to answer ("I don't know.", "The
    context does not contain the date.", "I'm sorry, I cannot help with that.")."""
    text = _normal(sentence)
    for _ in range(3):  # "Unfortunately, based on the context, ..." : leads may stack
        lead = _LEAD.match(text)
        if not lead or not lead.group(0):
            break
        rest = text[lead.end():].strip(_EDGES + ".,;:!")
        if not rest:
            return True  # "I'm sorry." on its own: an apology, nothing stated
        text = rest
    refusal = _REFUSAL.match(text)
    return bool(refusal) and not _YET.search(text, refusal.end())


def is_declined(answer: str | None) -> bool:
    """True when the whole ``answer`` declines: each sentence is a refusal or a courtesy line
    (`localeval.text.hygiene`), and at least one is a refusal."""
    if not answer or not answer.strip():
        return False
    from localeval.text.hygiene import non_claim_reason
    from localeval.text.sentences import split_sentences

    refusals = 0
    for sentence in split_sentences(answer):
        if is_declining_sentence(sentence.text):
            refusals += 1
        elif non_claim_reason(sentence.text) is None and not _REFERRAL.match(_normal(sentence.text)):
            return False  # a sentence that states something: the answer answers
    return refusals > 0
