"""QuestionRecall: plumbing and edge cases with a tiny two-head model and a fixed decomposer,
judgements with the default judge and the rule-based decomposer."""

from __future__ import annotations

import asyncio

import pytest
from conftest import build_tiny_model

from localeval import Sample
from localeval.metrics import QuestionRecall, get_metric
from localeval.text.questions import RuleBasedDecomposer

FIVE_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}


class Fixed:
    """A decomposer that returns what it was given: the plug-in point, without spaCy."""

    def __init__(self, *subs: str) -> None:
        self.subs = list(subs)

    def decompose(self, question: str) -> list[str]:
        return list(self.subs) if question.strip() else []


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
def tiny_recall(tiny_relevance_judge):
    return QuestionRecall(model=tiny_relevance_judge, decomposer=Fixed("Where is the cat?", "Where is Berlin?"), threshold=0.5)


# ---------------------------------------------------------------- plumbing (tiny model)

def test_result_shape_and_evidence(tiny_recall):
    contexts = ["", "The cat sat on the mat. The dog was in Paris.", "Berlin is the capital of Germany."]
    result = tiny_recall.score(Sample(user_input="Where is the cat and where is Berlin?", retrieved_contexts=contexts))
    assert result.metric == "question_recall" and result.unit == "sentence" and result.threshold == 0.5
    assert [q.text for q in result.sub_questions] == ["Where is the cat?", "Where is Berlin?"]
    for q in result.sub_questions:
        assert q.answerable == (q.probability >= 0.5)
        ev = q.evidence
        assert ev is not None and ev.context_index in (1, 2)
        assert contexts[ev.context_index][ev.start : ev.end] == ev.text  # a whole sentence
        assert (ev.window_start, ev.window_end) == (ev.start, ev.end)  # short: judged whole
    assert result.score == result.answerable_count / 2
    assert result.unanswered == [q.text for q in result.sub_questions if not q.answerable]


def test_threshold_decides_answerability(tiny_relevance_judge):
    sample = Sample(user_input="Where is the cat?", retrieved_contexts=["The cat sat on the mat."])
    decomposer = Fixed("Where is the cat?", "Is the sun hot?")
    assert QuestionRecall(model=tiny_relevance_judge, decomposer=decomposer, threshold=0.0).score(sample).score == 1.0
    assert QuestionRecall(model=tiny_relevance_judge, decomposer=decomposer, threshold=1.0).score(sample).score == 0.0


def test_best_sentence_over_all_contexts_is_the_evidence(tiny_relevance_judge, monkeypatch):
    """The sub-question's probability is the max over every sentence of every context."""
    contexts = ["The sun is hot. The cat sat on the mat.", "Berlin is big."]
    scores = {"The sun is hot.": 0.2, "The cat sat on the mat.": 0.9, "Berlin is big.": 0.4}
    import numpy as np

    layout = tiny_relevance_judge.layout

    def predictor(pairs, task, **kw):  # the judge's model, replaced: P(relevant) from the table
        out = np.zeros((len(pairs), 2), dtype=np.float32)
        for i, (p, _) in enumerate(pairs):
            out[i, layout.relevant], out[i, 1 - layout.relevant] = scores[p], 1 - scores[p]
        return out

    monkeypatch.setattr(tiny_relevance_judge, "score_distinct", predictor)
    metric = QuestionRecall(model=tiny_relevance_judge, decomposer=Fixed("Where is the cat?"), threshold=0.5)
    (verdict,) = metric.score(Sample(user_input="q", retrieved_contexts=contexts)).sub_questions
    assert verdict.answerable and verdict.probability == pytest.approx(0.9)
    assert (verdict.evidence.context_index, verdict.evidence.text) == (0, "The cat sat on the mat.")
    assert verdict.evidence.start == contexts[0].index("The cat")


@pytest.mark.parametrize("contexts", [[], [""], ["   ", "\n"]])
def test_no_usable_context_scores_zero(tiny_judge, contexts):
    # tiny_judge has no relevance head: rows without context must not need the judge at all
    metric = QuestionRecall(model=tiny_judge, decomposer=Fixed("Where is the cat?", "Where is Berlin?"))
    result = metric.score(Sample(user_input="Where is the cat and Berlin?", retrieved_contexts=contexts))
    assert result.score == 0.0 and "no sub-question is answerable" in result.reason
    assert [(q.answerable, q.probability, q.evidence) for q in result.sub_questions] == [(False, 0.0, None)] * 2


@pytest.mark.parametrize("question", ["", "  \n "])
def test_empty_question_is_unscored(tiny_recall, question):
    result = tiny_recall.score(Sample(user_input=question, retrieved_contexts=["The cat sat."]))
    assert result.score is None and "user_input is empty" in result.reason and result.sub_questions == []


