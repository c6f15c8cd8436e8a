"""Input forms users have, the Python API's RAGAS habits, and the CLI's manners."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from localeval import aevaluate, evaluate
from localeval.cli.main import app
from localeval.runner.columns import ColumnMap
from localeval.runner.rows import make_row

runner = CliRunner()
IDS = {"retrieved_context_ids": ["a", "b"], "reference_context_ids": ["a"]}


def _row(**fields):
    return make_row(0, 1, fields, ColumnMap())


def test_pandas_to_csv_lists_are_read_safely(tmp_path):
    frame = pd.DataFrame({"reference": ["It's here."], "retrieved_contexts": [["it's \"quoted\"", "b"]],
                          "retrieved_context_ids": [["a", 2]], "reference_context_ids": [["a"]]})
    path = tmp_path / "pandas.csv"
    frame.to_csv(path, index=False)
    assert "['" in path.read_text() or "[\"" in path.read_text()  # Python repr, not JSON
    result = evaluate(str(path), ["retrieval"], show_progress=False)
    assert result["retrieval"] == [1.0]
    row = _row(retrieved_contexts="['it\\'s', \"b\"]")
    assert row.error is None and row.sample.retrieved_contexts == ["it's", "b"]
    # Only literals, and only lists of strings (or numbers, for IDs): never evaluated code.
    for text in ("[__import__('os').getcwd()]", "[{'a': 1}]", "[('a',)]", "['a'] + ['b']", "[True]"):
        bad = _row(retrieved_contexts=text)
        assert bad.sample is None and "neither a JSON list nor a Python list of strings" in bad.error, text


def test_a_plain_string_where_a_list_belongs_gets_a_hint():
    row = _row(reference="x", retrieved_contexts="The cat sat on the mat.")
    assert row.sample is None
    assert "retrieved_contexts must be a list of strings, got a plain string" in row.error
    assert '["The cat sat on th..."]' in row.error


def test_result_by_metric_name_summary_text_and_aevaluate():
    rows = [IDS, {"retrieved_context_ids": ["b"], "reference_context_ids": ["a"]}, {"reference": "x"}]
    result = evaluate(rows, ["retrieval"], show_progress=False)
    assert result["retrieval"] == [1.0, 0.0, None]
    assert result[0].line == 1
    with pytest.raises(KeyError, match="did you mean 'retrieval'"):
        result["retrievl"]
    text = str(result.summary())
    assert "RunSummary(" not in text and "metric=" not in text
    assert "retrieval" in text and "0.5000" in text and "1 x missing required column(s)" in text and "3 rows" in text
    assert asyncio.run(aevaluate([IDS], "retrieval", show_progress=False))["retrieval"] == [1.0]


def test_ragas_metric_objects_get_the_localeval_name():
    pytest.importorskip("ragas")  # installed by the test extra
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ragas.metrics import (AnswerRelevancy, Faithfulness, LLMContextPrecisionWithReference, LLMContextRecall,
                                   SummarizationScore)

    from localeval.runner.run import resolve_metrics

    # Each object with a counterpart is scored by localeval's metric, said in one line.
    for obj, name in ((Faithfulness(), "faithfulness"), (LLMContextRecall(), "context_recall"),
                      (LLMContextPrecisionWithReference, "llm_context_precision_with_reference"),  # the class, too
                      (AnswerRelevancy(), "answer_relevancy")):
        with pytest.warns(UserWarning, match=f"scored by localeval's '{name}'"):
            assert [n for n, _ in resolve_metrics([obj], load_judge=False)][0] in (name, resolve_metrics([name], load_judge=False)[0][0])
    with pytest.raises(TypeError, match="no localeval counterpart"):
        evaluate([IDS], [SummarizationScore], show_progress=False)


def test_output_format_is_never_guessed(tmp_path):
    with pytest.raises(ValueError, match=r"unknown output format '.xlsx'; supported: .jsonl, .ndjson, .json, .csv, .parquet"):
        evaluate([IDS], "retrieval", output=tmp_path / "out.xlsx", show_progress=False)
    assert not (tmp_path / "out.xlsx").exists()


def test_version_help_and_plurals(tmp_path, tiny_nli_dir):
    from localeval import __version__

    assert runner.invoke(app, ["--version"]).output.strip() == f"localeval {__version__}"
    text = runner.invoke(app, ["score", "--help"], terminal_width=200).output
    for name in ("context_recall", "faithfulness", "chunk_recall", "context_entity_recall", "llm_context_recall"):
        assert name in text
    assert "``" not in text and "``" not in runner.invoke(app, ["--help"]).output
    assert "``" not in runner.invoke(app, ["config", "--help"]).output
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"reference": "The cat sat.", "retrieved_contexts": ["The cat sat."]}) + "\n")
    result = runner.invoke(app, ["score", str(data), "-o", str(tmp_path / "o.jsonl"), "--model", str(tiny_nli_dir), "--no-progress"])
    assert result.exit_code == 0 and "1 row scored" in result.output and "1 rows" not in result.output


def test_no_progress_is_quiet_while_the_judge_loads(tmp_path, tiny_nli_dir, capfd):
    from localeval.runner.run import resolve_metrics
    from localeval.runner.progress import quiet_loading
    from transformers.utils import logging as hf_logging

    with quiet_loading(True):
        resolve_metrics(["faithfulness"], model=str(tiny_nli_dir) + "/", device="cpu", precision="fp32")
        assert not hf_logging.is_progress_bar_enabled()
    assert hf_logging.is_progress_bar_enabled()  # restored
    assert "Loading weights" not in capfd.readouterr().err
