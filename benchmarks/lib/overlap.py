"""The word-overlap floor: a judge that cannot beat it has learnt nothing beyond word matching.

Score = share of the claim's distinct content words (lowercased, stopwords and punctuation
removed) that occur anywhere in the evidence. No stemming, no synonyms: it is meant to be the
cheapest sensible baseline, reported beside every binary figure of the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["STOPWORDS", "content_words", "overlap_score", "overlap_scores"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

# A short English function-word list: articles, pronouns, auxiliaries, prepositions,
# conjunctions and a few very frequent adverbs. Negations stay *in* the list on purpose: the
# floor is a bag of words and is not supposed to understand them.
STOPWORDS: frozenset[str] = frozenset(
    """
    a an the this that these those there here
    i me my mine myself we us our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves
    what which who whom whose when where why how
    am is are was were be been being have has had having do does did doing done
    will would shall should can could may might must ought
    and or but nor so yet if then than because as until while although though
    of at by for with about against between into through during before after above below
    to from up down in out on off over under again further once
    all any both each few more most other some such only own same too very just
    no not s t d ll m o re ve y also
    """.split()
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    """Distinct lowercased words of ``text`` minus stopwords (punctuation never matches)."""
    return {w for w in _words(text) if w not in STOPWORDS}


def overlap_score(claim: str, evidence: str | Iterable[str]) -> float:
    """Share of ``claim``'s content words found in ``evidence`` (one text or several).

    A claim made only of stopwords ("it is not that") has no content words; its score falls
    back to the share of *all* its words found, so it is still defined and still comparable.
    """
    pool: set[str] = set()
    for text in [evidence] if isinstance(evidence, str) else evidence:
        pool.update(_words(text))
    wanted = content_words(claim) or set(_words(claim))
    if not wanted:
        return 0.0
    return len(wanted & pool) / len(wanted)


def overlap_scores(pairs: Sequence[tuple[str, str]]) -> list[float]:
    """Overlap score of each (evidence, claim) pair: the judge's pair order."""
    return [overlap_score(claim, evidence) for evidence, claim in pairs]
