"""ContextRelevance: plumbing and edge cases with a tiny two-head model, judgements with the
default judge."""

from __future__ import annotations

import asyncio

import pytest
from bulk_helpers import spy_on_sessions
from conftest import build_tiny_model

from localeval import Sample
from localeval.judge.session import JudgeSession
from localeval.metrics import ContextRelevance, get_metric

FIVE_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}


@pytest.fixture(scope="module")
def tiny_relevance_judge(tmp_path_factory):
    from localeval.judge import NLIJudge

    directory = build_tiny_model(
        tmp_path_factory.mktemp("tiny-relevance"),
        FIVE_LABELS,
        {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64},
    )
    return NLIJudge(directory, device="cpu")


@pytest.fixture(scope="module")
def tiny_sentences(tiny_relevance_judge):
    return ContextRelevance(model=tiny_relevance_judge, threshold=0.5)


# ---------------------------------------------------------------- plumbing (tiny model)

def test_sentence_level_lists_every_sentence_cut_from_the_original(tiny_sentences):
    contexts = ["The cat sat on the mat. The dog was in Paris.", "", "Berlin is the capital of Germany."]
    result = tiny_sentences.score(Sample(user_input="Where is the cat?", retrieved_contexts=contexts))
    assert result.metric == "context_relevance" and result.level == "sentence"
    assert [(s.context_index, s.text) for s in result.sentences] == [
        (0, "The cat sat on the mat."),
        (0, "The dog was in Paris."),
        (2, "Berlin is the capital of Germany."),
    ]
    for s in result.sentences:
        assert contexts[s.context_index][s.start : s.end] == s.text
        assert s.relevant == (s.probability >= 0.5)
    assert result.score == sum(s.relevant for s in result.sentences) / 3
    assert result.chunks == [] and result.threshold == 0.5


def test_screened_sentences_are_listed_with_the_reason_and_not_judged(tiny_relevance_judge):
    contexts = ["The Danube bridge was repaired in 1880. Bananas are rich in potassium.", "The bridge reopened."]
    sample = Sample(user_input="When was the Danube bridge repaired?", retrieved_contexts=contexts)
    with JudgeSession() as session:
        screened = ContextRelevance(model=tiny_relevance_judge, threshold=0.0).score_many([sample], session=session)[0]
    assert session.counters.pairs_requested == 2  # the bananas sentence was decided without the judge
    assert [(s.text, s.screened is not None) for s in screened.sentences] == [
        ("The Danube bridge was repaired in 1880.", False),
        ("Bananas are rich in potassium.", True),
        ("The bridge reopened.", False),
    ]
    bananas = screened.sentences[1]
    assert bananas.screened.startswith("screened") and "question" in bananas.screened
    assert bananas.probability == 0.0 and not bananas.relevant
    # Screened sentences count in the denominator: at threshold 0 every judged one is relevant.
    assert screened.score == pytest.approx(2 / 3)
    with JudgeSession() as session:
        everything = ContextRelevance(model=tiny_relevance_judge, threshold=0.0, screen=False).score_many(
            [sample], session=session)[0]
    assert session.counters.pairs_requested == 3 and everything.score == 1.0
    assert all(s.screened is None for s in everything.sentences)


def test_threshold_decides_relevance(tiny_relevance_judge):
    sample = Sample(user_input="Where is the cat?", retrieved_contexts=["The cat sat on the mat. The sun is hot."])
    assert ContextRelevance(model=tiny_relevance_judge, threshold=0.0).score(sample).score == 1.0
    assert ContextRelevance(model=tiny_relevance_judge, threshold=1.0).score(sample).score == 0.0


def test_chunk_level_counts_non_empty_chunks(tiny_relevance_judge):
    contexts = ["The cat sat on the mat. The dog ran.", "   ", "Paris is the capital of France."]
    metric = ContextRelevance(model=tiny_relevance_judge, level="chunk", threshold=0.5)
    result = metric.score(Sample(user_input="Where is the cat?", retrieved_contexts=contexts))
    assert result.level == "chunk" and result.sentences == []
    assert [c.context_index for c in result.chunks] == [0, 2]
    for chunk in result.chunks:
        assert chunk.window is not None
        assert contexts[chunk.context_index][chunk.window.start : chunk.window.end] == chunk.window.text
        assert chunk.relevant == (chunk.probability >= 0.5)
    assert result.score == sum(c.relevant for c in result.chunks) / 2


