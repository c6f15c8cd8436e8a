"""`evaluate()`: same scores as one row at a time, every input format and column mapping,
every row kept, summaries without NaN."""

from __future__ import annotations

import csv
import json
import math
import sys

import pytest

from localeval import Sample, evaluate
from localeval.metrics import ChunkRecall, ContextPrecision, ContextRecall, Faithfulness, get_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.registry import METRICS

from bulk_helpers import FIVE_LABELS, THREE_LABELS, make_rows, sharp_tiny_model, write_jsonl

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def judge3(tmp_path_factory):
    from localeval.judge import NLIJudge

    return NLIJudge(sharp_tiny_model(tmp_path_factory.mktemp("sharp3"), THREE_LABELS, {"max_length": 64}), device="cpu")


@pytest.fixture(scope="module")
def judge5(tmp_path_factory):
    from localeval.judge import NLIJudge

    extra = {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64}
    return NLIJudge(sharp_tiny_model(tmp_path_factory.mktemp("sharp5"), FIVE_LABELS, extra), device="cpu")


ROWS = make_rows(16)


def _metrics(judge3, judge5) -> list:
    metrics = [
        ContextRecall(judge3),
        Faithfulness(judge3),
        ContextPrecision(judge3, mode="reference"),
        get_metric("precision_recall", model=judge3),
        ChunkRecall(judge5),
        get_metric("retrieval"),
    ]
    metrics += [get_metric(name, model=judge5) for name in ("context_relevance", "question_recall") if name in METRICS]
    return metrics


@pytest.fixture(scope="module")
def one_by_one(judge3, judge5):
    """Each metric's score of each row, one row per call: the reference."""
    return {m.name: [m.score(row).score for row in ROWS] for m in _metrics(judge3, judge5)}


@pytest.mark.parametrize("chunk_size, batch_size", [(1, 3), (6, 64)])
def test_scores_equal_one_row_at_a_time(judge3, judge5, one_by_one, chunk_size, batch_size):
    metrics = [m.with_options(batch_size=batch_size) if isinstance(m, JudgedMetric) else m
               for m in _metrics(judge3, judge5)]
    result = evaluate(ROWS, metrics, block_size=chunk_size, show_progress=False)
    assert len(result) == len(ROWS)
    for m in metrics:
        got, expected = result.scores(m.name), one_by_one[m.name]
        assert [s is None for s in got] == [e is None for e in expected], m.name
        assert [s for s in got if s is not None] == pytest.approx([e for e in expected if e is not None], abs=1e-6), m.name
    # The sharp judges make scores differ between rows, so the comparison means something.
    assert len(set(one_by_one["context_recall"]) - {None}) > 1


def test_ids_metric_and_entity_recall_run_in_bulk():
    metrics = ["retrieval", "context_entity_recall"]
    rows = [
        {"reference": "Paris is in France.", "retrieved_contexts": ["Paris is the capital of France."],
         "retrieved_context_ids": ["a"], "reference_context_ids": ["a"]},
        {"reference": "Berlin is in Germany.", "retrieved_contexts": ["Nothing here."]},
    ]
    result = evaluate(rows, metrics, show_progress=False)
    for name in metrics:
        metric = get_metric(name)
        assert result.scores(name) == [metric.score(r).score for r in rows]


def test_every_row_is_kept_with_its_reason(judge3):
    rows = [
        {"reference": "The cat sat.", "retrieved_contexts": ["The cat sat on the mat."]},
        {"reference": 7, "retrieved_contexts": ["x"]},  # fails validation
        "not a dict",
        {"retrieved_contexts": ["x"]},  # missing column
    ]
    result = evaluate(rows, [ContextRecall(judge3)], show_progress=False)
    assert len(result) == 4 and [r.line for r in result] == [1, 2, 3, 4]
    scores = result.scores("context_recall")
    assert scores[0] is not None and scores[1:] == [None, None, None]
    reasons = [r.results["context_recall"].reason for r in result]
    assert "reference" in reasons[1] and "not a JSON object" in reasons[2] and "missing required" in reasons[3]
    summary = result.summary()["context_recall"]
    assert summary.scored == 1 and summary.unscored == 3
    assert summary.reasons == {"invalid row": 2, "missing required column(s)": 1}
    assert summary.std == 0.0 and summary.median == summary.mean


