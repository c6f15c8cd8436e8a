"""Sentence-level TRACe utilization and completeness, judged by the real default judge."""

from __future__ import annotations

import pytest

from localeval import evaluate
from localeval.judge.session import JudgeSession
from localeval.metrics import Faithfulness, TraceCompleteness, TraceUtilization, get_metric
from localeval.metrics.registry import known_threshold_keys, threshold_uses
from localeval.reports.explain import explain, renderer_for

QUESTION = "Where is the Louvre museum located?"
CONTEXT = ("The Louvre is the world's most-visited art museum. It is located in Paris, France. "
           "The museum was opened in 1793. Bananas are rich in potassium.")
ROW = {"user_input": QUESTION, "response": "The Louvre is located in Paris, France.", "retrieved_contexts": [CONTEXT]}


@pytest.fixture(scope="module")
def scored(default_judge):
    rows = [
        ROW,
        {**ROW, "response": ""},
        {**ROW, "response": "I don't know."},
        {**ROW, "retrieved_contexts": []},
        {**ROW, "retrieved_contexts": ["", "  "]},
        {**ROW, "user_input": "Who painted the Mona Lisa?", "response": "Bananas are rich in potassium.",
         "retrieved_contexts": ["Bananas are rich in potassium. Apples grow on trees."]},
    ]
    return evaluate(rows, [TraceUtilization(default_judge, score_declined=True),
                               TraceCompleteness(default_judge, score_declined=True)], show_progress=False).rows


def test_utilization_counts_the_sentences_the_response_used(scored):
    result = scored[0].results["trace_utilization"]
    used = [s.text for s in result.sentences if s.utilized]
    assert used == ["It is located in Paris, France."]
    assert result.score == pytest.approx(1 / 4)
    assert [s.text for s in result.sentences] == [
        "The Louvre is the world's most-visited art museum.", "It is located in Paris, France.",
        "The museum was opened in 1793.", "Bananas are rich in potassium."]
    assert all(CONTEXT[s.start:s.end] == s.text for s in result.sentences)
    assert result.claims and all(c.attributed for c in result.claims)
    assert result.sentences[1].claims == [0]
    assert result.reason is None


def test_completeness_is_the_share_of_relevant_sentences_used(scored):
    result = scored[0].results["trace_completeness"]
    relevant = [s.text for s in result.sentences if s.relevant]
    assert "It is located in Paris, France." in relevant
    assert "Bananas are rich in potassium." not in relevant
    used_relevant = [s for s in result.sentences if s.relevant and s.utilized]
    assert result.score == pytest.approx(len(used_relevant) / len(relevant))
    assert result.score > 0
    assert {s.text for s in result.missed_sentences} == {s.text for s in result.sentences if s.relevant and not s.utilized}


@pytest.mark.parametrize("index, why", [(1, "response is empty"), (2, "non-answer")])
def test_an_empty_or_declining_response_uses_nothing(scored, index, why):
    util, comp = scored[index].results["trace_utilization"], scored[index].results["trace_completeness"]
    assert util.score == 0.0 and why in util.reason
    assert not any(s.utilized for s in util.sentences) and len(util.sentences) == 4
    assert comp.score == 0.0 and why in comp.reason


@pytest.mark.parametrize("index", [3, 4])
def test_no_context_is_unscored(scored, index):
    for name in ("trace_utilization", "trace_completeness"):
        result = scored[index].results[name]
        assert result.score is None and "no non-empty retrieved context" in result.reason


def test_no_relevant_sentence_makes_completeness_unscored_not_nan(scored):
    util, comp = scored[5].results["trace_utilization"], scored[5].results["trace_completeness"]
    assert util.score == pytest.approx(0.5)  # the response uses the banana sentence, relevant or not
    assert comp.score is None and "no context sentence is relevant" in comp.reason
    assert comp.sentences and not any(s.relevant for s in comp.sentences)


def test_non_english_is_scored_with_a_reason(default_judge):
    row = {"user_input": "Où se trouve le musée du Louvre ?",
           "response": "Le musée du Louvre se trouve à Paris, en France, et il est très grand.",
           "retrieved_contexts": ["Le Louvre est le musée d'art le plus visité au monde. Il se trouve à Paris, en France."]}
    result = TraceUtilization(default_judge).score(row)
    # scored (the English judge may well miss French support), never dropped, and said so
    assert result.score is not None and 0.0 <= result.score <= 1.0
    assert len(result.sentences) == 2 and len(result.claims) == 1
    assert "does not look like English" in result.reason


