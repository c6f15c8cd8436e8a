"""The text layer: sentences (offline Punkt), claims, and token-bounded windows."""

from __future__ import annotations

import random
import socket
from itertools import pairwise

import pytest

from localeval.text import (
    Span,
    available_languages,
    list_item_body,
    make_windows,
    split_claims,
    split_sentences,
    window_text,
)
from localeval.text import sentences as sentences_module

from seed_texts import AKS_REFERENCE, AKS_STEPS



def words(text: str) -> int:
    """A whitespace token counter."""
    return len(text.split())


def texts(spans: list[Span]) -> list[str]:
    return [s.text for s in spans]


def assert_exact(text: str, spans: list[Span]) -> None:
    for s in spans:
        assert text[s.start:s.end] == s.text
        assert s.text == s.text.strip()


@pytest.fixture
def offline(monkeypatch):
    """Any attempt to open a connection fails."""

    def refuse(*args, **kwargs):
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# --------------------------------------------------------------------------- sentences


def test_abbreviations_do_not_end_sentences():
    text = "Dr. Smith arrived at 5 p.m. on Jan. 5. He left."
    spans = split_sentences(text)
    assert texts(spans) == ["Dr. Smith arrived at 5 p.m. on Jan. 5.", "He left."]
    assert [(s.start, s.end) for s in spans] == [(0, 38), (39, 47)]
    assert_exact(text, spans)


def test_curated_abbreviations():
    text = "Use a tool, e.g. a linter. See Fig. 3 for details. The answer was no. Then he left."
    assert texts(split_sentences(text)) == [
        "Use a tool, e.g. a linter.",
        "See Fig. 3 for details.",
        "The answer was no.",
        "Then he left.",
    ]


def test_a_clock_time_or_temperature_ends_a_sentence_before_a_common_word():
    # Punkt reads "a.m." and "C." as an abbreviation and an initial and goes on.
    text = "Do not water the lawn before 9 a.m. Water it in the evening. Store the seed below 10 C. Keep it dry."
    assert texts(split_sentences(text)) == ["Do not water the lawn before 9 a.m.", "Water it in the evening.",
                                            "Store the seed below 10 C.", "Keep it dry."]
    assert_exact(text, split_sentences(text))
    # A name, a time zone, a day, an initial or a street's direction goes on the sentence.
    for whole in ("The debate starts at 8 p.m. Eastern Time on NBC.", "The final is at 3 p.m. Sunday.",
                  "At 9 a.m. Jordan was reported missing.", "The raincoat was invented by Charles R. Mackintosh.",
                  "The office is at 3044 W. Grand Boulevard, Detroit."):
        assert texts(split_sentences(whole)) == [whole]


def test_the_parse_starts_a_sentence_where_the_splitter_does():
    from localeval.text.entities import load_nlp

    doc = load_nlp()("Never store the vaccine warmer than 8 C. Keep it in its box. Use it before 5 p.m. Sunday.")
    assert [s.text for s in doc.sents] == ["Never store the vaccine warmer than 8 C.", "Keep it in its box.",
                                           "Use it before 5 p.m. Sunday."]


def test_sentence_starts_go_only_before_an_english_parser():
    import spacy

    assert not sentences_module.add_sentence_starts(spacy.blank("en"))  # no parser to keep them
    german = spacy.blank("de")
    german.add_pipe("parser")
    assert not sentences_module.add_sentence_starts(german)
    assert sentences_module.SENTENCE_STARTS not in german.pipe_names


def test_splitting_builds_parameters_offline(offline):
    sentences_module._tokenizer.cache_clear()  # build the Punkt parameters under the guard
    assert len(split_sentences("Mr. Jones paid $5. It was cheap.")) == 2
    assert len(split_claims("Paris is in France, and Rome is in Italy.")) == 2


