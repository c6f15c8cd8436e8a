"""Intervals, human-label estimates, calibration and compare on real judgements: the shipped
judge on a dozen hand-labelled rows (`examples/labelled_answers.jsonl`), and the README's
worked example run as written."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from localeval.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "labelled_answers.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def dozen() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines()[:12]]


def test_summary_of_real_scores_carries_intervals_and_label_estimates(dozen, default_judge):
    from localeval import evaluate

    result = evaluate(dozen, ["faithfulness"], model=default_judge, show_progress=False)
    s = result.summary()["faithfulness"]
    labels = np.array([r["human_faithfulness"] for r in dozen], dtype=float)
    scores = np.array([r.results["faithfulness"].score for r in result.rows], dtype=float)
    # The judge agrees with the hand labels on these plain cases (a judgement, not plumbing).
    assert np.mean((scores >= 0.5) == (labels == 1)) >= 10 / 12
    assert s.ci_low <= s.mean <= s.ci_high and s.ci_high - s.ci_low > 0
    assert s.human.labelled == 12 and s.human.labels_mean == pytest.approx(labels.mean())
    # Every row is labelled: nothing unlabelled for the judge to add, PPI++ is the labels' mean.
    assert s.human.ppi_mean == pytest.approx(s.human.labels_mean) and s.human.ppi_lambda == 0.0
    assert "human labels" in str(result.summary())


def test_claim_details_give_the_scores_a_rescoring_gives(dozen, default_judge):
    from localeval.judge.session import JudgeSession
    from localeval.calibrate import _grid, _pieces_claims, _run

    with JudgeSession() as session:
        shipped = _run(dozen, "faithfulness", None, None, session, default_judge)
        strict = _run(dozen, "faithfulness", None, {"faithfulness": 0.9}, session, default_judge)
        lenient = _run(dozen, "faithfulness", None, {"faithfulness": 0.1}, session, default_judge)
        used = shipped[1][0]["threshold"]  # the threshold the run used, as its details record it
        # Faithfulness pieces a failed claim together from its parts, so its scores at other
        # thresholds cannot be read off the claims' probabilities: the grid re-scores them.
        assert _pieces_claims("faithfulness")
        grid = _grid(dozen, "faithfulness", None, "faithfulness", shipped, used, session, default_judge, [0.1, 0.9])
    assert np.array_equal(grid[0], lenient[0]) and np.array_equal(grid[1], strict[0])
    assert strict[0].mean() < lenient[0].mean()  # the threshold matters on these rows


def test_calibrate_refuses_a_dozen_labels_with_the_documented_minimum(tmp_path, dozen):
    data = tmp_path / "dozen.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in dozen))
    result = runner.invoke(app, ["calibrate", str(data), "-m", "faithfulness", "-o", str(tmp_path / "c.json")])
    assert result.exit_code == 2
    assert "needs at least 30 labelled rows" in result.output and "got 12" in result.output
    assert not (tmp_path / "c.json").exists()


def test_calibrate_refuses_to_write_over_its_labelled_rows(tmp_path, dozen):
    data = tmp_path / "labels.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in dozen))
    before = data.read_bytes()
    for extra in (["-o", str(data)], ["-o", str(tmp_path / "c.json"), "--cache", str(data)],
                  ["-o", str(tmp_path / "c.json"), "--cache", str(tmp_path / "c.json")]):
        result = runner.invoke(app, ["calibrate", str(data), "-m", "faithfulness", *extra])
        assert result.exit_code == 2 and ("is the input file" in result.output or "same file" in result.output), result.output
    assert data.read_bytes() == before and not (tmp_path / "c.json").exists()


def test_compare_real_runs_reads_the_drop_and_explains_it(tmp_path, dozen, default_judge):
    from localeval import evaluate
    from localeval.reports.significance import compare_files

    evaluate(dozen, ["faithfulness"], model=default_judge, show_progress=False, output=tmp_path / "a.jsonl")
    evaluate(dozen, ["faithfulness"], model=default_judge, show_progress=False, output=tmp_path / "b.jsonl",
             thresholds={"faithfulness": 0.995})
    (cmp,) = compare_files([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], resamples=300)
    m = cmp.metrics[0]
    assert cmp.pairing.by == "id" and m.n == 12
    assert m.difference == pytest.approx(m.mean_b - m.mean_a) and m.difference < 0
    assert m.worsened and all(c.b < c.a for c in m.worsened)
    assert m.worsened[0].explanation_b.startswith("unsupported: ")
    assert m.human is not None and m.human.estimate is not None  # both runs carry the same labels


def _worked_example() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## How far to trust a number"):]
    block = re.search(r"\*\*Worked example\*\*.*?```bash\n(.*?)\n```", section, re.S).group(1)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def test_readme_worked_example_runs(tmp_path, monkeypatch, default_judge):
    from localeval.judge.nli import NLIJudge

    commands = _worked_example()
    assert [c[1] for c in commands] == ["score", "calibrate", "score", "compare"]
    monkeypatch.chdir(tmp_path)
    judged: list[tuple] = []  # every pair the model itself scored, across the four steps
    model_scores = NLIJudge.score_distinct

    def counted(self, pairs, task, **kwargs):
        judged.extend((task, *p) for p in pairs)
        return model_scores(self, pairs, task, **kwargs)

    monkeypatch.setattr(NLIJudge, "score_distinct", counted)
    outputs = []
    for args in commands:
        args = [str(ROOT / a) if a.startswith("examples/") else a for a in args]
        result = runner.invoke(app, args[1:])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    # One verdict file for the three judged steps, and calibrate's 19 thresholds read it too:
    # no pair goes to the model twice.
    assert judged and len(set(judged)) == len(judged)
    calibration = json.loads((tmp_path / "calibration.json").read_text())
    fit = calibration["metrics"][0]
    assert fit["n"] == 42 and fit["labels"] == "binary" and 0.0 < fit["threshold"] < 1.0
    assert fit["judge"]["ba"] > 0.7 and fit["shipped"]["ba"] > 0.7  # real judgements on easy rows
    run_b = [json.loads(line) for line in (tmp_path / "run_b.jsonl").read_text().splitlines()]
    assert {r["faithfulness_details"]["threshold"] for r in run_b} == {fit["threshold"]}  # the file was used
    assert "human labels" in outputs[0] and "PPI++" in outputs[0]
    assert re.search(r"faithfulness\s*\S\s*42\s*\S", outputs[0])  # 42 labelled rows in the labels table
    assert "rows paired by id" in outputs[3]
