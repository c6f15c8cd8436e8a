"""The `localeval` command: every row comes back, with scores, reasons and details."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from localeval.cli.main import app

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag_eval.jsonl"
runner = CliRunner()


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_score_keeps_every_row_including_broken_ones(tmp_path, tiny_nli_dir):
    data = tmp_path / "in.jsonl"
    data.write_text(
        "\n".join(
            [
                json.dumps({"id": 1, "reference": "The cat sat.", "retrieved_contexts": ["The cat sat on the mat."]}),
                "{not json",
                json.dumps({"id": 3, "reference": 7, "retrieved_contexts": ["x"]}),
                json.dumps([1, 2]),
                "",
                json.dumps({"id": 5, "retrieved_contexts": ["x"]}),
            ]
        )
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["score", str(data), "-m", "context_recall", "-o", str(out), "--model", str(tiny_nli_dir), "--no-progress"])
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert len(rows) == 5  # the blank line is not a row; every other line is
    assert rows[0]["id"] == 1 and isinstance(rows[0]["context_recall"], float)
    assert rows[0]["context_recall_details"]["claims"][0]["text"] == "The cat sat."
    assert rows[1]["context_recall"] is None and "invalid JSON" in rows[1]["context_recall_reason"]
    assert rows[2]["context_recall"] is None and "reference" in rows[2]["context_recall_reason"]
    assert rows[3]["context_recall"] is None and "not a JSON object" in rows[3]["context_recall_reason"]
    assert rows[4]["id"] == 5 and "missing required column" in rows[4]["context_recall_reason"]
    # The summary table: metric, mean, 95% CI (two numbers), median, std, scored, unscored.
    assert re.search(r"context_recall\W+(\S+\W+){5}1\W+4\W", result.output), result.output


def test_unknown_metric_and_judge_fail_clearly(tmp_path, tiny_nli_dir):
    result = runner.invoke(app, ["score", str(EXAMPLE), "-m", "nope", "--model", str(tiny_nli_dir)])
    assert result.exit_code == 2 and "unknown metric" in result.output
    result = runner.invoke(app, ["score", str(EXAMPLE), "--model", "no-such-judge"])
    assert result.exit_code == 2 and "never downloads" in result.output


def test_models_lists_the_default_judge():
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0
    assert "* localeval-judge-minilm-l6" in result.output


def test_readme_main_job_runs_offline_on_the_default_judge(tmp_path, default_judge, no_network):
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(EXAMPLE), "--metrics", "context_recall", "--output", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in _rows(out)}
    assert set(rows) == {r["id"] for r in _rows(EXAMPLE)}
    assert rows["eiffel"]["context_recall"] == 1.0
    assert rows["nothing-retrieved"]["context_recall"] == 0.0
    assert rows["no-reference"]["context_recall"] is None
    assert 0.0 < rows["insulin-partial"]["context_recall"] < 1.0
