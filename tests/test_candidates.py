"""Candidate selection (localeval.evidence.candidates): real text, the real embedding model."""

from __future__ import annotations

import pytest

from localeval.evidence.candidates import (
    SELECTORS,
    Selector,
    bm25_scores,
    embedding_scores,
    get_selector,
    hybrid_scores,
    overlap_scores,
    relevance_screen,
    select,
)

UNITS = [
    "The observatory opened in Vienna in 1880.",
    "The harbour froze during the winter of 1880 and the harbour master closed the harbour.",
    "Engineers repaired the bridge over the Danube after a storm.",
    "The museum sold its paintings in 1920.",
]


def test_overlap_keeps_the_units_sharing_the_claims_words_in_original_order():
    claim = "After the storm, engineers repaired the Danube bridge in 1880."
    scores = overlap_scores(claim, UNITS)
    assert scores[2] == max(scores) and scores[3] == 0.0
    chosen = select(claim, UNITS, 2, "overlap")
    assert chosen == sorted(chosen) and 2 in chosen and 3 not in chosen
    # No more units than asked for: every unit, nothing ranked.
    assert select(claim, UNITS, 4, "overlap") == [0, 1, 2, 3]


def test_bm25_weighs_rare_words_and_does_not_reward_repetition_of_common_ones():
    units = [
        "The city council met in the city hall of the city to discuss the city budget of the city.",
        "The city zoo bought a rare okapi from Congo.",
        "Rain fell on the city all week.",
    ]
    claim = "The city zoo acquired an okapi."
    scores = bm25_scores(claim, units)
    assert scores[1] > scores[0] > 0.0 and scores[1] > scores[2]
    assert select(claim, units, 1, "bm25") == [1]
    # A claim with no content words scores nothing (and selection falls back to the order).
    assert bm25_scores("It was.", units) == [0.0, 0.0, 0.0]
    assert select("It was.", units, 2, "bm25") == [0, 1]


def test_embedding_finds_a_paraphrase_that_shares_no_word():
    claim = "He could not afford the automobile."
    units = [
        "The weather in March was cold and wet.",
        "The car was far too expensive for him to buy.",
        "The orchestra played a symphony by Brahms.",
    ]
    assert overlap_scores(claim, units) == [0.0, 0.0, 0.0]
    scores = embedding_scores(claim, units)
    assert scores[1] == max(scores) and scores[1] > scores[0] + 0.1
    assert select(claim, units, 1, "embedding") == [1]
    # Deterministic: the same texts give the same scores.
    assert embedding_scores(claim, units) == pytest.approx(scores)


def test_hybrid_reranks_a_lexical_shortlist_with_the_embedding():
    claim = "The car was too expensive for him."
    units = [f"Item {i}: the weather was cold in March." for i in range(12)] + [
        "He could not afford the automobile; the car was too expensive.",
        "The car park is expensive on weekdays.",
    ]
    scores = hybrid_scores(claim, units, 1)
    # The shortlist (8 texts at k=1) holds the lexical matches, whose scores exceed every
    # unshortlisted text's (overlap - 1 < 0 <= overlap + cosine).
    assert scores[12] == max(scores)
    outside = [s for s in scores if s < 0]
    assert len(outside) == len(units) - 8
    assert select(claim, units, 1, "hybrid") == [12]


def test_selectors_are_named_and_configurable():
    assert set(SELECTORS) == {"overlap", "bm25", "embedding", "hybrid"}
    for name, selector in SELECTORS.items():
        assert get_selector(name) is selector and selector.name == name
    custom = Selector("longest", lambda claim, texts, k=None: [float(len(t)) for t in texts])
    assert get_selector(custom) is custom
    assert select("anything", UNITS, 1, custom) == [1]
    with pytest.raises(ValueError, match="unknown candidate selector"):
        get_selector("tfidf")
    with pytest.raises(ValueError, match="k must be"):
        select("a claim", UNITS, 0)


def test_attribute_judges_the_selected_units(tiny_judge):
    from localeval.evidence.attribution import attribute

    context = " ".join(UNITS)
    claim = "Engineers repaired the bridge over the Danube."
    for selector in ("overlap", "bm25", "hybrid"):
        pruned = attribute(tiny_judge, [([claim], [context])], locate_sentence=False, max_units=1,
                           unit_sentences=1, granularity="sentence", candidates=selector)
        assert pruned[0][0].evidence.text == UNITS[2]
    with pytest.raises(ValueError, match="unknown candidate selector"):
        attribute(tiny_judge, [([claim], [context])], candidates="nope")


def test_judged_metrics_take_the_selector_by_name(tiny_judge):
    from localeval.metrics import ContextRecall, Faithfulness

    assert ContextRecall(tiny_judge, candidates="bm25").candidates == "bm25"
    assert Faithfulness(tiny_judge).candidates == "overlap"
    with pytest.raises(ValueError, match="unknown candidate selector"):
        ContextRecall(tiny_judge, candidates="nope")


def test_relevance_screen_screens_only_sentences_without_the_questions_words():
    question = "When did Marie Curie win the Nobel Prize in Chemistry?"
    sentences = [
        "Marie Curie won the Nobel Prize in Chemistry in 1911.",
        "She moved to Paris in 1891 to study physics.",
        "There she met Pierre Curie, whom she married in 1895.",
    ]
    strict = relevance_screen(question, sentences, max_overlap=0.0)
    assert strict[0] is None and strict[2] is None  # share words: left to the judge
    assert strict[1] is not None and strict[1].startswith("screened") and "none of the question" in strict[1]
    assert relevance_screen(question, sentences) == strict  # the default screens only those
    # A looser screen also decides a sentence holding one of the question's six words, and
    # says how much of the question it held.
    why = relevance_screen(question, sentences, max_overlap=0.2)
    assert why[0] is None and why[1] == strict[1]
    assert why[2] is not None and "17%" in why[2]
    # A question with a single content word is never screened.
    assert relevance_screen("Why?", sentences) == [None, None, None]
    assert relevance_screen("Where is Paris?", sentences) == [None, None, None]


@pytest.mark.parametrize("text", [
    "The museum opened in 1921. It holds 3,000 models.\n\nGuided tours start at 11:00.",
    "Prices rose 5,\n000 people said so. Another sentence here.",   # a thousands comma split by a line
    "1. First item is here.\n2. Second item is here.\n- Third item (a bullet).",
    "It wasn't open. Smith's boat isn't there.  It cost $2.5m in 2018–19.",
    "Alpha beta gamma. " * 3 + "word " * 400 + "end.",  # an over-long sentence, read in pieces
], ids=["blank-line", "split-thousands", "list-markers", "contractions-money", "over-long"])
def test_a_units_words_from_its_sentences_equal_reading_it_whole(text):
    from localeval.evidence.attribution import _build_units
    from localeval.evidence.candidates import _words, words_of_run
    from localeval.text import split_sentences

    spans = [(s.start, s.end) for s in split_sentences(text)]
    windows, short = _build_units(lambda t: len(t.split()), text, 60, "both", 2)
    for unit in windows + short:
        assert words_of_run(text, unit.start, unit.end, [spans[i] for i in unit.sentence_indices]) == _words(unit.text)
