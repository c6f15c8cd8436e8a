"""Faithfulness, ContextPrecision, ChunkRecall, PrecisionRecall and the rag_evals shim:
formulas and edge cases with tiny models, judgements with the default judge."""

from __future__ import annotations

import asyncio

import pytest

from localeval import Sample
from localeval.compat.rag_evals import ContextRecall as RagEvalsContextRecall
from localeval.metrics import ChunkRecall, ContextPrecision, ContextRecall, Faithfulness, PrecisionRecall, get_metric
from localeval.metrics.context_precision import average_precision
from localeval.metrics.precision_recall import f1
from localeval.judge.session import JudgeSession

from conftest import build_tiny_model
from seed_texts import AKS_CONTEXTS, AKS_REFERENCE, AKS_STEPS

FIVE_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}


@pytest.fixture(scope="module")
def tiny_two_head(tmp_path_factory):
    from localeval.judge import NLIJudge

    path = build_tiny_model(
        tmp_path_factory.mktemp("two-head"),
        FIVE_LABELS,
        {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64},
    )
    return NLIJudge(path, device="cpu")


# ---------------------------------------------------------------- formulas

@pytest.mark.parametrize(
    "useful, expected",
    [([True, False, True], (1 + 2 / 3) / 2), ([False, False, True], 1 / 3), ([True, True], 1.0), ([False], 0.0), ([], 0.0)],
)
def test_average_precision(useful, expected):
    assert average_precision(useful) == pytest.approx(expected)


def test_f1_is_zero_when_both_are_zero():
    assert f1(0.0, 0.0) == 0.0 and f1(1.0, 0.5) == pytest.approx(2 / 3)


# ---------------------------------------------------------------- plumbing (tiny models)

def test_precision_ranks_and_modes(tiny_two_head):
    contexts = ["The cat sat on the mat.", "", "Paris is in France."]
    by_question = ContextPrecision(tiny_two_head, mode="question", threshold=0.0).score(
        Sample(user_input="where is paris", retrieved_contexts=contexts)
    )
    assert [c.context_index for c in by_question.chunks] == [0, 1, 2] and by_question.mode == "question"
    assert by_question.chunks[1].useful is False and by_question.chunks[1].probability == 0.0  # empty chunk
    by_reference = ContextPrecision(tiny_two_head, threshold=0.0).score(
        Sample(user_input="q", reference="Paris is in France.", retrieved_contexts=contexts)
    )
    assert by_reference.mode == "reference" and by_reference.chunks[0].supported_claim == "Paris is in France."
    assert by_reference.score == pytest.approx(average_precision([c.useful for c in by_reference.chunks]))


def test_precision_edge_cases(tiny_two_head):
    metric = ContextPrecision(tiny_two_head)
    assert metric.score(Sample(user_input="q", retrieved_contexts=[])).score is None
    assert "undefined" in metric.score(Sample(user_input="q", retrieved_contexts=[])).reason
    assert metric.score(Sample(retrieved_contexts=["x"])).score is None
    no_claims = metric.score(Sample(reference="...", retrieved_contexts=["x"]))
    assert no_claims.score is None and "mode='question'" in no_claims.reason
    with pytest.raises(ValueError):
        ContextPrecision(tiny_two_head, mode="bogus")


def test_faithfulness_edge_cases(tiny_judge):
    metric = Faithfulness(tiny_judge)
    assert metric.score(Sample(response="", retrieved_contexts=["x"])).score is None
    none_retrieved = metric.score(Sample(response="The cat sat.", retrieved_contexts=[]))
    assert none_retrieved.score == 0.0 and none_retrieved.unsupported_claims == ["The cat sat."]
    assert "response" in metric.score(Sample(retrieved_contexts=["x"])).reason


def test_chunk_recall_structure_and_no_relevant_rule(tiny_two_head):
    sample = Sample(user_input="where is paris", response="Paris is in France.", retrieved_contexts=["Paris is in France. The cat sat.", "The sun is hot."])
    everything_relevant = ChunkRecall(tiny_two_head, relevance_threshold=0.0, threshold=1.0).score(sample)
    assert [c.context_index for c in everything_relevant.evaluated_chunks] == [0, 1]
    assert all(c.is_relevant and not c.is_included for c in everything_relevant.evaluated_chunks)
    assert everything_relevant.score == 0.0
    missing = everything_relevant.missing_information
    assert missing[0] == {"context_index": 0, "missing_info": "Paris is in France. The cat sat."}
    for chunk, text in zip(everything_relevant.evaluated_chunks, sample.retrieved_contexts):
        assert all(text[s.start : s.end] == s.text for s in chunk.missing_sentences)
    nothing_relevant = ChunkRecall(tiny_two_head, relevance_threshold=1.0).score(sample)
    assert nothing_relevant.score == 1.0 and "no retrieved chunk is relevant" in nothing_relevant.reason
    as_none = ChunkRecall(tiny_two_head, relevance_threshold=1.0, no_relevant_score=None).score(sample)
    assert as_none.score is None