def test_unknown_language():
    with pytest.raises(ValueError, match="klingon.*available:.*english"):
        split_sentences("Hello.", language="klingon")
    assert "german" in available_languages()
    assert texts(split_sentences("Das ist z.B. ein Satz. Und noch einer.", "German")) == [
        "Das ist z.B. ein Satz.", "Und noch einer.",
    ]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t"])
def test_empty_text(text):
    assert split_sentences(text) == []
    assert split_claims(text) == []


def test_blank_lines_and_list_items_are_boundaries():
    text = (
        "Title without stop\n\nIntro line:\n- first item\n  * second. Two sentences.\n"
        "(a) third\n3) fourth"
    )
    spans = split_sentences(text)
    assert texts(spans) == [
        "Title without stop", "Intro line:", "- first item", "* second.", "Two sentences.",
        "(a) third", "3) fourth",
    ]
    assert_exact(text, spans)
    bodies = [list_item_body(text, s) for s in spans]
    assert [b.text if b else None for b in bodies] == [
        None, None, "first item", "second.", None, "third", "fourth",
    ]
    # Numbers and negative values at a line start are not list markers.
    assert len(split_sentences("It weighs\n1.5 kg and is kept at\n-5 degrees.")) == 1


# --------------------------------------------------------------------------- claims


def test_numbered_reference_gives_one_claim_per_step():
    claims = split_claims(AKS_REFERENCE)
    assert texts(claims) == AKS_STEPS
    assert_exact(AKS_REFERENCE, claims)


def test_bullets_headers_and_punctuation():
    text = "Key facts:\n• The sky is blue.\n- Grass is green\n* Snow is white\n\nNote: it rains.\n…"
    claims = split_claims(text, split_coordination=False)
    assert texts(claims) == [
        "The sky is blue.", "Grass is green", "Snow is white", "Note: it rains.",
    ]
    assert_exact(text, claims)
    # A sentence ending with ":" that introduces no list is kept.
    assert texts(split_claims("He said:\n\nWe stay.")) == ["He said:", "We stay."]


@pytest.mark.parametrize("text", ["...", "!!! ---", "- \n* \n—"])
def test_punctuation_only_gives_no_claims(text):
    assert split_claims(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paris is the capital of France, and Berlin is the capital of Germany.",
         ["Paris is the capital of France", "Berlin is the capital of Germany."]),
        ("Water boils at 100 degrees, but it freezes at 0 degrees, and steam is hot.",
         ["Water boils at 100 degrees", "it freezes at 0 degrees", "steam is hot."]),
        ("The model was trained on MNLI; it reaches 90% accuracy.",
         ["The model was trained on MNLI", "it reaches 90% accuracy."]),
    ],
)
def test_coordinated_clauses_are_split(text, expected):
    claims = split_claims(text)
    assert texts(claims) == expected
    assert_exact(text, claims)
    assert texts(split_claims(text, split_coordination=False)) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "Tom and Jerry went home.",                               # coordinated subjects
        "The box contains apples, oranges, and bananas.",         # noun list
        "He arrived and left.",                                   # shared subject
        "If it rains and the road is wet, drive slowly.",         # subordinate clause
        "She said that Paris is big and Berlin is small.",        # reported speech
        "You can use Docker or you can use Podman.",              # alternatives
        "Push the image to the registry and create a cluster.",   # no subjects
    ],
)
def test_other_coordination_is_kept_whole(text):
    assert texts(split_claims(text)) == [text]


# --------------------------------------------------------------------------- windows


@pytest.fixture(scope="module")
def long_text() -> tuple[str, list[Span]]:
    rng = random.Random(13)
    vocab = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa"]
    parts, total = [], 0
    while total < 20_000:
        n = rng.randint(3, 40)
        parts.append(" ".join(rng.choice(vocab) for _ in range(n)).capitalize() + ".")
        total += n
    parts.append("The final sentence ends here.")
    text = " ".join(parts)
    return text, split_sentences(text)


