"""Pieces of a text that are not claims: bare answer words and pure discourse.

A reference "Yes." or an answer line "Sure, here is what I found:" survives sentence
splitting, but nothing in it can be attributed to a context: judged as a claim it is
"unsupported" and drags context recall or faithfulness down on perfect retrieval. Such
pieces are kept in a metric's details, marked with the reason from `non_claim_reason`,
and are not counted.

The rules are deliberately narrow (a whole piece must match; "No, the museum is closed on
Mondays." is a claim): a false "not a claim" hides an error, a false "claim" only costs
a point that the details explain.
"""

from __future__ import annotations

import re

__all__ = ["non_claim_reason"]

# Whole-piece answers that carry no statement of their own without the question.
_ANSWER_WORDS = frozenset(
    """
    yes no yeah yep nope true false correct incorrect right wrong indeed sure certainly
    definitely absolutely maybe perhaps possibly probably ok okay agreed exactly none
    unknown n/a na
    """.split()
)
_ANSWER_PHRASES = (
    r"(?:that|this|it) is (?:correct|incorrect|right|wrong|true|false)",
    r"(?:yes|no),? (?:it is|it isn't|it is not|it does|it doesn't|it does not|they are|they aren't|"
    r"they are not|there is|there isn't|there are|there aren't|i do|i don't|he is|she is|"
    r"he was|she was|it was|it wasn't|they were|they weren't|it did|it didn't|it can|it cannot|it can't)",
    r"not (?:really|necessarily|exactly|quite)",
    r"of course(?: not)?",
)
# Lines that organise an answer rather than state anything: openers, sign-offs, headers.
_DISCOURSE = (
    r"(?:sure|certainly|of course|absolutely|great question|good question|happy to help)"
    r"(?:[,!.]? ?(?:here(?:'s| is| are)? .*|i can help.*|let me .*))?",
    r"here(?:'s| is| are) (?:what i (?:found|know)|my answer|the answer|(?:a )?(?:short |brief |quick )?"
    r"(?:summary|overview)|some (?:information|details)|how it works|why)",
    r"(?:in )?(?:summary|conclusion|short|brief|other words|a nutshell)",
    r"to (?:summari[sz]e|sum up|conclude|answer your question)",
    r"(?:overall|finally|additionally|furthermore|moreover|however|also|first(?:ly)?|second(?:ly)?|"
    r"third(?:ly)?|lastly|next|then|so|well|note|answer|response|explanation|sources?|references?)",
    r"i hope (?:this|that|it) helps.*",
    r"hope (?:this|that|it) helps.*",
    r"(?:please )?let me know if .*",
    r"(?:please )?feel free to .*",
    r"(?:is there )?anything else .*",
    r"thanks?(?: you)?(?: for .*)?",
    r"(?:based on|according to) the (?:provided |given |retrieved )?(?:context|contexts|documents?|"
    r"sources?|information|passages?)",
)
_ANSWER_RE = re.compile(r"(?:" + "|".join(_ANSWER_PHRASES) + r")", re.IGNORECASE)
_DISCOURSE_RE = re.compile(r"(?:" + "|".join(_DISCOURSE) + r")", re.IGNORECASE)
_EDGES = " \t\r\n.,;:!?\"'()[]{}*_-–—•>"


def non_claim_reason(text: str) -> str | None:
    """Why ``text`` (one claim-sized piece) is not a claim, or ``None`` when it is one.

    >>> non_claim_reason("Yes.")
    'bare answer word'
    >>> non_claim_reason("I hope this helps!")
    'discourse line'
    >>> non_claim_reason("No, the museum is closed on Mondays.") is None
    True
    """
    core = " ".join(text.strip(_EDGES).split())
    if not core:
        return None  # punctuation-only pieces are dropped earlier (`has_content`)
    lowered = core.lower().rstrip(_EDGES)
    words = re.split(r"[\s,;]+", lowered)
    if all(w.strip(_EDGES) in _ANSWER_WORDS for w in words if w.strip(_EDGES)):
        return "bare answer word"
    if _ANSWER_RE.fullmatch(lowered):
        return "bare answer word"
    if _DISCOURSE_RE.fullmatch(lowered):
        return "discourse line"
    return None
