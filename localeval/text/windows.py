"""Sentence-aligned windows: a long context is judged piece by piece, never truncated.

A judge reads at most ``max_tokens`` tokens of premise. `make_windows` packs consecutive
sentences greedily into windows that fit, with ``overlap`` sentences shared by neighbouring
windows so that a fact spread over a window edge is still seen whole once. A sentence that
alone exceeds the budget is cut into word-aligned pieces (neighbouring pieces share a few
words), and a single "word" longer than the budget (a URL, a base64 blob) into character
pieces, so every non-whitespace character of every sentence is inside some window.

Token counts: each sentence (or word) is counted once, and a candidate window is estimated
as the sum of its parts' counts minus the per-call overhead (``count_tokens("")``, e.g.
[CLS]/[SEP] of a tokenizer that adds them). Each chosen window is then counted once for real
and shrunk if the estimate was low, so a window never exceeds ``max_tokens``, whatever the
tokenizer, at the cost of about one extra count per window. A caller that can count any span
of the text from one encoding of it (``count_span``: the judge's word-local tokenizers, see
`localeval.judge.spans`) makes all these counts one tokenizer call per text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import accumulate

from localeval.text.sentences import split_sentences
from localeval.text.spans import Span, Window

__all__ = ["make_windows", "window_text"]

# Words shared by neighbouring pieces of an over-long sentence (when overlap > 0).
PIECE_OVERLAP_WORDS = 8
_WORD = re.compile(r"\S+")

CountTokens = Callable[[str], int]
CountSpan = Callable[[int, int], int]
"""Tokens of ``text[a:b]`` for the one text being windowed."""


class _Packer:
    """Greedy packing of consecutive units (sentences or words) of one text into ranges."""

    def __init__(self, units: Sequence[tuple[int, int]], count_span: CountSpan, max_tokens: int,
                 overhead: int) -> None:
        self.units = units
        self.count_span, self.max_tokens, self.overhead = count_span, max_tokens, overhead
        self.counts = [count_span(a, b) for a, b in units]
        self._prefix = [0, *accumulate(self.counts)]

    def estimate(self, i: int, j: int) -> int:
        """Estimated tokens of units i..j (inclusive) cut from the text as one piece."""
        return self._prefix[j + 1] - self._prefix[i] - (j - i) * self.overhead

    def actual(self, i: int, j: int) -> int:
        return self.count_span(self.units[i][0], self.units[j][1])

    def oversized(self, i: int) -> bool:
        return self.counts[i] > self.max_tokens

    def ranges(self, overlap: int, max_units: int | None = None) -> list[tuple[int, int]]:
        """Inclusive (first, last) unit ranges. Each range fits (and holds at most
        ``max_units`` units), except a single unit that is itself over budget (returned alone,
        for the caller to cut further). Ranges always advance, so this terminates for any
        ``overlap``."""
        cap = max_units or len(self.units)
        out: list[tuple[int, int]] = []
        n, first = len(self.units), 0  # first: the first unit no range has covered yet
        while first < n:
            if self.oversized(first):
                out.append((first, first))
                first += 1
                continue
            start = first
            if out and overlap and not self.oversized(first - 1):
                # Share up to `overlap` units with the previous range, but never all of it
                # (that window would only repeat) and only as many as fit with `first`.
                start = max(first - overlap, out[-1][0] + 1, first - cap + 1)
                while start < first and self.estimate(start, first) > self.max_tokens:
                    start += 1
            end = first
            while end + 1 < n and end + 1 - start < cap and not self.oversized(end + 1) \
                    and self.estimate(start, end + 1) <= self.max_tokens:
                end += 1
            # The estimate can be low (a tokenizer that merges across a boundary): verify.
            while self.actual(start, end) > self.max_tokens and (end > first or start < first):
                if end > first:
                    end -= 1
                else:
                    start += 1
            out.append((start, end))
            first = end + 1
        return out


def _char_pieces(text: str, start: int, end: int, count_tokens: CountTokens,
                 max_tokens: int) -> list[tuple[int, int]]:
    """Contiguous character pieces of text[start:end] that fit (for one huge word)."""
    pieces = []
    while start < end:
        if count_tokens(text[start:start + 1]) > max_tokens:
            raise ValueError(f"max_tokens={max_tokens} cannot hold even one character")
        # The longest fitting prefix: gallop outward (1, 2, 4, ... characters), then binary
        # search between the last fit and the first miss. Probing only up to twice the piece
        # keeps the work linear in the word's length; a search bounded by `end` would count
        # the whole rest of the word for every piece (quadratic for a 40k-character blob).
        lo, step = start + 1, 1
        hi = min(start + 2, end)
        while hi > lo and count_tokens(text[start:hi]) <= max_tokens:
            lo = hi
            step *= 2
            hi = min(start + 2 * step, end)
        if hi > lo:  # text[start:hi] does not fit: the answer is in [lo, hi - 1]
            hi -= 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if count_tokens(text[start:mid]) <= max_tokens:
                    lo = mid
                else:
                    hi = mid - 1
        pieces.append((start, lo))
        start = lo
    return pieces


def _sentence_pieces(text: str, sentence: Span, count_tokens: CountTokens, count_span: CountSpan, max_tokens: int,
                     overhead: int, overlap: int, piece_words: int | None = None) -> list[tuple[int, int]]:
    """Word-aligned (start, end) pieces of an over-long sentence, each within budget (and of
    at most ``piece_words`` words, neighbours sharing half of them, when given)."""
    words = [(m.start() + sentence.start, m.end() + sentence.start)
             for m in _WORD.finditer(sentence.text)]
    packer = _Packer(words, count_span, max_tokens, overhead)
    pieces: list[tuple[int, int]] = []
    shared = (piece_words // 2 if piece_words else PIECE_OVERLAP_WORDS) if overlap else 0
    for i, j in packer.ranges(shared, piece_words):
        if packer.oversized(i):
            pieces.extend(_char_pieces(text, *words[i], count_tokens, max_tokens))
        else:
            pieces.append((words[i][0], words[j][1]))
    return pieces


def make_windows(
    text: str,
    sentences: list[Span],
    count_tokens: Callable[[str], int],
    max_tokens: int,
    overlap: int = 1,
    max_sentences: int | None = None,
    piece_words: int | None = None,
    count_span: CountSpan | None = None,
) -> list[Window]:
    """Greedy windows of consecutive ``sentences`` (spans of ``text``) within ``max_tokens``.

    A window's text is ``text[first.start:last.end]`` (what lies between its sentences
    included) and ``count_tokens`` of it is at most ``max_tokens``. Neighbouring windows share
    up to ``overlap`` sentences (fewer where they would not fit beside the next new sentence);
    each window adds at least one sentence, so windows always advance. A sentence over budget
    on its own becomes several windows holding word-aligned pieces of it (8 words shared
    between neighbours when ``overlap > 0``), with ``sentence_indices == (i,)``; windows do
    not overlap into such a sentence. ``max_sentences`` caps the sentences per window (a
    small judge reads a fact worse the more unrelated sentences surround it); ``piece_words``
    caps, for the same reason, the words of each piece of an over-long sentence, and then
    neighbouring pieces share half their words, so any run of up to ``piece_words // 2 + 1``
    words lies whole inside one piece of the same size wherever it sits in the sentence. When
    everything fits, there is one window from the first sentence to the last. No sentences
    give ``[]``. ``count_span(a, b)``, when given, counts ``text[a:b]`` as ``count_tokens``
    would, faster (one encoding of ``text`` serves every span: `NLIJudge.span_counter`).
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    if overlap < 0:
        raise ValueError(f"overlap must be >= 0, got {overlap}")
    if max_sentences is not None and max_sentences < 1:
        raise ValueError(f"max_sentences must be positive, got {max_sentences}")
    if not sentences:
        return []
    overhead = max(count_tokens(""), 0)
    units = [(s.start, s.end) for s in sentences]
    count_span = count_span or (lambda a, b: count_tokens(text[a:b]))
    packer = _Packer(units, count_span, max_tokens, overhead)
    # The estimate can overshoot (a tokenizer that merges across sentence boundaries), so a
    # text estimated near the budget is counted whole once; a far larger one is not (counting
    # a 50k-token context whole is wasted work, and some tokenizers warn about it).
    n = len(units)
    fits_cap = max_sentences is None or n <= max_sentences
    if fits_cap and packer.estimate(0, n - 1) <= 2 * max_tokens and packer.actual(0, n - 1) <= max_tokens:
        a, b = units[0][0], units[-1][1]
        return [Window(text=text[a:b], start=a, end=b, sentence_indices=tuple(range(n)))]

    windows: list[Window] = []
    for i, j in packer.ranges(overlap, max_sentences):
        if packer.oversized(i):
            pieces = _sentence_pieces(
                text, sentences[i], count_tokens, count_span, max_tokens, overhead, overlap, piece_words
            )
            windows.extend(Window(text=text[a:b], start=a, end=b, sentence_indices=(i,))
                           for a, b in pieces)
        else:
            a, b = units[i][0], units[j][1]
            windows.append(Window(text=text[a:b], start=a, end=b,
                                  sentence_indices=tuple(range(i, j + 1))))
    return windows


def window_text(
    text: str,
    max_tokens: int,
    count_tokens: Callable[[str], int],
    language: str | None = None,
    overlap: int = 1,
    max_sentences: int | None = None,
) -> list[Window]:
    """`make_windows` over the sentences of ``text`` (`split_sentences` in ``language``;
    ``None``: detected)."""
    return make_windows(text, split_sentences(text, language), count_tokens, max_tokens, overlap,
                        max_sentences)
