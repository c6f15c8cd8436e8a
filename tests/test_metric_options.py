"""Every judged metric honours every option it declares (`JudgedMetric.options_used`), option
by option: scoring the same rows with that one option changed must change what the metric
asks the judge or what it returns. A metric that declares an option but never hands it to the
code that reads it (context precision and chunk recall once ignored ``candidates``) fails here.

The real shipped judge on real text (a Wikipedia-style passage); one session per metric, so a
verdict asked twice is read from memory and the test stays cheap.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from localeval.judge.session import JudgeSession
from localeval.catalog import SCORING_OPTIONS
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.registry import METRICS
from localeval.options import RunOptions

PASSAGE = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "It is named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889. "
    "Locally nicknamed La dame de fer, it was constructed as the centrepiece of the 1889 World's Fair. "
    "The tower is 330 metres tall, about the same height as an 81-storey building. "
    "It was the tallest man-made structure in the world until the Chrysler Building in New York City was finished in 1930. "
    "The tower has three levels for visitors, with restaurants on the first and second levels. "
    "The top level's upper platform is 276 metres above the ground. "
    "Tickets can be bought to ascend by stairs or lift to the first and second levels."
)
ROW = {
    "retrieved_contexts": [
        PASSAGE,
        "Paris is the capital and most populous city of France. The Louvre received 8.9 million visitors in 2023. "
        "The Seine river runs through the city.",
        "Gustave Eiffel was a French civil engineer. His company also built the internal frame of the Statue of Liberty.",
        "Construction of the Eiffel Tower began in 1887.",
        "The top level's upper platform is 276 metres above the ground.",
    ],
    "response": "The Eiffel Tower was built from 1887 to 1889 by Gustave Eiffel's company. It is 300 metres tall. "
                "It has a swimming pool on its top level. It was the tallest structure in the world until 1930. "
                "Locally nicknamed La dame de fer, the tower is 330 metres tall. "
                "Construction of the Eiffel Tower began in 1887. "
                "The top level's upper platform is 267 metres above the ground.",
    "reference": "The Eiffel Tower stands in Paris. It was built from 1887 to 1889 by Gustave Eiffel's company. "
                 "Locally it is nicknamed La dame de fer. The tower is 330 metres tall. "
                 "It was the tallest structure in the world until 1930. "
                 "The top level's upper platform is 267 metres above the ground.",
}
# Two questions, so that each context the probes need is relevant to one of them (chunk
# recall reads only relevant contexts); every other pair is the same for both rows.
ROWS = [{**ROW, "user_input": question} for question in (
    "When did construction of the Eiffel Tower begin?",
    "How high above the ground is the upper platform of the Eiffel Tower?",
)]

PROBES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # (options as built, the same with the one option changed)
    "max_units": ({}, {"max_units": 1}),
    "exhaustive": ({}, {"exhaustive": True}),
    # With every unit chosen the selector cannot matter: a budget of two makes it choose.
    "candidates": ({"max_units": 2}, {"max_units": 2, "candidates": "bm25"}),
    "locate": ({}, {"locate": "judge"}),
    "contrasts": ({}, {"contrasts": False}),
    "screen": ({}, {"screen": False}),
}


class RecordingSession(JudgeSession):
    """A session that also keeps every pair a metric asks the judge about."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, Any]] = []

    def predict(self, judge, pairs, *, task="nli", batch_size=None, show_progress_bar=False):
        self.asked.extend((task, tuple(pair)) for pair in pairs)
        return super().predict(judge, pairs, task=task, batch_size=batch_size, show_progress_bar=show_progress_bar)


def _behaviour(metric: JudgedMetric, session: RecordingSession) -> tuple[str, list]:
    """What the metric returned and which pairs it asked, for the probe rows."""
    session.asked.clear()
    results = metric.score_many(ROWS, session=session)
    return json.dumps([r.model_dump() for r in results], sort_keys=True, default=str), sorted(session.asked, key=repr)


JUDGED = sorted(name for name, cls in METRICS.items() if issubclass(cls, JudgedMetric))
DECLARED = [(name, option) for name in JUDGED for option in METRICS[name].options_used]


def test_every_declared_option_is_a_scoring_option_with_a_probe():
    assert set(PROBES) == set(SCORING_OPTIONS) <= set(RunOptions.model_fields)
    for name in JUDGED:
        declared = METRICS[name].options_used
        assert set(declared) <= set(SCORING_OPTIONS), name
        assert len(set(declared)) == len(declared), name
    # Claim attribution's options reach every metric that attributes claims.
    assert {"max_units", "exhaustive", "candidates", "contrasts"} <= set(METRICS["chunk_recall"].options_used)
    assert {"candidates", "locate"} <= set(METRICS["context_precision"].options_used)


@pytest.fixture(scope="module")
def session():
    """One session for every metric: a verdict one metric asked is read, not judged, by the next."""
    with RecordingSession() as made:
        yield made


@pytest.mark.parametrize("name, option", DECLARED)
def test_metric_honours_each_option_it_declares(default_judge, session, name, option):
    built, changed = PROBES[option]
    before = _behaviour(METRICS[name](default_judge, **built), session)
    after = _behaviour(METRICS[name](default_judge, **changed), session)
    assert after != before, f"{name} declares {option} but scores and asks the same with {changed}"


@pytest.mark.parametrize("name", JUDGED)
def test_an_option_a_metric_does_not_use_is_refused_not_ignored(default_judge, name):
    cls = METRICS[name]
    unused = [o for o in SCORING_OPTIONS if o not in cls.options_used]
    for option in unused:
        with pytest.raises(TypeError, match=f"does not use .*{option}"):
            cls(default_judge, **PROBES[option][1])
        with pytest.raises(TypeError, match=f"does not use .*{option}"):
            cls(default_judge).with_options(**PROBES[option][1])
    # The run's options object, whole, is accepted by every metric: each reads its own part,
    # and describes itself (stored results, run records) by that part only.
    options = RunOptions(max_units=3, screen=False, candidates="bm25", locate="judge")
    metric = cls(default_judge, options=options)
    assert metric.options is options
    settings = metric.settings()
    for option in SCORING_OPTIONS:
        assert (option in settings) == (option in cls.options_used), (name, option)
        if option in settings:
            assert settings[option] == getattr(options, option)


def test_keywords_beside_options_are_refused(default_judge):
    with pytest.raises(TypeError, match="max_units given beside options="):
        METRICS["faithfulness"](default_judge, max_units=2, options=RunOptions())