@pytest.mark.parametrize("contexts", [[], [""], ["   ", "\n"]])
def test_no_usable_context_is_unscored_not_zero(tiny_sentences, contexts):
    result = tiny_sentences.score(Sample(user_input="Where is the cat?", retrieved_contexts=contexts))
    assert result.score is None
    assert "nothing to measure" in result.reason and "RAGAS" in result.reason


@pytest.mark.parametrize("question", ["", "   \n"])
def test_empty_question_is_unscored(tiny_sentences, question):
    result = tiny_sentences.score(Sample(user_input=question, retrieved_contexts=["The cat sat."]))
    assert result.score is None and "user_input is empty" in result.reason


def test_missing_columns_are_unscored_with_reason(tiny_sentences):
    assert "user_input" in tiny_sentences.score(Sample(retrieved_contexts=["x"])).reason
    assert "retrieved_contexts" in tiny_sentences.score(Sample(user_input="Where?")).reason


def test_judge_without_relevance_head_is_a_setup_error(tiny_judge):
    metric = ContextRelevance(model=tiny_judge)
    with pytest.raises(ValueError, match="relevance head"):
        metric.score(Sample(user_input="Where is the cat?", retrieved_contexts=["The cat sat."]))
    # rows that need no judgement are still answered
    assert metric.score(Sample(user_input="Where?", retrieved_contexts=[])).score is None


def test_bad_level_is_rejected(tiny_relevance_judge):
    with pytest.raises(ValueError, match="level"):
        ContextRelevance(model=tiny_relevance_judge, level="paragraph")


def test_over_long_sentence_is_read_in_pieces_not_truncated(tiny_relevance_judge, tiny_sentences, monkeypatch):
    sentence = " ".join(["the dog was in the city and the sun was hot"] * 40) + " and the cat sat on the mat."
    calls = spy_on_sessions(monkeypatch)
    result = tiny_sentences.score(Sample(user_input="Where is the cat?", retrieved_contexts=[sentence]))
    judged = [pair for call in calls for pair in call]
    assert len(result.sentences) == 1 and result.sentences[0].text == sentence  # one sentence, whole
    assert len(judged) > 1  # ... judged in several pieces
    assert any(p.endswith("sat on the mat.") for p, _ in judged)  # the end was read
    counts = tiny_relevance_judge.count_tokens
    assert all(counts(p) + counts(q) + 3 <= tiny_relevance_judge.max_length for p, q in judged)


def test_score_many_and_ascore_agree_with_score(tiny_sentences):
    samples = [
        Sample(user_input="Where is the cat?", retrieved_contexts=["The cat sat on the mat.", "Paris is big."]),
        Sample(user_input="", retrieved_contexts=["x"]),
        Sample(user_input="What is the capital of Germany?", retrieved_contexts=["Berlin is the capital of Germany."]),
        Sample(user_input="Where is the cat?", retrieved_contexts=[]),
    ]
    one_by_one = [tiny_sentences.score(s).model_dump() for s in samples]
    assert [r.model_dump() for r in tiny_sentences.score_many(samples)] == one_by_one

    async def gather():
        return await asyncio.gather(*(tiny_sentences.ascore(s) for s in samples))

    assert [r.model_dump() for r in asyncio.run(gather())] == one_by_one


def test_ragas_alias_takes_options(tiny_relevance_judge):
    metric = get_metric("context_relevancy", model=tiny_relevance_judge, level="chunk")
    assert metric.name == "context_relevance" and metric.level == "chunk"


# ---------------------------------------------------------------- judgements (default judge)

EIFFEL = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "Bananas are an excellent source of potassium."
)


