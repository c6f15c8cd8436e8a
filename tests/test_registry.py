"""The metric registry: every name and RAGAS alias builds its metric (no model is loaded to
build one), an alias applies the options that make it mean the RAGAS metric, and a wrong name
fails with a suggestion. One place for what the metric test files used to restate with
``isinstance`` each."""

from __future__ import annotations

import pytest

from localeval.metrics import get_metric
from localeval.metrics.registry import ALIASES, METRICS, resolve_name


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_name_builds_its_metric_under_that_name(name):
    metric = get_metric(f"  {name.upper()} ")  # as a user may type it
    assert type(metric) is METRICS[name]
    assert metric.name == name
    assert metric.score_many([]) == []  # built without loading a model, and usable


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_every_alias_builds_its_target_with_the_alias_options(alias):
    target, implied = ALIASES[alias]
    metric, plain = get_metric(alias), get_metric(target)
    assert type(metric) is METRICS[target] and metric.name == target
    # The alias' options are what makes it differ from the plain metric, and only them.
    assert (metric.settings() != plain.settings()) == bool(implied)
    assert metric.settings() == get_metric(target, **implied).settings()


def test_a_wrong_name_fails_with_a_suggestion():
    with pytest.raises(ValueError, match="unknown metric 'faithfulnes'.*faithfulness"):
        resolve_name("faithfulnes")
    with pytest.raises(ValueError, match="unknown metric"):
        get_metric("no_such_metric")


def test_an_option_the_metric_does_not_take_is_an_error():
    with pytest.raises(TypeError):
        get_metric("retrieval", max_units=3)
    with pytest.raises(TypeError, match="does not use max_units"):
        get_metric("context_relevance", max_units=3)
