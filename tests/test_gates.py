"""CI gating: exit codes, --fail-under, --max-unscored, summary JSON, JUnit XML, assert_scores."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from localeval.cli.main import app
from localeval.runner.gates import check_gates, junit_xml, parse_fail_under
from localeval.runner.summary import MetricSummary, RunSummary

runner = CliRunner()

GOOD = {"reference": "The cat sat.", "retrieved_contexts": ["The cat sat on the mat."]}


def _summary(rows: int, scored: int, mean: float | None) -> RunSummary:
    unscored = rows - scored
    return RunSummary(rows=rows, metrics=[MetricSummary(
        metric="faithfulness", mean=mean, scored=scored, unscored=unscored,
        reasons={"missing required column(s)": unscored} if unscored else {})])


def test_gates_on_summaries():
    assert check_gates(_summary(4, 4, 0.8), {"faithfulness": 0.7}).passed
    low = check_gates(_summary(4, 4, 0.6), {"faithfulness": 0.7})
    assert [f.check for f in low.failures] == ["fail_under"] and "0.6000 is under 0.7" in low.failures[0].message
    assert [f.check for f in check_gates(_summary(0, 0, None)).failures] == ["rows"]
    nothing = check_gates(_summary(3, 0, None))
    assert [f.check for f in nothing.failures] == ["scored"] and "3 x missing required column(s)" in nothing.failures[0].message
    assert check_gates(_summary(4, 3, 0.9), max_unscored=25).passed  # 25 % is not more than 25 %
    over = check_gates(_summary(4, 2, 0.9), max_unscored=25)
    assert [f.check for f in over.failures] == ["max_unscored"] and "2 rows of 4 unscored (50.0 %" in over.failures[0].message
    assert "1 row of 4" in check_gates(_summary(4, 3, 0.9), max_unscored=0).failures[0].message


def test_fail_under_parsing_names_the_problem():
    assert parse_fail_under(["faithfulness=0.7"], ["faithfulness"]) == {"faithfulness": 0.7}
    with pytest.raises(ValueError, match="did you mean 'faithfulness'"):
        parse_fail_under(["faithfulnes=0.7"], ["faithfulness", "context_recall"])
    for bad in ("faithfulness", "faithfulness=high", "=0.7", "faithfulness=1.5"):
        with pytest.raises(ValueError, match="fail-under"):
            parse_fail_under([bad], ["faithfulness"])


def test_junit_has_one_case_per_metric_and_failures_as_elements():
    gates = check_gates(_summary(4, 4, 0.6), {"faithfulness": 0.7})
    root = ET.fromstring(junit_xml(_summary(4, 4, 0.6), gates))
    suite = root.find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["input"].find("failure") is None
    failure = cases["faithfulness"].find("failure")
    assert failure.get("type") == "fail_under" and "under 0.7" in failure.get("message")


def _run(tmp_path, rows, *extra):
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return runner.invoke(app, ["score", str(data), "-m", "context_recall", "-o", str(tmp_path / "out.jsonl"), "--no-progress", *extra])


def test_cli_exit_codes_for_ci(tmp_path, tiny_nli_dir):
    model = ["--model", str(tiny_nli_dir)]
    ok = _run(tmp_path, [GOOD, GOOD], *model)
    assert ok.exit_code == 0, ok.output
    broken = _run(tmp_path, [{"reference": 7}, {"retrieved_contexts": ["x"]}], *model)
    assert broken.exit_code == 1 and "gate failed: context_recall: no row could be scored" in broken.output
    empty = _run(tmp_path, [], *model)
    assert empty.exit_code == 1 and "the input has no rows" in empty.output
    impossible = _run(tmp_path, [GOOD], *model, "--fail-under", "context_recall=1.0", "--threshold", "entailment=1.0")
    assert impossible.exit_code == 1 and "mean 0.0000 is under 1.0" in impossible.output
    half = _run(tmp_path, [GOOD, {"retrieved_contexts": ["x"]}], *model, "--max-unscored", "10")
    assert half.exit_code == 1 and "1 row of 2 unscored (50.0 % > 10 %" in half.output
    # The output is still written when a gate fails: CI keeps the evidence.
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 2


def test_summary_json_and_junit_files_hold_gates_and_run_metadata(tmp_path, tiny_nli_dir):
    result = _run(tmp_path, [GOOD, {"retrieved_contexts": ["x"]}], "--model", str(tiny_nli_dir),
                  "--summary-json", str(tmp_path / "s.json"), "--junit-xml", str(tmp_path / "j.xml"),
                  "--fail-under", "context_recall=0.0", "--threshold", "entailment=0.6")
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["passed"] is True and doc["rows"] == 2
    assert doc["metrics"]["context_recall"]["scored"] == 1 and doc["metrics"]["context_recall"]["unscored"] == 1
    run = doc["run"]
    from localeval import __version__

    assert run["localeval_version"] == __version__ and run["date"].endswith("+00:00")
    [judge] = run["judges"]
    assert judge["name"] == tiny_nli_dir.name and len(judge["weights_hash"]) == 32
    assert run["metrics"]["context_recall"]["thresholds"] == [{"decision": "entailment", "key": "entailment", "value": 0.6, "source": "given"}]
    assert run["metrics"]["context_recall"]["options"]["max_units"] == 6
    cases = {c.get("name") for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")}
    assert cases == {"input", "context_recall"}


def test_paths_are_checked_before_the_judge_loads(tmp_path):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps(GOOD) + "\n")
    # "no-such-judge" would fail with its own error if the judge were loaded first.
    base = ["score", str(data), "--model", "no-such-judge"]
    for args, message in [
        (["-o", str(tmp_path / "out.xlsx")], "unknown output format '.xlsx'; supported: .jsonl"),
        (["-o", str(tmp_path / "missing" / "out.jsonl")], "does not exist"),
        (["-o", str(tmp_path)], "is a directory"),
        (["-o", str(tmp_path / "o.jsonl"), "--summary-json", str(tmp_path / "no" / "s.json")], "--summary-json"),
        (["-o", str(tmp_path / "o.jsonl"), "--junit-xml", str(tmp_path)], "is a directory"),
        (["-m", "faithfulnes"], "did you mean 'faithfulness'"),
        (["--fail-under", "context_recal=0.5"], "did you mean 'context_recall'"),
    ]:
        result = runner.invoke(app, base + args)
        assert result.exit_code == 2, (args, result.output)
        [line] = [x for x in result.output.splitlines() if x.strip()]
        assert line.startswith("error: ") and message in line, (args, result.output)
    assert not (tmp_path / "out.xlsx").exists()


def test_assert_scores_passes_and_fails_with_the_evidence(tiny_nli_dir):
    from localeval import Sample
    from localeval.testing import assert_scores

    model = str(tiny_nli_dir)
    result = assert_scores(Sample(**GOOD), {"context_recall": 0.0}, model=model)
    assert len(result) == 1
    with pytest.raises(AssertionError, match=r"context_recall: 1 of 1 row under 1.0\n  row 1: 0.0000  missing claims: 'The cat sat.'"):
        assert_scores(GOOD, {"context_recall": 1.0}, model=model, thresholds={"entailment": 1.0})
    with pytest.raises(AssertionError, match="unscored: missing required column"):
        assert_scores([GOOD, {"retrieved_contexts": ["x"]}], {"context_recall": 0.0}, model=model)
    assert_scores([GOOD, {"retrieved_contexts": ["x"]}], {"context_recall": 0.0}, model=model, allow_unscored=True)
    with pytest.raises(AssertionError, match="no row could be scored"):
        assert_scores([{"retrieved_contexts": ["x"]}], {"context_recall": 0.0}, model=model, allow_unscored=True)
    with pytest.raises(AssertionError, match=r"mean 0.0000 < 0.5 over 1 scored row"):
        assert_scores(GOOD, {"context_recall": 0.5}, model=model, mean=True, thresholds={"entailment": 1.0})


def test_readme_ci_command_fails_on_a_bad_run(tmp_path, monkeypatch, default_judge):
    import re
    import shlex
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    section = readme[readme.index("## CI: quality gates"):]
    block = re.search(r"```bash\n(.*?)\n```", section, re.S).group(1)
    command = block.split("\necho")[0].replace("\\\n", " ")
    args = shlex.split(command)
    assert args[:2] == ["localeval", "score"]
    args[2] = str(root / args[2])
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args[1:])
    assert result.exit_code == 1, result.output
    assert "gate failed: context_recall: mean 0.5000 is under 0.9" in result.output
    assert json.loads((tmp_path / "summary.json").read_text())["passed"] is False
    assert ET.parse(tmp_path / "localeval.xml").getroot().find("testsuite").get("failures") == "1"
