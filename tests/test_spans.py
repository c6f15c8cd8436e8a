"""Token counts of spans from one encoding (`localeval.judge.spans`): the same counts as the
spans' own texts, and the same windows and units, on real and awkward text."""

from __future__ import annotations

import random
import re

import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from localeval.judge.spans import span_counter, word_local
from localeval.text import make_windows, split_sentences

from seed_texts import AKS_REFERENCE

# Text a judge meets: accents, Greek final sigma, CJK without spaces, emoji beyond the BMP, a
# URL, a word over WordPiece's 100 characters, control characters Python calls space but BERT
# deletes (\x1c, \x1f), a non-breaking and an em space, contractions and hyphens, tabs, blank lines.
AWKWARD = [
    "Café crème brûlée was served at 8 p.m. ΟΔΟΣ ΣΟΦΟΣ. 東京は日本の首都です。 Emoji 😀 here.",
    "The record\x1cfield split\x1f here and there.  Then\ttabs\nand\r\nnew lines.\n\nA paragraph.",
    "See https://example.org/a?b=c&d=e#frag for " + "x" * 130 + " details; don't stop-believing (really)!",
    "İstanbul has ﬁne ligatures, a\u00a0non-breaking space and an\u2003em space.",
    AKS_REFERENCE,
]


def _cuts(text: str) -> list[int]:
    return sorted({0, len(text), *(m.start() for m in re.finditer(r"\s", text)),
                   *(m.end() for m in re.finditer(r"\s", text))})


@pytest.fixture(scope="module")
def counter(default_judge):
    return default_judge._counter


def test_the_shipped_judge_counts_spans_from_one_encoding(default_judge):
    assert word_local(default_judge._counter)


@pytest.mark.parametrize("text", AWKWARD)
def test_every_span_counts_what_its_own_text_counts(default_judge, counter, text):
    count = default_judge.count_tokens
    spans = span_counter(counter, text, count)
    rng = random.Random(7)
    cuts = _cuts(text)
    at_spaces = [tuple(sorted(rng.sample(cuts, 2))) for _ in range(400)]
    anywhere = [tuple(sorted(rng.sample(range(len(text) + 1), 2))) for _ in range(200)]  # mid-word: counted alone
    for a, b in at_spaces + anywhere + [(0, len(text)), (0, 0), (len(text), len(text))]:
        assert spans(a, b) == count(text[a:b]), (a, b, text[a:b])


def test_windows_and_units_are_the_same_either_way(default_judge):
    from localeval.evidence.attribution import _build_units

    long = " ".join(AWKWARD * 6)  # several windows, an over-long "word", sentences of every kind
    for text in [*AWKWARD, long]:
        for budget in (12, 40, 400):
            plain = make_windows(text, split_sentences(text), default_judge.count_tokens, budget)
            fast = make_windows(text, split_sentences(text), default_judge.count_tokens, budget,
                                count_span=default_judge.span_counter(text))
            assert fast == plain
            for granularity, unit_sentences in (("both", 2), ("both", 1), ("sentence", 1)):
                assert _build_units(default_judge.count_tokens, text, budget, granularity, unit_sentences,
                                    spans=default_judge.span_counter(text)) == \
                    _build_units(default_judge.count_tokens, text, budget, granularity, unit_sentences)


def _wordpiece(**added) -> Tokenizer:
    vocab = {w: i for i, w in enumerate(["[UNK]", "the", "cat", "sat", "##s", "on", "mat", "."])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    if added:
        from tokenizers import AddedToken

        tok.add_special_tokens([AddedToken("[MASK]", **added)])
    return tok


def _byte_level() -> Tokenizer:
    tok = Tokenizer(models.BPE({"Ġ": 0, "c": 1, "a": 2, "t": 3, "Ġc": 4, "at": 5}, [("Ġ", "c"), ("a", "t")]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    return tok


def test_only_word_local_tokenizers_count_from_one_encoding():
    assert word_local(_wordpiece())
    assert word_local(_wordpiece(lstrip=False, rstrip=False))
    # A token that swallows the space before it, a byte-level BPE whose word carries its space,
    # a pre-tokenizer that does not cut at whitespace: each span is counted on its own.
    assert not word_local(_wordpiece(lstrip=True))
    assert not word_local(_byte_level())
    split_on_digits = _wordpiece()
    split_on_digits.pre_tokenizer = pre_tokenizers.Digits()
    assert not word_local(split_on_digits)
    assert not word_local(object())


def test_a_judge_whose_tokenizer_is_not_word_local_counts_each_span(default_judge, monkeypatch):
    from localeval.judge.session import JudgeSession

    text = "The cat sat. The cats sat on the mat."
    seen: list[str] = []

    def count(t: str) -> int:
        seen.append(t)
        return default_judge.count_tokens(t)

    monkeypatch.setattr(default_judge, "_word_local", False)
    assert default_judge.span_counter(text, count)(4, 12) == count("cat sat.")
    assert seen == ["cat sat.", "cat sat."]

    class Counting:  # a judge-like object that only counts texts
        path, max_length = "counting", 64

        def count_tokens(self, t: str) -> int:
            return len(t.split())

    with JudgeSession() as session:
        assert session.span_counter(Counting(), text)(0, 12) == 3