def test_precision_recall_unscored_part_is_reported(tiny_two_head):
    result = PrecisionRecall(tiny_two_head).score(Sample(reference="The cat sat.", retrieved_contexts=[]))
    assert result.score is None and "precision" in result.reason


def test_ragas_aliases_resolve(tiny_two_head):
    assert get_metric("llm_context_precision_without_reference", model=tiny_two_head).mode == "response"
    assert get_metric("context_utilization", model=tiny_two_head).mode == "response"


# ---------------------------------------------------------------- judgements (default judge)

COLD_QUESTION = "How can I relieve the symptoms of a common cold?"
COLD_CONTEXTS = [
    "Resting and drinking plenty of fluids relieve the symptoms of a cold.",
    "Saline nasal sprays relieve congestion caused by a cold.",
    "The Eiffel Tower was completed in 1889 for the World's Fair.",
]
COLD_ANSWER = "To relieve a cold, rest and drink plenty of fluids."


def test_chunk_recall_saline_spray_example(default_judge):
    result = ChunkRecall(default_judge).score(Sample(user_input=COLD_QUESTION, response=COLD_ANSWER, retrieved_contexts=COLD_CONTEXTS))
    chunks = result.evaluated_chunks
    assert [c.is_relevant for c in chunks] == [True, True, False]
    assert chunks[0].is_included and not chunks[1].is_included
    assert result.score == pytest.approx(0.5)
    assert result.missing_information == [{"context_index": 1, "missing_info": COLD_CONTEXTS[1]}]


def test_rag_evals_shim_matches_the_seed_interface(default_judge):
    result = asyncio.run(
        RagEvalsContextRecall.agrade(question=COLD_QUESTION, answer=COLD_ANSWER, context=COLD_CONTEXTS, client=None, model=default_judge)
    )
    assert result.score == pytest.approx(0.5)
    assert [c.id_chunk for c in result.evaluated_chunks] == [0, 1, 2]
    assert result.missing_information[0]["chunk_id"] == 1


def test_faithfulness_flags_the_unsupported_claim(default_judge):
    # The supported claim needs "She" resolved from the sentence before: the 2-sentence units
    # give the judge that context.
    context = (
        "Ada Lovelace was an English mathematician. "
        "She published the first algorithm for Babbage's Analytical Engine in 1843."
    )
    response = "Ada Lovelace published the first algorithm for the Analytical Engine in 1843. She was born in Berlin."
    result = Faithfulness(default_judge).score(Sample(response=response, retrieved_contexts=[context]))
    assert result.score == pytest.approx(0.5)
    assert result.unsupported_claims == ["She was born in Berlin."]


def test_context_precision_rewards_useful_chunks_first(default_judge):
    useful = "The Amazon River flows through Brazil, Peru and Colombia into the Atlantic Ocean."
    noise = "Bread is made from flour, water, yeast and salt."
    sample = dict(user_input="Which countries does the Amazon River flow through?", reference="The Amazon River flows through Brazil.")
    first = ContextPrecision(default_judge).score(Sample(retrieved_contexts=[useful, noise], **sample))
    last = ContextPrecision(default_judge).score(Sample(retrieved_contexts=[noise, useful], **sample))
    assert first.score == pytest.approx(1.0)
    assert last.score == pytest.approx(0.5)
    by_question = ContextPrecision(default_judge, mode="question").score(Sample(retrieved_contexts=[noise, useful], **sample))
    assert [c.useful for c in by_question.chunks] == [False, True]


def test_context_utilization_judges_chunks_against_the_response(default_judge):
    # RAGAS' ContextUtilization: was the chunk used by the answer? No reference needed.
    used = "The Amazon River flows through Brazil, Peru and Colombia into the Atlantic Ocean."
    unused = "The Nile flows north through Egypt into the Mediterranean Sea."
    sample = dict(user_input="Where does the Amazon River flow?", response="The Amazon River flows into the Atlantic Ocean.")
    metric = get_metric("context_utilization", model=default_judge)
    result = metric.score(Sample(retrieved_contexts=[unused, used], **sample))
    assert result.mode == "response"
    assert [c.useful for c in result.chunks] == [False, True]
    assert result.chunks[1].supported_claim == sample["response"]
    assert result.score == pytest.approx(0.5)
    assert metric.score(Sample(retrieved_contexts=[used])).reason == "missing required column(s): response"


def test_precision_recall_on_the_aks_example(default_judge):
    result = PrecisionRecall(default_judge).score(Sample(reference=AKS_REFERENCE, retrieved_contexts=AKS_CONTEXTS))
    assert result.recall == pytest.approx(0.5)
    assert result.precision == pytest.approx(1.0)
    assert result.score == pytest.approx(2 * 0.5 / 1.5)
    assert result.missing_statements == [AKS_STEPS[0], AKS_STEPS[4], AKS_STEPS[5]]


