"""Every metric declares its result type, returns it (scored or not) and names a chunk's
position ``context_index`` only; results written under the older names still load."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from localeval import evaluate
from localeval.metrics import Metric, MetricResult, get_metric
from localeval.metrics.chunk_recall import ChunkRecallResult
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.context_precision import ContextPrecisionResult
from localeval.metrics.registry import METRICS
from localeval.reports.explain import RENDERERS, explain, generic, renderer_for

from bulk_helpers import FIVE_LABELS, make_rows, sharp_tiny_model

OLD_NAMES = {"rank", "id_chunk", "chunk_id"}


@pytest.fixture(scope="module")
def metrics(tmp_path_factory) -> dict[str, Metric]:
    from localeval.judge import NLIJudge

    extra = {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64}
    judge = NLIJudge(sharp_tiny_model(tmp_path_factory.mktemp("types5"), FIVE_LABELS, extra), device="cpu")
    return {name: get_metric(name, model=judge) if issubclass(cls, JudgedMetric) else get_metric(name)
            for name, cls in METRICS.items()}


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metric_returns_its_declared_result_type(metrics, name):
    cls, metric = METRICS[name], metrics[name]
    declared = cls.__dict__.get("result_type") or next(
        (c.__dict__["result_type"] for c in cls.__mro__ if "result_type" in c.__dict__), None)
    assert declared is not None and issubclass(declared, MetricResult), f"{name} declares no result type"
    assert type(metric.unscored("why")) is cls.result_type
    rows = [*make_rows(12, seed=5), {"id": "empty"}]  # scored rows and rows missing a column
    results = metric.score_many(rows)
    assert len(results) == len(rows) and {type(r) for r in results} == {cls.result_type}
    assert any(r.score is not None for r in results) and any(r.score is None for r in results)
    for result in results:
        dumped = result.model_dump()
        assert not OLD_NAMES & set(_keys(dumped)), f"{name} writes an old name of the chunk index"
        # what resume does with a row read back from the output file
        assert cls.result_type.model_validate(json.loads(json.dumps(dumped))) == result


def _as_before_the_rename(record: dict[str, Any]) -> dict[str, Any]:
    """An output row as it was written before the rename (chunk verdicts only: evidence spans
    were already ``context_index``)."""
    record = json.loads(json.dumps(record))
    for chunk in (record.get("context_precision_details") or {}).get("chunks", []):
        chunk["rank"] = chunk.pop("context_index")
    for chunk in (record.get("chunk_recall_details") or {}).get("evaluated_chunks", []):
        chunk["id_chunk"] = chunk.pop("context_index")
    return record


def test_old_chunk_index_names_load_and_are_written_as_context_index():
    precision = ContextPrecisionResult.model_validate(
        {"score": 0.5, "mode": "question", "chunks": [{"rank": 1, "useful": True, "probability": 0.9}]})
    assert precision.chunks[0].context_index == 1
    assert precision.details()["chunks"][0]["context_index"] == 1 and "rank" not in precision.details()["chunks"][0]
    recall = ChunkRecallResult.model_validate({"score": 1.0, "evaluated_chunks": [
        {"id_chunk": 2, "is_relevant": True, "is_included": False, "missing_info": "x", "relevance": 0.8}]})
    assert recall.evaluated_chunks[0].context_index == 2
    assert recall.missing_information == [{"context_index": 2, "missing_info": "x"}]


def test_a_run_written_with_the_old_names_resumes_and_reports(metrics, tmp_path):
    """An output file from before the rename: resume rebuilds its rows (context_index), and the
    report explains them by the chunk's position, as for a new file."""
    rows = make_rows(6, seed=7)
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    chosen = [("context_precision", metrics["context_precision"]), ("chunk_recall", metrics["chunk_recall"])]
    out = tmp_path / "out.jsonl"
    full = evaluate(str(data), chosen, output=out, show_progress=False)
    old = [_as_before_the_rename(json.loads(line)) for line in out.read_text().splitlines()[:4]]
    assert any("rank" in json.dumps(r) for r in old) and any("id_chunk" in json.dumps(r) for r in old)
    out.write_text("".join(json.dumps(r) + "\n" for r in old))
    resumed = evaluate(str(data), chosen, output=out, resume=True, show_progress=False)
    assert [r.results for r in resumed] == [r.results for r in full]
    record = old[0]
    page = explain("context_precision", record)
    n = len(record["context_precision_details"]["chunks"])
    assert n and all(f"chunk {i}:" in page for i in range(n))
    assert "chunk ?" not in page


def test_reports_choose_the_renderer_by_metric_name():
    assert set(METRICS) <= set(RENDERERS)  # every registered metric has its own renderer
    assert renderer_for("llm_context_recall") is RENDERERS["context_recall"]  # a RAGAS alias column
    assert renderer_for("noise_sensitivity") is RENDERERS["ragchecker"]
    assert renderer_for("my_custom_metric") is generic
    # the details' keys do not choose: context precision's chunks read as chunks, whatever else is there
    record = {"context_precision": 1.0, "context_precision_reason": None,
              "context_precision_details": {"chunks": [{"context_index": 0, "useful": True, "probability": 0.9}],
                                            "sentences": []}}
    assert "chunk 0: useful" in explain("context_precision", record)
    custom = {"my_custom_metric": 0.5, "my_custom_metric_details": {"precision": 0.25, "claims": [{"text": "<x>"}]}}
    page = explain("my_custom_metric", custom)
    assert "0.250" in page and "&lt;x&gt;" in page and "<x>" not in page


def test_higher_is_better_reads_each_metrics_direction() -> None:
    # Comparisons and gates read the direction from the metric: RAGChecker's error figures
    # (noise sensitivity, hallucination, self-knowledge) improve downwards, everything else up.
    from localeval.metrics import registry
    from localeval.metrics.ragchecker import RAGChecker

    assert registry.higher_is_better("faithfulness") is True
    assert registry.higher_is_better("ragchecker") is True
    assert registry.higher_is_better("noise_sensitivity") is False
    assert registry.higher_is_better("noise_sensitivity_irrelevant") is False
    assert all(registry.higher_is_better(name) for name in registry.METRICS)
    assert RAGChecker.__dict__["higher_is_better"].fget is not None  # a per-instance figure
    assert registry.higher_is_better(RAGChecker(score="hallucination")) is False
    assert registry.higher_is_better(RAGChecker(score="recall")) is True