def test_summary_never_nan_when_nothing_scores(judge3):
    result = evaluate([{"user_input": "q"}], [ContextRecall(judge3)], show_progress=False)
    s = result.summary()["context_recall"]
    assert s.mean is None and s.median is None and s.std is None and s.unscored == 1
    assert not any(isinstance(v, float) and math.isnan(v) for v in s.model_dump().values())


def test_names_and_ragas_aliases(judge3):
    result = evaluate(ROWS[:3], "llm_context_recall,faithfulness", model=judge3.path, device="cpu", show_progress=False)
    assert result.metrics == ["context_recall", "faithfulness"]
    frame = result.to_pandas()
    assert list(frame["id"]) == ["r0", "r1", "r2"]
    assert {"context_recall", "context_recall_reason", "context_recall_details", "_line"} <= set(frame.columns)
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate(ROWS[:1], ["nope"], show_progress=False)


# ---------------------------------------------------------------- input formats

def _expected(judge3, rows):
    metric = ContextRecall(judge3)
    return [metric.score(Sample.model_validate(r)).score for r in rows]


def _check(result, expected):
    assert result.scores("context_recall") == pytest.approx(expected)


def _flat(rows):
    # Rows every format can hold (no missing list column: CSV/Parquet have one schema).
    return [{k: r[k] for k in ("id", "user_input", "reference", "retrieved_contexts")} for r in rows if "retrieved_contexts" in r][:8]


def test_input_list_dataframe_jsonl(judge3, tmp_path):
    rows = _flat(ROWS)
    expected = _expected(judge3, rows)
    metric = ContextRecall(judge3)
    _check(evaluate(rows, [metric], show_progress=False), expected)
    _check(evaluate(pd.DataFrame(rows), [metric], show_progress=False), expected)
    _check(evaluate(write_jsonl(tmp_path / "in.jsonl", rows), [metric], show_progress=False), expected)


def test_input_csv_with_json_list_cells(judge3, tmp_path):
    rows = _flat(ROWS)
    path = tmp_path / "in.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for r in rows:
            writer.writerow({**r, "retrieved_contexts": json.dumps(r["retrieved_contexts"])})
    result = evaluate(path, [ContextRecall(judge3)], show_progress=False)
    _check(result, _expected(judge3, rows))
    assert result[0].data["id"] == "r0"


def test_input_parquet_and_dataset(judge3, tmp_path):
    pytest.importorskip("pyarrow")
    rows = _flat(ROWS)
    expected = _expected(judge3, rows)
    path = tmp_path / "in.parquet"
    pd.DataFrame(rows).to_parquet(path)
    _check(evaluate(path, [ContextRecall(judge3)], show_progress=False), expected)
    datasets = pytest.importorskip("datasets")
    _check(evaluate(datasets.Dataset.from_list(rows), [ContextRecall(judge3)], show_progress=False), expected)


# ---------------------------------------------------------------- column mapping (seed 003)

def test_column_map_forms(judge3, tmp_path):
    rows = _flat(ROWS)
    expected = _expected(judge3, rows)
    metric = ContextRecall(judge3)
    renamed = [{"gt": r["reference"], "pred": {"retrieved_contexts": r["retrieved_contexts"]}} for r in rows]
    by_path = evaluate(renamed, [metric], {"reference_column": "gt", "retrieved_contexts": "pred.retrieved_contexts"}, show_progress=False)
    _check(by_path, expected)
    assert by_path[0].data == renamed[0]  # the input fields are kept as they were
    by_callable = evaluate(
        renamed, [metric],
        {"ground_truth": lambda row: row["gt"], "contexts": lambda row: list(row["pred"]["retrieved_contexts"])},
        show_progress=False,
    )
    _check(by_callable, expected)
    legacy = [{"ground_truth": r["reference"], "contexts": r["retrieved_contexts"]} for r in rows]
    _check(evaluate(legacy, [metric], show_progress=False), expected)
    # A dict column stored as JSON text (CSV) is decoded on the way down the path.
    as_text = [{"gt": r["gt"], "pred": json.dumps(r["pred"])} for r in renamed]
    _check(evaluate(as_text, [metric], {"reference": "gt", "retrieved_contexts": "pred.retrieved_contexts"}, show_progress=False), expected)


