"""The README's examples run as written: its Python API block, and the GitHub Actions job's
scoring step with the artefacts it uploads (issue 34, items 1 and 4)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml
from typer.testing import CliRunner

from localeval.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(section: str, language: str) -> str:
    text = README[README.index(section):]
    return re.search(rf"```{language}\n(.*?)\n```", text, re.S).group(1)


def test_the_python_api_example_scores_every_row(monkeypatch, default_judge):
    code = _block("## Python API", "python")
    monkeypatch.chdir(ROOT)  # its paths are the checkout's examples
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own example
    sample = scope["result"]
    assert sample.score == 1.0 and sample.missing_claims == []
    df = scope["df"]
    assert len(df) == 8
    # Every row has a response: faithfulness scores them all (the old example scored none).
    assert None not in df["faithfulness"].tolist() and df["faithfulness"].notna().all()
    assert None not in scope["run"]["faithfulness"] and len(scope["run"]["faithfulness"]) == 8


def _ci_job() -> dict:
    return yaml.safe_load(_block("A GitHub Actions job", "yaml"))


def test_the_ci_example_installs_the_package_not_a_checkout():
    steps = _ci_job()["jobs"]["localeval"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert not any("install.sh" in run for run in runs)
    [install] = [run for run in runs if "pip install" in run and "localeval" in run]
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    # The file `pip wheel --no-deps .` writes (tests/test_packaging.py builds it), with the
    # report extra the job's --report needs.
    assert f"localeval-{version}-py3-none-any.whl[report]" in install, install


def test_the_ci_example_scoring_step_runs_and_keeps_its_artefacts(tmp_path, monkeypatch, default_judge):
    steps = _ci_job()["jobs"]["localeval"]["steps"]
    [command] = [step["run"] for step in steps if "run" in step and step["run"].lstrip().startswith("localeval score")]
    args = shlex.split(command)
    # The job's own pipeline writes eval/answers.jsonl; here the README's answers stand in.
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "answers.jsonl").write_text((ROOT / "examples" / "rag_answers.jsonl").read_text())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args[1:])
    assert result.exit_code in (0, 1), result.output  # passed, or a gate failed: never a usage error
    [upload] = [step for step in steps if "upload-artifact" in step.get("uses", "")]
    assert upload.get("if") == "always()"
    for path in upload["with"]["path"].split():
        assert (tmp_path / path).is_file(), path
