"""Token counts of many spans of one text, read from one encoding of the whole text.

Windowing (`localeval.text.windows`) counts the tokens of every sentence of a context, then of
every window and short unit it packs from them: some twenty tokenizer calls per context, a
sixth of a context-recall row's time outside the judge on 2 CPU cores (py-spy, bulk rows).
For a *word-local* tokenizer one encoding of the text answers them all: the tokens of
``text[a:b]`` are exactly those of the whole text's encoding that lie inside ``[a, b)``,
provided ``a`` and ``b`` sit at whitespace.

Word-local means: the text is cut into words at whitespace before anything looks across
characters, and each word is tokenised on its own. That holds for a WordPiece model behind a
BERT-style pre-tokenizer (``BertPreTokenizer``, ``Whitespace``, ``WhitespaceSplit``) whose
normaliser changes characters one at a time (``BertNormalizer``: control characters removed,
CJK characters spaced, lower case, accents stripped after NFD decomposition, which never
reaches across a space), with no added token that holds whitespace or swallows it
(``lstrip`` / ``rstrip``). The shipped judge and the BERT / MiniLM cross-encoders are such
tokenizers. Byte-level BPE (RoBERTa: a word's first token carries its leading space) and
SentencePiece (DeBERTa-v3, T5: a piece carries "▁") are not, and keep counting each span
on its own, as does any span of a word-local text whose ends are not at whitespace.

"Whitespace" is only ``" \\t\\n\\r"`` here: BERT's normaliser deletes the other control
characters Python calls space (``\\x1c``-``\\x1f``), so a cut there may join two words.
A WordLevel model (one token per word) behind the same pre-tokenizers is word-local too.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable

__all__ = ["SpanCounter", "span_counter", "word_local"]

SpanCounter = Callable[[int, int], int]
"""Tokens of ``text[a:b]`` for one text, without special tokens."""

_MODELS = frozenset({"WordPiece", "WordLevel"})
_PRE_TOKENIZERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})
_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFD", "StripAccents"})
_SPACES = frozenset(" \t\n\r")


def word_local(tokenizer) -> bool:
    """Whether a ``tokenizers.Tokenizer`` tokenises each whitespace-separated word on its own
    (see the module), read from its serialised definition."""
    try:
        spec = json.loads(tokenizer.to_str())
    except (AttributeError, TypeError, ValueError):
        return False
    model = spec.get("model") or {}
    if model.get("type") not in _MODELS:
        return False
    cuts = _kind(spec.get("pre_tokenizer"))
    if not cuts or cuts - _PRE_TOKENIZERS:  # without a cut at whitespace nothing is word-local
        return False
    if _kind(spec.get("normalizer")) - _NORMALIZERS:
        return False
    return all(not any(c in _SPACES for c in t.get("content", "")) and not t.get("lstrip") and not t.get("rstrip")
               for t in spec.get("added_tokens") or [])


def _kind(part: dict | None) -> set[str]:
    """The types a normaliser or pre-tokenizer definition is built of (a ``Sequence`` opened)."""
    if not part:
        return set()
    if part.get("type") == "Sequence":
        members = part.get("normalizers") or part.get("pretokenizers") or []
        return set().union(*(_kind(m) for m in members)) if members else {"Sequence"}
    return {str(part.get("type"))}


def span_counter(tokenizer, text: str, count: Callable[[str], int]) -> SpanCounter:
    """Tokens of ``text[a:b]`` for a word-local ``tokenizer`` (`word_local`, asked once per
    tokenizer by the caller: reading its definition costs more than many counts): from one
    encoding of ``text`` when both ends sit at whitespace or at the text's ends, else
    ``count(text[a:b])``."""
    offsets = tokenizer.encode(text, add_special_tokens=False).offsets
    starts = [a for a, _ in offsets]
    ends = [b for _, b in offsets]
    n = len(text)

    def counted(a: int, b: int) -> int:
        if 0 <= a <= b <= n and (a == 0 or text[a - 1] in _SPACES) and (b == n or text[b] in _SPACES):
            return max(0, bisect_right(ends, b) - bisect_left(starts, a))
        return count(text[a:b])

    return counted
