"""Keyed group batching (localeval.judge.batching.judge_by_key): plumbing, tiny judge."""

from __future__ import annotations

import pytest

from localeval.evidence.attribution import attribute
from localeval.judge.batching import judge_by_key
from localeval.judge.session import JudgeSession


def test_no_groups_gives_nothing_and_makes_no_call():
    calls = []
    assert judge_by_key(lambda groups: calls.append(groups) or [], {}) == {}
    assert calls == []


def test_groups_go_over_in_the_mappings_order_and_come_back_by_key():
    seen = []

    def judge_all(groups):
        seen.append(list(groups))
        return [sum(g) for g in groups]

    keys = [(2, "b"), frozenset({1}), "row", None, 7.5]  # any hashable key
    out = judge_by_key(judge_all, {key: [i, 10 * i] for i, key in enumerate(keys)})
    assert len(seen) == 1 and seen[0] == [[0, 0], [1, 10], [2, 20], [3, 30], [4, 40]]
    assert list(out) == keys and [out[k] for k in keys] == [0, 11, 22, 33, 44]


def test_a_result_count_that_does_not_match_is_an_error():
    with pytest.raises(ValueError, match="2 groups judged into 1 results"):
        judge_by_key(lambda groups: groups[:1], {"a": 1, "b": 2})


def test_one_judge_call_for_every_group_with_duplicates_judged_once(tiny_judge):
    context = "The observatory is in Vienna. The bridge was repaired in 1880."
    claims = ["The observatory is in Vienna.", "The bridge was repaired."]
    groups = {
        ("row", 0): (claims, [context]),
        ("row", 1): ([], [context]),  # a group without claims: an empty result, not a missing key
        ("row", 2): (claims, [context]),  # the same pairs again: judged once
    }
    with JudgeSession() as session:
        out = judge_by_key(lambda items: attribute(tiny_judge, items, session=session), groups)
        counters = session.counters
        assert counters.calls == 1 and counters.pairs_unique * 2 == counters.pairs_requested > 0
    assert out[("row", 1)] == []
    assert out[("row", 0)] == out[("row", 2)]
    alone = attribute(tiny_judge, [(claims, [context])])[0]
    assert out[("row", 0)] == alone  # batched with others: the same values