def test_question_without_sub_questions_is_unscored(tiny_relevance_judge):
    for decomposer in (Fixed(), Fixed("", "   ")):
        metric = QuestionRecall(model=tiny_relevance_judge, decomposer=decomposer)
        result = metric.score(Sample(user_input="???", retrieved_contexts=["The cat sat."]))
        assert result.score is None and "no sub-question" in result.reason


def test_missing_columns_are_unscored_with_reason(tiny_recall):
    assert "user_input" in tiny_recall.score(Sample(retrieved_contexts=["x"])).reason
    assert "retrieved_contexts" in tiny_recall.score(Sample(user_input="Where?")).reason


def test_judge_without_relevance_head_is_a_setup_error(tiny_judge):
    metric = QuestionRecall(model=tiny_judge, decomposer=Fixed("Where is the cat?"))
    with pytest.raises(ValueError, match="relevance head"):
        metric.score(Sample(user_input="Where is the cat?", retrieved_contexts=["The cat sat."]))


def test_options_are_checked(tiny_relevance_judge):
    with pytest.raises(TypeError, match="decompose"):
        QuestionRecall(model=tiny_relevance_judge, decomposer=object())
    with pytest.raises(ValueError, match="unit"):
        QuestionRecall(model=tiny_relevance_judge, unit="paragraph")
    assert isinstance(QuestionRecall(model=tiny_relevance_judge).decomposer, RuleBasedDecomposer)


def test_window_unit_points_at_windows(tiny_relevance_judge):
    contexts = ["The cat sat on the mat. The dog ran.", "", "Berlin is the capital of Germany."]
    metric = QuestionRecall(model=tiny_relevance_judge, decomposer=Fixed("Where is the cat?", "Where is Berlin?"), unit="window")
    result = metric.score(Sample(user_input="q", retrieved_contexts=contexts))
    assert result.unit == "window"
    for q in result.sub_questions:
        ev = q.evidence
        assert ev.context_index in (0, 2) and contexts[ev.context_index][ev.start : ev.end] == ev.text


def test_default_decomposer_feeds_the_metric(tiny_relevance_judge):
    metric = QuestionRecall(model=tiny_relevance_judge, threshold=0.5)
    result = metric.score(
        Sample(user_input="What are the capitals of France and Germany?", retrieved_contexts=["Paris is the capital of France."])
    )
    assert [q.text for q in result.sub_questions] == [
        "What are the capitals of France?",
        "What are the capitals of Germany?",
    ]


def test_score_many_and_ascore_agree_with_score(tiny_recall):
    samples = [
        Sample(user_input="Where is the cat?", retrieved_contexts=["The cat sat on the mat.", "Paris is big."]),
        Sample(user_input="", retrieved_contexts=["x"]),
        Sample(user_input="Where is Berlin?", retrieved_contexts=[]),
        Sample(user_input="Where is Berlin?", retrieved_contexts=["Berlin is the capital of Germany."]),
    ]
    one_by_one = [tiny_recall.score(s).model_dump() for s in samples]
    assert [r.model_dump() for r in tiny_recall.score_many(samples)] == one_by_one

    async def gather():
        return await asyncio.gather(*(tiny_recall.ascore(s) for s in samples))

    assert [r.model_dump() for r in asyncio.run(gather())] == one_by_one


def test_registry_builds_the_metric(tiny_relevance_judge):
    metric = get_metric("question_recall", model=tiny_relevance_judge, decomposer=Fixed("q?"))
    assert isinstance(metric, QuestionRecall)


# ---------------------------------------------------------------- judgements (default judge)

LOCATION_ONLY = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "It is one of the most visited monuments in the world."
)


@pytest.fixture(scope="module")
def recall(default_judge):
    return QuestionRecall(model=default_judge)


def test_eiffel_tower_location_only_answers_half(recall):
    result = recall.score(
        Sample(user_input="Where is the Eiffel Tower and when was it built?", retrieved_contexts=[LOCATION_ONLY])
    )
    where, when = result.sub_questions
    assert where.text == "Where is the Eiffel Tower?" and when.text == "When was the Eiffel Tower built?"
    assert where.answerable and where.evidence.text.startswith("The Eiffel Tower is a wrought-iron")
    assert not when.answerable, when.probability
    assert result.score == pytest.approx(0.5)
    assert result.unanswered == ["When was the Eiffel Tower built?"]


def test_eiffel_tower_fully_answered(recall):
    contexts = [LOCATION_ONLY, "Bananas are rich in potassium.", "The Eiffel Tower was built from 1887 to 1889."]
    result = recall.score(Sample(user_input="Where is the Eiffel Tower and when was it built?", retrieved_contexts=contexts))
    assert result.score == 1.0
    assert [q.evidence.context_index for q in result.sub_questions] == [0, 2]


def test_capitals_with_one_country_retrieved(recall):
    result = recall.score(
        Sample(
            user_input="What are the capitals of France and Germany?",
            retrieved_contexts=["Paris is the capital and largest city of France."],
        )
    )
    assert [q.answerable for q in result.sub_questions] == [True, False]
    assert result.score == pytest.approx(0.5)
