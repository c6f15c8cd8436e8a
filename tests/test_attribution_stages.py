"""Attribution's stages (localeval.evidence.attribution): the plan is a frozen value that no
stage changes; early acceptance returns a new, cut plan. Plumbing: tiny judge."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from localeval.evidence import attribution as a
from localeval.evidence.candidates import get_selector
from localeval.judge.session import JudgeSession

CONTEXT = "The observatory opened in Vienna in 1880. The bridge was repaired after a storm. The museum sold paintings."
GROUPS = [(["The observatory opened in 1880.", "The bridge was repaired."], [CONTEXT, "  "]), ([], [CONTEXT])]


def _settings(**changes) -> a._Settings:
    base = dict(granularity="both", unit_sentences=2, locate_sentence=True, batch_size=None, show_progress_bar=False,
                max_units=a.DEFAULT_MAX_UNITS, accept_at=None, signals=False, selector=get_selector("overlap"),
                locate="words", units=False, contrasts=True, verdict=None)
    return a._Settings(**{**base, **changes})


def test_the_plan_is_frozen_and_indexes_its_pairs(tiny_judge):
    with JudgeSession() as session, session.active():
        plan = a._plan(session, tiny_judge, GROUPS, _settings())
    assert [len(row) for row in plan.rows] == [2, 0]
    for _, claim in plan.keyed():
        assert claim.candidates and all(plan.pairs[x.pair] == (x.unit.window.text, claim.claim) for x in claim.candidates)
        assert all(x.unit.context_index == 0 for x in claim.candidates)  # the blank context gives no unit
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.rows = ()  # type: ignore[misc]


def test_early_acceptance_returns_a_cut_plan_and_leaves_the_plan_it_was_given(tiny_judge):
    settings = _settings(accept_at=0.0, contrasts=False)  # every first unit accepts its claim
    with JudgeSession() as session, session.active():
        plan = a._plan(session, tiny_judge, GROUPS, settings)
        before = [len(c.candidates) for _, c in plan.keyed()]
        judged = a._judge(session, tiny_judge, plan, a._acceptance_bars(plan, settings), settings)
    assert [len(c.candidates) for _, c in plan.keyed()] == before and max(before) > 1
    assert [len(c.candidates) for _, c in judged.plan.keyed()] == [1, 1]
    judged_pairs = [i for i in range(len(plan.pairs)) if not np.isnan(judged.probs[i])]
    assert judged_pairs == sorted(c.candidates[0].pair for _, c in judged.plan.keyed())