def test_windows_fit_and_cover_a_long_text(long_text):
    text, sentences = long_text
    windows = make_windows(text, sentences, words, 256)
    assert len(windows) > 50
    assert all(words(w.text) <= 256 for w in windows)
    assert_exact(text, windows)
    covered = {i for w in windows for i in w.sentence_indices}
    assert covered == set(range(len(sentences)))
    assert windows[-1].sentence_indices[-1] == len(sentences) - 1
    assert windows[-1].text.endswith("The final sentence ends here.")
    for w in windows:  # consecutive sentences, cut from the first's start to the last's end
        first, last = w.sentence_indices[0], w.sentence_indices[-1]
        assert w.sentence_indices == tuple(range(first, last + 1))
        assert (w.start, w.end) == (sentences[first].start, sentences[last].end)


@pytest.mark.parametrize("overlap", [0, 1, 3])
def test_window_overlap(long_text, overlap):
    text, sentences = long_text
    windows = make_windows(text, sentences, words, 200, overlap=overlap)
    for prev, cur in pairwise(windows):
        shared = set(prev.sentence_indices) & set(cur.sentence_indices)
        assert len(shared) == overlap
        assert cur.sentence_indices[-1] > prev.sentence_indices[-1]  # always advances


def test_window_overlap_never_loops():
    text = "One two. Three four. Five six. Seven eight."
    windows = window_text(text, 4, words, overlap=10)
    assert [w.sentence_indices for w in windows] == [(0, 1), (1, 2), (2, 3)]


def test_windows_never_exceed_a_tokenizer_that_is_not_additive(long_text):
    # Costs more joined than in parts (a token per sentence boundary) and adds 2 special
    # tokens per call: the per-sentence estimate is wrong both ways, the windows still fit.
    text, sentences = long_text

    def count(s: str) -> int:
        return len(s.split()) + s.count(". ") + 2

    windows = make_windows(text, sentences, count, 128)
    assert all(count(w.text) <= 128 for w in windows)
    assert {i for w in windows for i in w.sentence_indices} == set(range(len(sentences)))


def test_a_text_that_fits_is_one_window():
    text = "First sentence here. Second one.\n\nThird."
    windows = window_text(text, 50, words)
    assert len(windows) == 1
    assert windows[0].text == text and windows[0].sentence_indices == (0, 1, 2)
    assert window_text("  ", 50, words) == []


def test_an_over_long_sentence_is_split_into_covering_pieces():
    long = "Begin " + " ".join(f"w{i}" for i in range(1000)) + " end."
    text = f"Short one. {long} Another short."
    windows = window_text(text, 100, words)
    assert_exact(text, windows)
    assert all(words(w.text) <= 100 for w in windows)
    pieces = [w for w in windows if w.sentence_indices == (1,)]
    assert len(pieces) >= 10
    start = text.index(long)
    covered = {c for w in pieces for c in range(w.start, w.end)}
    assert all(i in covered for i in range(start, start + len(long)) if not text[i].isspace())
    # Word-aligned, never a cut word, and neighbouring pieces share a few words.
    for w in pieces:
        assert text[w.start - 1].isspace() and (w.end == len(text) or text[w.end].isspace())
    assert all(b.start < a.end for a, b in pairwise(pieces))
    assert windows[0].sentence_indices == (0,) and windows[-1].sentence_indices == (2,)


def test_an_over_long_word_is_split_by_characters():
    text = "Tiny. " + "x" * 50

    def count(s: str) -> int:
        return (len(s) + 9) // 10  # a token per 10 characters

    windows = window_text(text, 3, count)
    assert [w.text for w in windows] == ["Tiny.", "x" * 30, "x" * 20]


@pytest.mark.parametrize(("max_sentences", "overlap"), [(1, 1), (2, 1), (3, 1), (3, 2), (4, 0)])
def test_max_sentences_caps_every_window_and_still_covers_all(long_text, max_sentences, overlap):
    text, sentences = long_text
    windows = make_windows(text, sentences, words, 256, overlap=overlap, max_sentences=max_sentences)
    assert all(len(w.sentence_indices) <= max_sentences for w in windows)
    assert {i for w in windows for i in w.sentence_indices} == set(range(len(sentences)))
    assert all(words(w.text) <= 256 for w in windows)
    for prev, cur in pairwise(windows):  # windows advance and overlap as asked
        assert cur.sentence_indices[-1] > prev.sentence_indices[-1]
        shared = set(prev.sentence_indices) & set(cur.sentence_indices)
        assert len(shared) <= min(overlap, max_sentences - 1)