def test_judgements_are_faithfulness_own(default_judge):
    """Scored after faithfulness in one session, utilization asks the judge for nothing new."""
    session = JudgeSession()
    faith = Faithfulness(default_judge).score_many([ROW], session=session)[0]
    before = session.counters.pairs_judged
    assert before > 0
    util = TraceUtilization(default_judge).score_many([ROW], session=session)[0]
    assert session.counters.pairs_judged == before
    assert [c.attributed for c in util.claims] == [c.attributed for c in faith.claims]
    assert [c.evidence for c in util.claims] == [c.evidence for c in faith.claims]


def test_entailing_counts_every_sentence_of_an_entailing_unit(default_judge):
    evidence = TraceUtilization(default_judge).score(ROW)
    entailing = TraceUtilization(default_judge, used="entailing").score(ROW)
    assert {s.text for s in evidence.utilized_sentences} <= {s.text for s in entailing.utilized_sentences}
    with pytest.raises(ValueError, match="used must be"):
        TraceUtilization(default_judge, used="all")


def test_thresholds_follow_faithfulness_and_context_relevance(default_judge, tiny_judge):
    stored = default_judge.thresholds
    own = stored.get("trace_utilization", stored["faithfulness"])  # stored by benchmarks.agreement.trace
    assert TraceUtilization(default_judge).resolved_threshold() == own
    assert TraceUtilization(default_judge).judging_threshold() == stored["faithfulness"]
    comp = TraceCompleteness(default_judge)
    assert comp.resolved_threshold("relevance") == stored["context_relevance"]
    assert comp.resolved_threshold("entailment") == own
    given = TraceCompleteness(default_judge, thresholds={"trace_utilization": 0.9, "context_relevance": 0.2})
    assert given.resolved_threshold("entailment") == 0.9 and given.resolved_threshold("relevance") == 0.2
    # a judge without a key of its own falls back to faithfulness', then to the generic one
    assert TraceUtilization(tiny_judge, thresholds={"faithfulness": 0.8}).resolved_threshold() == 0.8
    assert TraceUtilization(tiny_judge, thresholds={"entailment": 0.7}).resolved_threshold() == 0.7
    assert "trace_utilization" in known_threshold_keys()
    assert threshold_uses("trace_completeness") == [("entailment", "trace_utilization"), ("relevance", "context_relevance")]


def test_registry_cli_names_and_report(scored, tmp_path):
    assert get_metric("trace_completeness", used="entailing").used == "entailing"
    # RAGAS' "context_utilization" stays the chunk-level context precision
    assert get_metric("context_utilization").name == "context_precision"
    assert renderer_for("trace_completeness").__name__ == "_trace"
    result = scored[0].results["trace_completeness"]
    record = {"retrieved_contexts": [CONTEXT], "trace_completeness": result.score,
              "trace_completeness_details": result.details()}
    html = explain("trace_completeness", record)
    assert "1 of 1 relevant sentence used" in html and 'class="ok"' in html  # agrees in number (issue 34)
    util = scored[0].results["trace_utilization"]
    html = explain("trace_utilization", {"retrieved_contexts": [CONTEXT], "trace_utilization": util.score,
                                         "trace_utilization_details": util.details()})
    assert "1 of 4 context sentences used" in html


def test_attribute_lists_the_units_a_claim_was_judged_against(default_judge):
    from localeval.evidence.attribution import attribute

    (support,), = attribute(default_judge, [(["The Louvre is located in Paris."], [CONTEXT])], units=True)
    assert support.units and all(0.0 <= u.probability <= 1.0 for u in support.units)
    assert max(u.probability for u in support.units) == pytest.approx(support.probability, abs=1e-6)
    best = max(support.units, key=lambda u: u.probability)
    assert best.short and 1 in best.sentence_indices  # the unit holding "It is located in Paris, France."
    (plain,), = attribute(default_judge, [(["The Louvre is located in Paris."], [CONTEXT])])
    assert plain.units is None and plain.probability == support.probability
