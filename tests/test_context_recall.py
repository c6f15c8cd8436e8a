"""ContextRecall: plumbing and edge cases with a tiny model, judgements with the default judge."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from localeval import Sample
from localeval.judge.session import JudgeSession
from localeval.metrics import ContextRecall

from bulk_helpers import spy_on_sessions
from seed_texts import AKS_CONTEXTS, AKS_REFERENCE, AKS_STEPS


@pytest.fixture(scope="module")
def tiny_recall(tiny_judge):
    return ContextRecall(model=tiny_judge, threshold=0.5)


# ---------------------------------------------------------------- plumbing (tiny model)

def test_result_shape_and_evidence_offsets(tiny_recall):
    contexts = ["", "The cat sat on the mat. The dog was in Paris.", "Berlin is the capital of Germany."]
    sample = Sample(reference="The cat sat on the mat. Berlin is a city.", retrieved_contexts=contexts)
    result = tiny_recall.score(sample)
    assert result.metric == "context_recall"
    assert len(result.claims) == 2
    assert 0.0 <= result.score <= 1.0
    assert result.score == sum(c.attributed for c in result.claims) / 2
    for claim in result.claims:
        assert sample.reference[claim.start : claim.end] == claim.text
        assert claim.evidence is not None and claim.evidence.context_index in (1, 2)
        context = contexts[claim.evidence.context_index]
        assert context[claim.evidence.start : claim.evidence.end] == claim.evidence.text
        assert claim.attributed == (claim.probability >= 0.5)


def test_threshold_decides_attribution(tiny_judge):
    sample = Sample(reference="The cat sat on the mat.", retrieved_contexts=["The cat sat on the mat."])
    assert ContextRecall(model=tiny_judge, threshold=0.0).score(sample).score == 1.0
    assert ContextRecall(model=tiny_judge, threshold=1.0).score(sample).score == 0.0
    with pytest.raises(ValueError):
        ContextRecall(model=tiny_judge, threshold=1.5)


@pytest.mark.parametrize(
    "reference, reason",
    [("", "reference is empty"), ("   \n\t ", "reference is empty"), ("... !!! ---", "no claims")],
)
def test_references_without_claims_are_unscored(tiny_recall, reference, reason):
    result = tiny_recall.score(Sample(reference=reference, retrieved_contexts=["The cat sat."]))
    assert result.score is None and reason in result.reason and result.claims == []


@pytest.mark.parametrize("contexts", [[], [""], ["   ", "\n"]])
def test_no_usable_context_scores_zero(tiny_recall, contexts):
    result = tiny_recall.score(Sample(reference="The cat sat. The dog ran.", retrieved_contexts=contexts))
    assert result.score == 0.0
    assert "no non-empty retrieved context" in result.reason
    assert [c.attributed for c in result.claims] == [False, False]
    assert all(c.probability == 0.0 and c.evidence is None for c in result.claims)


def test_missing_columns_are_unscored_with_reason(tiny_recall):
    assert "reference" in tiny_recall.score(Sample(retrieved_contexts=["x"])).reason
    assert "retrieved_contexts" in tiny_recall.score(Sample(reference="The cat sat.")).reason


def test_non_string_input_is_a_validation_error(tiny_recall):
    with pytest.raises(ValidationError, match="reference"):
        tiny_recall.score({"reference": 42, "retrieved_contexts": ["a"]})
    with pytest.raises(ValidationError, match="retrieved_contexts"):
        Sample(reference="The cat sat.", retrieved_contexts="not a list")
    with pytest.raises(ValidationError):
        Sample(reference="The cat sat.", retrieved_contexts=["ok", None])


def test_old_column_names_and_dicts_are_accepted(tiny_recall):
    old = {"question": "q", "ground_truth": "The cat sat on the mat. Paris is in France.", "contexts": ["The cat sat on the mat."]}
    new = Sample(user_input="q", reference=old["ground_truth"], retrieved_contexts=old["contexts"])
    result = tiny_recall.score(old)
    # The old names are read as the new ones: same claims, same verdicts, same score.
    assert result.model_dump() == tiny_recall.score(new).model_dump()
    assert [c.text for c in result.claims] == ["The cat sat on the mat.", "Paris is in France."]
    assert result.score is not None and 0.0 <= result.score <= 1.0


def test_ascore_and_score_many_agree_with_score(tiny_recall):
    samples = [
        Sample(reference="The cat sat on the mat. Paris is in France.", retrieved_contexts=["The cat sat."]),
        Sample(reference="", retrieved_contexts=["x"]),
        Sample(reference="Berlin is big.", retrieved_contexts=["Berlin is the capital of Germany.", "The sun is hot."]),
    ]
    one_by_one = [tiny_recall.score(s) for s in samples]
    batched = tiny_recall.score_many(samples)
    concurrent = asyncio.run(_gather(tiny_recall, samples))
    assert [r.model_dump() for r in batched] == [r.model_dump() for r in one_by_one]
    assert [r.model_dump() for r in concurrent] == [r.model_dump() for r in one_by_one]


async def _gather(metric, samples):
    return await asyncio.gather(*(metric.ascore(s) for s in samples))




@pytest.mark.parametrize("max_units", [None, "default"])
def test_long_context_is_windowed_not_truncated(tiny_judge, monkeypatch, max_units):
    from localeval.evidence.attribution import DEFAULT_MAX_UNITS

    filler = "The dog was in the city and the sun was hot. " * 2000  # ~20k words
    context = filler + "The cat sat on the mat."
    asked = spy_on_sessions(monkeypatch)  # every judge call goes through the run's session
    options = {} if max_units == "default" else {"max_units": max_units}
    result = ContextRecall(model=tiny_judge, **options).score(
        Sample(reference="The cat sat on the mat.", retrieved_contexts=[context])
    )
    judged = [pair for call in asked for pair in call]
    calls = [len(call) for call in asked]
    premises = [p for p, _ in judged]
    if max_units is None:
        assert len(premises) > 100  # many windows, each judged
    else:
        # The prefilter judges only the units sharing the claim's words: the one at the very end.
        assert calls[0] <= DEFAULT_MAX_UNITS
    assert any(p.endswith("The cat sat on the mat.") for p in premises)  # the end was read
    assert all(tiny_judge.count_tokens(p) + tiny_judge.count_tokens(h) + 3 <= tiny_judge.max_length for p, h in judged)
    evidence = result.claims[0].evidence
    assert evidence is not None and context[evidence.start : evidence.end] == evidence.text


# ---------------------------------------------------------------- judgements (default judge)

@pytest.fixture(scope="module")
def recall(default_judge):
    return ContextRecall(model=default_judge)


def test_default_judge_is_used_without_arguments(default_judge):
    metric = ContextRecall()
    assert metric.judge is default_judge


def test_aks_example_attributes_the_right_steps(recall):
    result = recall.score(Sample(user_input="How to deploy to AKS?", reference=AKS_REFERENCE, retrieved_contexts=AKS_CONTEXTS))
    verdicts = {c.text: c.attributed for c in result.claims}
    assert list(verdicts) == AKS_STEPS
    assert verdicts["Push the image to Azure Container Registry"]
    assert verdicts["Create an AKS cluster using az aks create"]
    assert verdicts["Configure kubectl to connect to your cluster"]
    assert not verdicts["Build your Docker image"]
    assert not verdicts["Create Kubernetes deployment YAML"]
    assert not verdicts["Apply the deployment using kubectl apply"]
    assert result.score == pytest.approx(0.5)
    push = next(c for c in result.claims if c.text.startswith("Push"))
    assert push.evidence.context_index == 0


def test_supported_contradicted_and_unrelated_claims(recall):
    context = "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889."
    cases = {
        "The Eiffel Tower is in Paris.": True,
        "The Eiffel Tower was completed in 1889.": True,
        "The Eiffel Tower is in Berlin.": False,
        "The Eiffel Tower was completed in 1925.": False,
        "Bananas are rich in potassium.": False,
    }
    for claim, expected in cases.items():
        result = recall.score(Sample(reference=claim, retrieved_contexts=[context]))
        assert result.claims[0].attributed is expected, (claim, result.claims[0].probability)


def test_evidence_at_the_end_of_a_20k_word_context_is_found(recall):
    filler = (
        "The committee met on Tuesday to review the budget. Several members asked about the "
        "schedule for the new library. The weather was mild for the season. "
    )
    words_per_block = len(filler.split())
    context = filler * (20000 // words_per_block) + "Marie Curie won the Nobel Prize in Chemistry in 1911."
    assert len(context.split()) >= 20000
    result = recall.score(Sample(reference="Marie Curie won the Nobel Prize in Chemistry in 1911.", retrieved_contexts=[context]))
    claim = result.claims[0]
    assert claim.attributed
    assert claim.evidence.text == "Marie Curie won the Nobel Prize in Chemistry in 1911."
    assert claim.evidence.end == len(context)


def test_evidence_located_by_words_keeps_every_verdict_and_asks_fewer_pairs(default_judge):
    """Locating the evidence sentence by the claim's words (the default) changes no probability
    or verdict of the AKS seed; the evidence stays inside the unit that won and asks the judge
    fewer pairs than judging each of its sentences."""
    sample = Sample(user_input="How to deploy to AKS?", reference=AKS_REFERENCE, retrieved_contexts=AKS_CONTEXTS)
    with JudgeSession() as words_session:
        by_words = ContextRecall(model=default_judge).score_many([sample], session=words_session)[0]
    with JudgeSession() as judge_session:
        by_judge = ContextRecall(model=default_judge, locate="judge").score_many([sample], session=judge_session)[0]
    assert judge_session.counters.pairs_requested > words_session.counters.pairs_requested
    assert by_words.score == by_judge.score == pytest.approx(0.5)
    for w, j in zip(by_words.claims, by_judge.claims):
        assert (w.text, w.probability, w.attributed) == (j.text, j.probability, j.attributed)
        assert (w.evidence.window_start, w.evidence.window_end) == (j.evidence.window_start, j.evidence.window_end)
        assert w.evidence.window_start <= w.evidence.start < w.evidence.end <= w.evidence.window_end
        assert AKS_CONTEXTS[w.evidence.context_index][w.evidence.start:w.evidence.end] == w.evidence.text
    push = next(c for c in by_words.claims if c.text.startswith("Push"))
    assert "push" in push.evidence.text.lower() or "registry" in push.evidence.text.lower()
    with pytest.raises(ValueError, match="locate"):
        ContextRecall(model=default_judge, locate="embedding")


def test_a_claim_longer_than_half_the_input_is_judged_whole(default_judge):
    """A reference sentence of ~170 tokens judged as a claim (factual recall reads a
    reference's sentences as claims): the premise is windowed to what the claim leaves, so
    the judge truncates nothing."""
    import warnings

    from localeval.evidence.attribution import attribute

    claim = ("Patients presenting with fever, cough and shortness of breath " +
             " ".join(f"in ward {i} of the hospital," for i in range(22)) + " were tested on admission.")
    premise = " ".join(f"Ward {i} of the hospital admitted patients with fever, cough and shortness of breath, "
                       f"and they were tested on admission." for i in range(12))
    assert default_judge.max_length // 2 < default_judge.count_tokens(claim) < default_judge.max_length * 3 // 4 - 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the judge warns when it truncates a pair
        (support,), = attribute(default_judge, [([claim], [premise])], accept_at=None)
    assert support.evidence is not None