def test_max_sentences_splits_a_short_text_too():
    text = "One is here. Two is here. Three is here. Four is here."
    windows = window_text(text, 100, words, overlap=2, max_sentences=3)
    assert [w.sentence_indices for w in windows] == [(0, 1, 2), (1, 2, 3)]
    assert window_text(text, 100, words, max_sentences=4)[0].text == text


def test_invalid_window_arguments():
    with pytest.raises(ValueError):
        window_text("Hello there.", 0, words)
    with pytest.raises(ValueError):
        window_text("Hello there.", 10, words, overlap=-1)
    with pytest.raises(ValueError):
        window_text("Hello there.", 10, words, max_sentences=0)


_SPLIT_CASES = [
    "Dr. Smith arrived at 5 p.m. on Jan. 5. He left early. See Fig. 3 for details.",
    "Very bad acting!!! I promise. \"Is it?\" she asked. (Yes.) [No!] 'Maybe.'",
    "The U.S. economy grew 2.5% in Q3... Analysts expected 2.1%. Mr. J. R. R. Tolkien wrote it.",
    "e.g. this one. i.e. that one. The answer was no. Then we left -- quickly. Wait... what?",
    "Er kam am 3. Mai an. Die Sitzung begann um 9 Uhr. Sie endete spät.",
    "Il est arrivé à 17 h. M. Dupont l'attendait. « Bonjour ! » dit-il.",
    "1. Build the image. 2. Push it.\n- first item\n- second item: done.\n\nA new paragraph?",
    "Rosalind Franklin visited the museum in Oslo in 1950. Engineers in Kyoto repaired the bridge.",
]


def test_punkt_with_standard_regexes_matches_nltks_own():
    """The splitter's Punkt matches with `re` (NLTK routes its patterns through a slower
    guarded engine): same parameters, same spans as NLTK's own tokenizer, in several languages."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    texts = [*_SPLIT_CASES, AKS_REFERENCE, *AKS_STEPS]
    for language in ("english", "german", "french", "spanish", "italian"):
        ours = sentences_module._tokenizer(language)[0]
        theirs = PunktSentenceTokenizer(ours._params)
        for text in texts:
            assert list(ours.span_tokenize(text)) == list(theirs.span_tokenize(text)), (language, text)


def test_one_sentence_shortcut_gives_the_split_of_every_language():
    """A text the splitter takes as one sentence without detecting its language is one
    sentence, with the same span, whichever Punkt parameters split it."""
    one = sentences_module._one_sentence
    singles = [s.text for text in _SPLIT_CASES for s in split_sentences(text, "english")]
    variants = [v for s in singles for v in (s, f"  {s} ", f"- {s}", f"1. {s}", s.rstrip(".") + '."', s + ")")]
    variants += ["1.", "-", "这是一个句子。", "No end mark at all", "Ends with a question?"]
    shortcut = [(text, one(text)) for text in variants]
    taken = [(text, spans) for text, spans in shortcut if spans is not None]
    assert len(taken) >= len(variants) // 3  # the shortcut is taken for most one-sentence texts
    for language in sentences_module.available_languages():
        for text, spans in taken:
            assert sentences_module._split(text, language) == spans, (language, text)
    # Not certain: an inner sentence end, several lines, an inner CJK full stop.
    for text in ("Dr. Smith arrived.", "It works. It does.", "one line\nanother line", "这是。那是", "Wait.."):
        assert one(text) is None
    # The public function gives what it gave before, shortcut or not.
    for text, spans in taken:
        assert split_sentences(text) == sentences_module._split(text, "english") == spans
