"""Candidate selection: which units of a context are worth a judge call for a claim.

The judge is the expensive step; ranking a claim's candidate premises is not. A *selector*
scores every candidate text for a claim with something cheap, and only the best few are judged
(`localeval.evidence.attribution`, ``max_units``), as in retrieve-then-rerank:

* ``"overlap"``: share of the claim's content words found in the unit (the original
  prefilter). Long units tend to win, as they contain more words.
* ``"bm25"``: Okapi BM25 of the claim's content words over the candidates, with document
  frequencies from the candidates themselves (a row's units are its corpus), so rare shared
  words weigh more than common ones and long units are not favoured for their length.
* ``"embedding"``: cosine similarity of MiniLM sentence embeddings
  (`localeval.judge.embeddings`, the installed all-MiniLM-L6-v2; loaded offline, once per
  process). Catches paraphrase, costs one small encoder pass per unique unit text.
* ``"hybrid"``: word overlap shortlists ``SHORTLIST_PER_UNIT`` x k units, which are re-ranked by
  overlap + embedding cosine: a paraphrase can still win, and at most the shortlist is embedded
  per claim (unit embeddings are memoised, so a row's claims share them).

Every function is pure given its inputs (the embedding model is deterministic on a device), and
ties always go to the earlier candidate, so a selection never depends on anything but the texts.
Which selector is the default and why: benchmarks/results/candidates.md.

`relevance_screen` is the same idea for context relevance: sentences that share no content word
with the question are decided (irrelevant) without the judge; see its constants.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from localeval.options import DEFAULT_SELECTOR
from localeval.text.lexical import content_terms, content_words, stemmed_words, word_overlap
from localeval.text.memo import TEXT_MEMO_SIZE, remembered

__all__ = [
    "DEFAULT_SELECTOR",
    "SCREEN_MAX_OVERLAP",
    "SCREEN_MIN_QUESTION_WORDS",
    "SELECTORS",
    "Selector",
    "bm25_scores",
    "embedding_scores",
    "get_selector",
    "hybrid_scores",
    "overlap_scores",
    "overlap_select",
    "relevance_screen",
    "select",
    "words_of_run",
]

BM25_K1 = 1.2
BM25_B = 0.75
"""Okapi BM25's usual constants (term-frequency saturation, length normalisation)."""
SHORTLIST_PER_UNIT = 3
"""``"hybrid"`` embeds at most this many lexical candidates per unit it keeps (at least 8)."""

Scorer = Callable[[str, Sequence[str], "int | None"], list[float]]
"""``(claim, texts, k)`` -> one score per text; ``k`` (how many will be kept) lets a scorer
spend its expensive part on a shortlist only."""


@dataclass(frozen=True)
class Selector:
    """A named way of scoring candidate texts for a claim (higher: judge it first)."""

    name: str
    score: Scorer

    def rank(self, claim: str, texts: Sequence[str], k: int | None = None) -> list[int]:
        """Indices of ``texts``, best first (ties: the earlier text); with ``k``, only the
        order of the best ``k`` is guaranteed to be the full scorer's."""
        scores = self.score(claim, texts, k)
        return sorted(range(len(texts)), key=lambda i: (-scores[i], i))


# Units: a chunk has ~30 a row, each ranked against every claim of its row.
@remembered(entries=4 * TEXT_MEMO_SIZE)
def _words(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))  # `content_words`, without its intermediate set


@remembered(entries=4 * TEXT_MEMO_SIZE)
def _term_counts(text: str) -> tuple[Counter, int]:
    """Content words of ``text`` with their counts, and how many there are."""
    terms = content_terms(text)
    return Counter(terms), len(terms)


def overlap_scores(claim: str, texts: Sequence[str], k: int | None = None) -> list[float]:
    """Share of the claim's content words present in each text."""
    wanted, words = content_words(claim), _words.bound()
    return [word_overlap(wanted, words(t)) for t in texts]


def words_of_run(text: str, start: int, end: int, pieces: Sequence[tuple[int, int]]) -> frozenset[str]:
    """Content words of ``text[start:end]``, a run of consecutive ``pieces`` (sentence spans):
    the union of the pieces' own (remembered) word sets, when the run is exactly the pieces
    with only whitespace between them -- then no word, number or thousands comma can straddle
    two pieces, and the union is what reading the whole run gives. Otherwise it is read whole.
    A context's units overlap (every sentence is in about four), so this reads each sentence
    once instead of once per unit."""
    words = _words.bound()
    if len(pieces) < 2 or pieces[0][0] != start or pieces[-1][1] != end or any(
            a[1] >= b[0] or not text[a[1]:b[0]].isspace() for a, b in zip(pieces, pieces[1:])):
        return words(text[start:end])
    return frozenset().union(*(words(text[a:b]) for a, b in pieces))


def overlap_select(claim: str, word_sets: Sequence[frozenset[str]], k: int) -> list[int]:
    """`select` with the ``"overlap"`` selector, from the candidates' content-word sets."""
    if len(word_sets) <= k:
        return list(range(len(word_sets)))
    wanted = content_words(claim)
    scores = [word_overlap(wanted, w) for w in word_sets]
    return sorted(sorted(range(len(word_sets)), key=lambda i: (-scores[i], i))[:k])