# ---------------------------------------------------------------- early acceptance

_CURIE = (
    "Marie Curie was born in Warsaw in 1867. She moved to Paris to study physics. "
    "In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel. "
    "She won a second Nobel Prize, in Chemistry, in 1911. She died in 1934 in France."
)
_BREAD = "Bread is made from flour, water, yeast and salt. It is baked in an oven."


@pytest.mark.parametrize("metric_cls", [ContextRecall, Faithfulness])
def test_early_acceptance_keeps_every_verdict_and_judges_fewer_pairs(default_judge, monkeypatch, metric_cls):
    text = ("Marie Curie was born in Warsaw. She won the Nobel Prize in Chemistry in 1911. "
            "She was the first woman to walk on the Moon.")
    sample = Sample(reference=text, response=text, retrieved_contexts=[_BREAD, _CURIE])
    with JudgeSession() as session:
        early = metric_cls(default_judge).score_many([sample], session=session)[0]
    early_pairs = session.counters.pairs_requested
    with JudgeSession() as session:
        full = metric_cls(default_judge, exhaustive=True).score_many([sample], session=session)[0]
    assert early.score == full.score == pytest.approx(2 / 3)
    assert [c.attributed for c in early.claims] == [c.attributed for c in full.claims] == [True, True, False]
    for e, f in zip(early.claims, full.claims):
        if e.attributed:  # accepted at its closest unit: at least the threshold, at most the best
            assert early.threshold <= e.probability <= f.probability + 1e-6
            assert e.evidence is not None and e.evidence.context_index == 1
        else:  # not accepted early: judged against every chosen unit, as in the exhaustive run
            assert e.probability == pytest.approx(f.probability, abs=1e-6)
    assert early_pairs < session.counters.pairs_requested


def test_early_acceptance_rejects_a_threshold_outside_0_1(tiny_judge):
    from localeval.evidence.attribution import attribute

    with pytest.raises(ValueError, match="accept_at"):
        attribute(tiny_judge, [(["a claim"], ["a context."])], accept_at=1.5)


# ---------------------------------------------------------------- claim hygiene

@pytest.mark.parametrize("text, reason", [
    ("Yes.", "bare answer word"), ("No", "bare answer word"), ("True.", "bare answer word"),
    ("Yes, it is.", "bare answer word"), ("Of course.", "bare answer word"),
    ("I hope this helps!", "discourse line"), ("Here is what I found:", "discourse line"),
    ("In summary:", "discourse line"), ("Let me know if you have other questions.", "discourse line"),
])
def test_bare_answer_words_and_discourse_are_not_claims(text, reason):
    from localeval.text.hygiene import non_claim_reason

    assert non_claim_reason(text) == reason


@pytest.mark.parametrize("text", [
    "No, the museum is closed on Mondays.", "The answer is yes.", "Paris.", "However, the drug failed.",
    "Correct, it was built in 1889.", "Here is the capital: Paris.", "It is true that water boils at 100 C.",
])
def test_statements_stay_claims(text):
    from localeval.text.hygiene import non_claim_reason

    assert non_claim_reason(text) is None


SALINE = ["Saline nasal spray relieves congestion in most adults. It can be used several times a day."]


def test_yes_does_not_drag_context_recall_down_on_perfect_retrieval(default_judge):
    sample = Sample(user_input="Does saline spray help with congestion?",
                    reference="Yes. Saline nasal spray relieves congestion in most adults.", retrieved_contexts=SALINE)
    result = ContextRecall(model=default_judge).score(sample)
    assert result.score == 1.0
    assert [c.text for c in result.claims] == ["Saline nasal spray relieves congestion in most adults."]
    assert [(s.text, s.reason) for s in result.skipped] == [("Yes.", "bare answer word")]


def test_a_reference_of_only_yes_is_unscored_with_its_reason(default_judge):
    sample = Sample(user_input="Does saline spray help?", reference="Yes.", retrieved_contexts=SALINE)
    result = ContextRecall(model=default_judge).score(sample)
    assert result.score is None and "'Yes.' (bare answer word)" in result.reason
    assert result.skipped[0].start == 0 and result.skipped[0].end == 4


def test_discourse_lines_of_an_answer_are_shown_not_counted(default_judge):
    response = "Sure! Here is the answer. Saline nasal spray relieves congestion in most adults. I hope this helps!"
    result = Faithfulness(model=default_judge).score(
        Sample(user_input="Does saline spray help?", response=response, retrieved_contexts=SALINE))
    assert result.score == 1.0 and len(result.claims) == 1
    assert {s.reason for s in result.skipped} == {"bare answer word", "discourse line"}
    for s in result.skipped:
        assert response[s.start:s.end] == s.text
