"""RetrievalMetrics: hand-computed values on small ranked lists (no model involved)."""

from __future__ import annotations

import json
import math

import pytest

from localeval import Sample
from localeval.metrics.retrieval import RetrievalMetrics, dcg, ndcg_at_k

L = math.log2


@pytest.fixture(scope="module")
def metric() -> RetrievalMetrics:
    return RetrievalMetrics()


def score(metric: RetrievalMetrics, retrieved, relevant):
    return metric.score(Sample(retrieved_context_ids=retrieved, reference_context_ids=relevant))


def test_hand_computed_values(metric):
    # Relevant at ranks 2 and 3 of 5; one of the 3 relevant (d9) is never retrieved.
    r = score(metric, ["d1", "d2", "d3", "d4", "d5"], ["d2", "d3", "d9"])
    assert r.metric == "retrieval" and r.reason is None
    assert r.score == r.recall == pytest.approx(2 / 3)
    assert r.precision == pytest.approx(2 / 5)
    assert r.recall_at_k == pytest.approx({1: 0.0, 3: 2 / 3, 5: 2 / 3})
    assert r.precision_at_k == pytest.approx({1: 0.0, 3: 2 / 3, 5: 2 / 5})
    assert r.hit_rate == 1.0
    assert r.mrr == pytest.approx(1 / 2)
    assert (r.true_positives, r.relevant_count, r.retrieved_count) == (2, 3, 5)
    assert r.relevant_ranks == [2, 3] and r.missing_ids == ["d9"] and r.duplicates == []


def test_ndcg_known_value(metric):
    # rel = [1, 0, 1], |R| = 2: DCG = 1 + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3).
    r = score(metric, ["a", "x", "b"], ["a", "b"])
    assert r.ndcg_at_k[3] == pytest.approx(1.5 / (1 + 1 / L(3)))
    assert r.ndcg_at_k[3] == pytest.approx(0.919720, abs=1e-6)
    assert r.ndcg_at_k[1] == 1.0
    # Ideal DCG uses min(k, |R|) hits: one relevant doc at rank 1 is perfect at every k.
    assert score(metric, ["a", "x", "y"], ["a"]).ndcg_at_k == {1: 1.0, 3: 1.0}
    assert ndcg_at_k([0, 1], 1, 2) == pytest.approx(1 / L(3))
    assert dcg([]) == 0.0


def test_mrr_first_hit_at_rank_three(metric):
    r = score(metric, ["x", "y", "a", "b"], ["a", "b"])
    assert r.mrr == pytest.approx(1 / 3)
    assert r.ndcg_at_k[3] == pytest.approx((1 / L(4)) / (1 + 1 / L(3)))


def test_k_larger_than_list_is_left_out_unless_asked(metric):
    r = score(metric, ["a", "b"], ["b", "c"])
    assert set(r.recall_at_k) == set(r.precision_at_k) == set(r.ndcg_at_k) == {1}
    padded = RetrievalMetrics(report_all_k=True).score(
        Sample(retrieved_context_ids=["a", "b"], reference_context_ids=["b", "c"])
    )
    assert set(padded.recall_at_k) == {1, 3, 5, 10, 20}
    assert padded.recall_at_k[20] == 0.5
    assert padded.precision_at_k[5] == pytest.approx(1 / 5)  # a short list is padded with misses


def test_custom_ks():
    m = RetrievalMetrics(ks=[2, 1, 2])
    r = m.score(Sample(retrieved_context_ids=["a", "b", "c"], reference_context_ids=["b"]))
    assert r.recall_at_k == {1: 0.0, 2: 1.0} and r.precision_at_k == {1: 0.0, 2: 0.5}
    with pytest.raises(ValueError):
        RetrievalMetrics(ks=[0, 5])


def test_duplicates_count_once_at_first_rank(metric):
    r = score(metric, ["a", "a", "x", "b", "a"], ["a", "b"])
    assert r.duplicates == ["a", "a"]
    assert r.retrieved_count == 3 and r.relevant_ranks == [1, 3]
    assert r.recall == 1.0 and r.precision == pytest.approx(2 / 3)
    assert r.precision_at_k == pytest.approx({1: 1.0, 3: 2 / 3})  # k=5 > 3 unique IDs
    # A repeat of an irrelevant ID does not push the first hit down.
    assert score(metric, ["x", "x", "a"], ["a"]).mrr == pytest.approx(1 / 2)


def test_int_and_str_ids_compare_as_strings(metric):
    r = score(metric, [1, 2, "3"], ["2", 3, 4])
    assert r.recall == pytest.approx(2 / 3) and r.relevant_ranks == [2, 3] and r.missing_ids == ["4"]


def test_no_relevant_ids_is_unscored(metric):
    r = score(metric, ["a"], [])
    assert r.score is None and "recall is undefined" in r.reason
    assert "reference_context_ids" in score(metric, ["a"], None).reason
    assert "retrieved_context_ids" in score(metric, None, ["a"]).reason


def test_nothing_retrieved_scores_zero(metric):
    r = score(metric, [], ["a", "b"])
    assert r.score == r.recall == r.precision == r.hit_rate == r.mrr == 0.0
    assert r.recall_at_k == r.precision_at_k == r.ndcg_at_k == {}
    assert "nothing retrieved" in r.reason and r.missing_ids == ["a", "b"]


def test_details_serialise_to_json(metric):
    details = score(metric, ["a", "b"], ["b"]).details()
    assert json.loads(json.dumps(details))["recall_at_k"] == {"1": 0.0}


def test_score_many_keeps_order_and_registry():
    from localeval.metrics import get_metric

    m = get_metric("retrieval")
    assert isinstance(m, RetrievalMetrics)
    rows = [
        {"retrieved_context_ids": ["a"], "reference_context_ids": ["a"]},
        {"retrieved_context_ids": ["a"], "reference_context_ids": []},
        {"retrieved_context_ids": ["b", "a"], "reference_context_ids": ["a"]},
    ]
    assert [r.score for r in m.score_many(rows)] == [1.0, None, 1.0]


async def test_ascore(metric):
    r = await metric.ascore({"retrieved_context_ids": ["x", "a"], "reference_context_ids": ["a"]})
    assert r.mrr == 0.5