def bm25_scores(claim: str, texts: Sequence[str], k: int | None = None) -> list[float]:
    """Okapi BM25 of the claim's content words in each text, the texts being the corpus."""
    query = content_words(claim)
    if not texts or not query:
        return [0.0] * len(texts)
    counted = _term_counts.bound()
    docs = [counted(t) for t in texts]
    n = len(docs)
    mean_len = max(sum(length for _, length in docs) / n, 1.0)
    idf = {}
    for term in query:
        df = sum(1 for counts, _ in docs if term in counts)
        idf[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    out = []
    for counts, length in docs:
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * length / mean_len)
        out.append(sum(idf[t] * counts[t] * (BM25_K1 + 1.0) / (counts[t] + norm) for t in query if t in counts))
    return out


def embedding_scores(claim: str, texts: Sequence[str], k: int | None = None) -> list[float]:
    """Cosine similarity of the claim's and each text's MiniLM embedding."""
    if not texts:
        return []
    from localeval.judge.embeddings import get_embedder

    vectors = get_embedder(None).embed([claim, *texts])
    return [float(x) for x in vectors[1:] @ vectors[0]]


def hybrid_scores(claim: str, texts: Sequence[str], k: int | None = None) -> list[float]:
    """Overlap + cosine for the lexical shortlist; the rest keep their overlap share minus 1
    (below every shortlisted text, in their lexical order)."""
    lexical = overlap_scores(claim, texts)
    size = max(8, SHORTLIST_PER_UNIT * k) if k else len(texts)
    short = sorted(range(len(texts)), key=lambda i: (-lexical[i], i))[:size]
    out = [s - 1.0 for s in lexical]
    cosines = embedding_scores(claim, [texts[i] for i in short])
    for i, cos in zip(short, cosines):
        out[i] = lexical[i] + cos
    return out


SELECTORS: dict[str, Selector] = {
    "overlap": Selector("overlap", overlap_scores),
    "bm25": Selector("bm25", bm25_scores),
    "embedding": Selector("embedding", embedding_scores),
    "hybrid": Selector("hybrid", hybrid_scores),
}
# DEFAULT_SELECTOR (the selector `attribute` uses unless told otherwise, see
# benchmarks/results/candidates.md) is defined with the run options, where the CLI reads it.


def get_selector(selector: str | Selector) -> Selector:
    """The `Selector` of that name (a `Selector` is returned as is)."""
    if isinstance(selector, Selector):
        return selector
    try:
        return SELECTORS[selector]
    except KeyError:
        raise ValueError(f"unknown candidate selector {selector!r}; choose one of {sorted(SELECTORS)}") from None


def select(claim: str, texts: Sequence[str], k: int, selector: str | Selector = DEFAULT_SELECTOR) -> list[int]:
    """Indices of the ``k`` texts ``selector`` ranks best for ``claim``, in their original order
    (all of them when there are at most ``k``)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if len(texts) <= k:
        return list(range(len(texts)))
    return sorted(get_selector(selector).rank(claim, texts, k)[:k])


# --------------------------------------------------------------------------- relevance screen
# Context relevance asks the judge about every sentence against the question. Most sentences
# of a long passage share no content word with the question and the judge calls them
# irrelevant; a word-overlap screen decides those for free and leaves the rest to the judge.

SCREEN_MAX_OVERLAP = 0.0
"""A sentence holding at most this share of the question's content words (0.0: none of them)
is screened out as irrelevant without a judge call. Chosen on RAGBench validation
(benchmarks/results/relevance_screen.md, 225 rows, 5,548 sentences): it decides 39 % of the
sentences and is at least as good as judging every sentence on every figure there (RMSE (CV)
0.250 vs 0.261, Pearson 0.412 vs 0.403, sentence F1 0.44 vs 0.44). 0.2 decides 54 % within
one standard error, but with a lower Pearson (0.360); agreement comes first, so the screen
only takes sentences that share nothing with the question. 0.25 and above lose recall."""
SCREEN_MIN_QUESTION_WORDS = 2
"""Questions with fewer content words are never screened: one word is too thin a clue ("Why?",
"Who is she?"), and a sentence may answer them in other words."""


def relevance_screen(question: str, sentences: Sequence[str], *, max_overlap: float = SCREEN_MAX_OVERLAP,
                     min_question_words: int = SCREEN_MIN_QUESTION_WORDS) -> list[str | None]:
    """Per sentence: ``None`` (judge it) or why it is screened out as irrelevant unjudged."""
    # Stems, not spellings: "Descaling ..." answers "How do I descale ...?" (Snowball, NLTK).
    wanted = stemmed_words(question)
    if len(wanted) < min_question_words:
        return [None] * len(sentences)
    out: list[str | None] = []
    words = stemmed_words
    for sentence in sentences:
        share = word_overlap(wanted, words(sentence))
        if share > max_overlap:
            out.append(None)
        elif share == 0.0:
            out.append("screened: holds none of the question's content words")
        else:
            out.append(f"screened: holds {share:.0%} of the question's content words (screen: at most {max_overlap:.0%})")
    return out