def test_column_map_errors(judge3):
    metric = ContextRecall(judge3)
    with pytest.raises(ValueError, match="unknown target field"):
        evaluate([{}], [metric], {"nonsense": "x"}, show_progress=False)
    with pytest.raises(ValueError, match="no such column"):
        evaluate(pd.DataFrame([{"a": 1}]), [metric], {"reference": "gt"}, show_progress=False)
    broken = evaluate([{"gt": "The cat sat."}], [metric], {"reference": lambda row: row["missing"]}, show_progress=False)
    assert broken.scores("context_recall") == [None]
    assert "column map for reference failed: KeyError" in broken[0].results["context_recall"].reason


def test_session_counters_are_the_runs(judge3, tmp_path, monkeypatch):
    """A caller's session serves the run: its public counters are what the run asked the judge
    (counted here at the judge's model call), and a re-run on the filled cache file judges nothing."""
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions

    sent: list[int] = []
    original = judge3.score_distinct

    def counted(pairs, *args, **kwargs):
        sent.append(len(pairs))
        return original(pairs, *args, **kwargs)

    monkeypatch.setattr(judge3, "score_distinct", counted)
    options = RunOptions(model=judge3, cache=str(tmp_path / "verdicts.sqlite"), block_size=5)
    rows, names = ROWS[:8], ["context_recall", "faithfulness"]
    with JudgeSession(options) as first:
        fresh = evaluate(rows, names, session=first, show_progress=False)
        counted_first, sent_first = first.counters.snapshot(), sum(sent)
        first.predict(judge3, [("The cat sat.", "A cat sat.")])  # still open after the run
    assert counted_first["pairs_judged"] == sent_first > 0
    assert counted_first["pairs_unique"] == counted_first["pairs_judged"] + counted_first["cache_hits"]
    assert counted_first["pairs_requested"] >= counted_first["pairs_unique"]
    assert counted_first["batches"] > 0 and counted_first["tokens_judged"] > 0

    sent.clear()
    with JudgeSession(options) as second:
        cached = evaluate(rows, names, session=second, show_progress=False)
    # Every row's results are read back from the file (localeval.runner.stored): no pair is asked.
    assert sent == [] and second.counters.pairs_requested == 0 and second.counters.batches == 0
    assert second.analyses.loaded >= len(rows) * len(names)
    for name in names:
        assert cached.scores(name) == fresh.scores(name)

    # Without stored results, the same pairs are asked and every one is a cache hit.
    from localeval.runner.stored import StoredResults

    monkeypatch.setattr(StoredResults, "_kind", lambda self, metric: None)
    with JudgeSession(options) as third:
        again = evaluate(rows, names, session=third, show_progress=False)
    assert sent == [] and third.counters.pairs_judged == 0 and third.counters.batches == 0
    assert third.counters.cache_hits == counted_first["pairs_unique"] > 0
    assert third.counters.pairs_requested == counted_first["pairs_requested"]
    for name in names:
        assert again.scores(name) == fresh.scores(name)


def test_session_brings_the_runs_options(judge3, monkeypatch):
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions
    evaluate_module = sys.modules["localeval.runner.evaluate"]
    from localeval.runner.evaluate import score_dataset

    with JudgeSession(RunOptions(model=judge3, max_units=2)) as session:
        with pytest.raises(ValueError, match="model, max_units given beside session="):
            evaluate(ROWS[:2], ["context_recall"], model=judge3, max_units=3, session=session, show_progress=False)
        with pytest.raises(ValueError, match="session= needs the local engine"):
            evaluate(ROWS[:2], ["context_recall"], engine="ray", session=session, show_progress=False)
        with pytest.raises(ValueError, match="differs from the options the session"):
            score_dataset(ROWS[:2], ["context_recall"], None, options=RunOptions(model=judge3), session=session,
                          show_progress=False)
        with pytest.raises(TypeError, match="must be a JudgeSession"):
            evaluate(ROWS[:2], ["context_recall"], session=RunOptions(), show_progress=False)
        # The metrics given by name are built from the session's options.
        built = []
        resolve = evaluate_module.resolve_metrics
        monkeypatch.setattr(evaluate_module, "resolve_metrics", lambda *a, **k: built.extend(resolve(*a, **k)) or built)
        evaluate(ROWS[:2], ["context_recall"], session=session, show_progress=False)
        assert [(m.judge, m.max_units) for _, m in built] == [(judge3, 2)] and session.counters.calls > 0