def test_answering_sentence_ranks_above_unrelated_one(default_judge):
    result = ContextRelevance(model=default_judge).score(
        Sample(user_input="Where is the Eiffel Tower?", retrieved_contexts=[EIFFEL])
    )
    answer, unrelated = result.sentences
    assert answer.text.startswith("The Eiffel Tower") and unrelated.text.startswith("Bananas")
    assert answer.probability > unrelated.probability
    assert answer.relevant and not unrelated.relevant
    assert result.score == pytest.approx(0.5)
    # The bananas share no word with the question: screened, and the judge agrees.
    assert answer.screened is None and unrelated.screened is not None
    judged = ContextRelevance(model=default_judge, screen=False).score(
        Sample(user_input="Where is the Eiffel Tower?", retrieved_contexts=[EIFFEL])
    )
    assert not judged.sentences[1].relevant and judged.score == result.score


def test_chunk_level_judges_whole_chunks(default_judge):
    contexts = [
        "Bananas are an excellent source of potassium. They grow in tropical regions.",
        EIFFEL,
    ]
    result = ContextRelevance(model=default_judge, level="chunk").score(
        Sample(user_input="Where is the Eiffel Tower?", retrieved_contexts=contexts)
    )
    assert [c.relevant for c in result.chunks] == [False, True]
    assert result.score == pytest.approx(0.5)


CURIE = (
    "Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891 to study physics and "
    "mathematics at the Sorbonne. There she met Pierre Curie, whom she married in 1895. Together "
    "they studied the radiation of uranium and thorium. Marie Curie won the Nobel Prize in "
    "Chemistry in 1911. She died in 1934 of aplastic anaemia."
)


def test_chunk_level_does_not_punish_a_large_chunk_with_one_answer(default_judge):
    sample = Sample(user_input="When did Marie Curie win the Nobel Prize in Chemistry?", retrieved_contexts=[CURIE])
    by_sentence = ContextRelevance(model=default_judge).score(sample)
    by_chunk = ContextRelevance(model=default_judge, level="chunk").score(sample)
    # Sentence level: the answer is found and ranked first. (The birth sentence sits near the
    # stored relevance threshold with the current judge -- 0.61 against 0.48 -- so only the
    # ranking and a bound are asserted here; the exact sentence is pinned by the next test.)
    texts = [s.text for s in by_sentence.relevant_sentences]
    assert "Marie Curie won the Nobel Prize in Chemistry in 1911." in texts
    best = max(by_sentence.sentences, key=lambda s: s.probability)
    assert best.text == "Marie Curie won the Nobel Prize in Chemistry in 1911."
    assert by_sentence.score <= 2 / 6
    # Sentences without the question's words are screened out, and would not have been relevant.
    screened = [s.text for s in by_sentence.sentences if s.screened]
    assert "She moved to Paris in 1891 to study physics and mathematics at the Sorbonne." in screened
    every = ContextRelevance(model=default_judge, screen=False).score(sample)
    assert not any(s.relevant for s in every.sentences if s.text in screened)
    assert every.score == by_sentence.score
    # Chunk level: the chunk holds the answer, so it is relevant, whatever else it says.
    assert by_chunk.score == 1.0


def test_answer_drowned_in_unrelated_text_is_still_found_by_sentence(default_judge):
    """Known limit of chunk level: the judge reads a window as a whole, so one answering
    sentence among many unrelated ones dilutes the window's relevance (trained on coherent
    paragraphs). Sentence level still finds it."""
    filler = (
        "The committee met on Tuesday to review the budget. Several members asked about the "
        "schedule for the new library. The weather was mild for the season. "
    )
    chunk = filler * 3 + "Marie Curie won the Nobel Prize in Chemistry in 1911."
    sample = Sample(user_input="When did Marie Curie win the Nobel Prize in Chemistry?", retrieved_contexts=[chunk])
    by_sentence = ContextRelevance(model=default_judge).score(sample)
    assert [s.text for s in by_sentence.relevant_sentences] == ["Marie Curie won the Nobel Prize in Chemistry in 1911."]
    assert by_sentence.score == pytest.approx(1 / 10)
