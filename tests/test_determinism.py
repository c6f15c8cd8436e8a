"""Determinism on CPU (issue 9, item 3): the same rows scored again, with other batch sizes,
chunk sizes and row orders, give the same scores (|delta| < 1e-4).

Why it holds: the judge runs in fp32 under ``inference_mode`` with dropout off; pairs are
deduplicated, sorted by length and padded per batch with an attention mask, so a pair's
logits do not depend on its batch neighbours beyond float rounding; claim splitting,
windowing, NER and question decomposition are rule-based. What holds on a GPU (fp16) is
written in docs/guarantees.md.
"""

from __future__ import annotations

import random

import pytest

from localeval import evaluate
from localeval.metrics import get_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.registry import METRICS

from bulk_helpers import FIVE_LABELS, make_rows, sharp_tiny_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TOLERANCE = 1e-4
ROWS = make_rows(18, seed=5)


@pytest.fixture(scope="module")
def judge5(tmp_path_factory):
    from localeval.judge import NLIJudge

    extra = {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64}
    return NLIJudge(sharp_tiny_model(tmp_path_factory.mktemp("det5"), FIVE_LABELS, extra), device="cpu")


def _scores(rows, metrics, *, batch_size: int, block_size: int) -> dict[str, dict[str, float | None]]:
    """Scores keyed by row id, then metric: independent of the order rows were given in."""
    metrics = [m.with_options(batch_size=batch_size) if isinstance(m, JudgedMetric) else m for m in metrics]
    result = evaluate(rows, metrics, block_size=block_size, show_progress=False)
    return {row.data["id"]: {name: res.score for name, res in row.results.items()} for row in result}


def _assert_same(got, expected) -> None:
    assert got.keys() == expected.keys()
    for row_id, scores in expected.items():
        for name, want in scores.items():
            have = got[row_id][name]
            assert (have is None) == (want is None), (row_id, name, have, want)
            if want is not None:
                assert abs(have - want) < TOLERANCE, (row_id, name, have, want)


@pytest.fixture(scope="module")
def every_metric(judge5):
    return [
        get_metric(name, model=judge5) if issubclass(cls, JudgedMetric) else get_metric(name)
        for name, cls in METRICS.items()
    ]


@pytest.fixture(scope="module")
def reference_scores(every_metric):
    return _scores(ROWS, every_metric, batch_size=32, block_size=256)


@pytest.mark.parametrize(
    "batch_size, block_size, order",
    [(32, 256, "same"), (1, 1, "reversed"), (7, 5, "shuffled"), (128, 3, "shuffled")],
)
def test_same_scores_whatever_batch_chunk_and_row_order(every_metric, reference_scores, batch_size, block_size, order):
    rows = list(ROWS)
    if order == "reversed":
        rows.reverse()
    elif order == "shuffled":
        random.Random(batch_size).shuffle(rows)
    got = _scores(rows, every_metric, batch_size=batch_size, block_size=block_size)
    _assert_same(got, reference_scores)
    if order == "same":  # scored twice in the same way: bit for bit
        assert got == reference_scores
    # The sharp judge makes scores differ between rows, so the comparison means something.
    assert len({s["context_recall"] for s in reference_scores.values()} - {None}) > 1


DEFAULT_ROWS = [
    {"id": "eiffel", "user_input": "Where is the Eiffel Tower and when was it finished?",
     "response": "The Eiffel Tower is in Paris. It was finished in 1889.",
     "reference": "The Eiffel Tower is in Paris. It was completed in 1889.",
     "retrieved_contexts": ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France, built from 1887 to 1889.",
                            "Paris is the capital of France."]},
    {"id": "moon", "user_input": "Who first walked on the Moon?", "response": "Neil Armstrong, in 1969.",
     "reference": "Neil Armstrong was the first person to walk on the Moon, in July 1969.",
     "retrieved_contexts": ["Apollo 11 landed on the Moon on 20 July 1969.", ""]},
    {"id": "water", "user_input": "At what temperature does water boil?", "response": "Water boils at 50 degrees.",
     "reference": "At sea level water boils at 100 degrees Celsius.",
     "retrieved_contexts": ["Water boils at 100 °C at sea level.", "Water boils at 100 °C at sea level."]},
]


def test_default_judge_same_scores_across_batches_orders_and_threads(default_judge):
    """The shipped judge, on short rows: batch 32 on one thread vs batch 1, rows reversed, on
    two threads. Per-claim probabilities agree too, not only the thresholded scores."""
    import torch

    names = ["context_recall", "faithfulness", "context_relevance", "chunk_recall", "question_recall"]

    def run(rows, batch_size: int, threads: int):
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            metrics = [get_metric(n, model=default_judge, batch_size=batch_size) for n in names]
            result = evaluate(rows, metrics, show_progress=False)
        finally:
            torch.set_num_threads(before)
        return {r.data["id"]: r.results for r in result}

    a = run(DEFAULT_ROWS, batch_size=32, threads=1)
    b = run(DEFAULT_ROWS[::-1], batch_size=1, threads=2)
    _assert_same({k: {n: r.score for n, r in v.items()} for k, v in b.items()},
                 {k: {n: r.score for n, r in v.items()} for k, v in a.items()})
    for row_id in a:
        pa = [c.probability for c in a[row_id]["context_recall"].claims]
        pb = [c.probability for c in b[row_id]["context_recall"].claims]
        assert pa == pytest.approx(pb, abs=TOLERANCE)
