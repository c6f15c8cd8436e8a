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


def test_versioned_names_resolve_and_a_plain_name_is_the_newest_version():
    from localeval.catalog import METRIC_SPECS, metric_spec

    for spec in METRIC_SPECS:
        cls, _ = resolve_name(spec.name)
        assert cls.registered_name == spec.name and cls.name == spec.plain
        assert metric_spec(spec.plain).version == max(s.version for s in METRIC_SPECS if s.plain == spec.plain)
    assert get_metric("faithfulness.v1").name == "faithfulness"  # the stored identity keeps the plain name


def test_each_class_takes_its_declaration_from_the_catalog():
    from localeval.catalog import METRIC_SPECS
    from localeval.metrics.registry import higher_is_better, threshold_uses

    for spec in METRIC_SPECS:
        cls = METRICS[spec.plain]
        assert cls.options_used == spec.options
        assert [tuple(u) for u in getattr(cls, "threshold_uses", list)()] == threshold_uses(spec.name)
    assert higher_is_better("noise_sensitivity") is False and higher_is_better("ragchecker") is True
    assert higher_is_better(get_metric("ragchecker", score="hallucination")) is False


def test_a_class_that_differs_from_its_declaration_is_refused():
    from localeval.metrics.base import register_metric
    from localeval.metrics.context_recall import ContextRecall

    with pytest.raises(TypeError, match="declared as 'context_recall.v1'"):
        register_metric("context_recall.v1")(type("Other", (ContextRecall,), {"name": "other"}))
    with pytest.raises(TypeError, match="its declaration 'context_recall.v1'"):
        # a relevance decision its declaration does not list
        register_metric("context_recall.v1")(type("Wrong", (ContextRecall,), {"threshold_kinds": ("relevance",)}))
    with pytest.raises(ValueError, match="not declared"):
        register_metric("context_recall.v9")


def test_options_and_config_import_no_metric_module():
    """Checking a run's options (a threshold key, a decomposer name) loads no metric, judge or
    torch: the declarations they read are data (`localeval.catalog`)."""
    import subprocess
    import sys

    code = ("import sys; from localeval.config import load_config; from localeval.options import RunOptions; "
            "RunOptions(thresholds={'faithfulness': 0.6}, decomposer='rule')\n"
            "try:\n    RunOptions(thresholds={'faithfulnes': 0.6})\nexcept ValueError as e:\n    print('refused', e)\n"
            "print(sorted(m for m in sys.modules if m.startswith(('localeval.metrics', 'localeval.judge', 'localeval.llm', 'torch'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "unknown threshold 'faithfulnes' (did you mean 'faithfulness'?)" in out
    assert out.strip().endswith("[]"), out
