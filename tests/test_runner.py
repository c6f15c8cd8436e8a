"""The bulk runner and the `score` command: chunks, streaming output, resume after kill -9,
Parquet output, column maps and the verdict cache from the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from localeval.cli.main import app
from localeval.runner import read_jsonl, score_rows
from localeval.runner.output import read_done
from localeval.runner.run import iter_chunks

from bulk_helpers import THREE_LABELS, make_rows, sharp_tiny_model, write_jsonl

ROOT = Path(__file__).resolve().parents[1]
cli = CliRunner()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return sharp_tiny_model(tmp_path_factory.mktemp("sharp"), THREE_LABELS, {"max_length": 64})


def _score(*args: str) -> str:
    result = cli.invoke(app, ["score", *args, "--no-progress"])
    assert result.exit_code == 0, result.output
    return result.output


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_chunks_are_cut_on_absolute_positions(tmp_path):
    rows = list(read_jsonl(write_jsonl(tmp_path / "in.jsonl", make_rows(7))))
    assert [len(c) for c in iter_chunks(rows, 3)] == [3, 3, 1]
    # Skipping rows (as resume does) never moves a row into another chunk.
    assert [[r.index for r in c] for c in iter_chunks(rows[4:], 3)] == [[4, 5], [6]]


def test_score_rows_keeps_its_old_interface(tmp_path, model_dir):
    from localeval.judge import NLIJudge
    from localeval.metrics import ContextRecall

    rows = list(read_jsonl(write_jsonl(tmp_path / "in.jsonl", make_rows(5))))
    out = list(score_rows(rows, [ContextRecall(NLIJudge(model_dir, device="cpu"))], chunk_size=2))
    assert [r.line for r, _ in out] == [1, 2, 3, 4, 5] and all("context_recall" in res for _, res in out)


def test_resume_after_kill_loses_and_repeats_no_row(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(120))
    args = [str(data), "-m", "context_recall,faithfulness", "--model", str(model_dir), "--chunk-size", "4", "--batch-size", "2"]
    full = tmp_path / "full.jsonl"
    _score(*args, "-o", str(full))

    out = tmp_path / "out.jsonl"
    # Keep PYTHONPATH's network guard (tests/conftest.py): the killed run is offline too.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "localeval", "score", *args, "-o", str(out), "--no-progress"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while (not out.exists() or out.stat().st_size == 0) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    written = out.read_text().splitlines()
    assert 0 < len(written) < 120
    # A write torn by the kill: a half line at the end must be cut off, not kept.
    with out.open("a") as handle:
        handle.write(written[-1][: len(written[-1]) // 2])

    summary = _score(*args, "-o", str(out), "--resume")
    assert out.read_bytes() == full.read_bytes()
    lines = [r["_line"] for r in _lines(out)]
    assert lines == list(range(1, 121))
    assert "120 rows read" in summary  # the summary counts the rows kept from the first run too (some unscored)


def test_resume_refuses_other_metrics_and_parquet(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(3))
    out = tmp_path / "out.jsonl"
    _score(str(data), "-m", "context_recall", "--model", str(model_dir), "-o", str(out))
    result = cli.invoke(app, ["score", str(data), "-m", "faithfulness", "--model", str(model_dir), "-o", str(out), "--resume"])
    assert result.exit_code == 2 and "written by a different run (the metrics" in result.output
    result = cli.invoke(app, ["score", str(data), "--model", str(model_dir), "-o", str(tmp_path / "o.parquet"), "--resume"])
    assert result.exit_code == 2 and "JSON Lines" in result.output
    # Resuming a finished run scores nothing and changes nothing.
    before = out.read_bytes()
    _score(str(data), "-m", "context_recall", "--model", str(model_dir), "-o", str(out), "--resume")
    assert out.read_bytes() == before


def test_read_done_truncates_at_the_first_bad_line(tmp_path):
    path = tmp_path / "out.jsonl"
    good = json.dumps({"_line": 1, "m": 1.0}) + "\n"
    path.write_text(good + "{broken\n" + json.dumps({"_line": 3, "m": 0.0}) + "\n")
    assert read_done(path, ["m"]) == {1}
    assert path.read_text() == good


def test_cli_csv_column_map_cache_and_parquet_output(tmp_path, model_dir):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rows = [r for r in make_rows(8) if "retrieved_contexts" in r and r["reference"]]
    frame = pd.DataFrame({"gt": [r["reference"] for r in rows], "pred": [json.dumps({"ctx": r["retrieved_contexts"]}) for r in rows]})
    data = tmp_path / "in.csv"
    frame.to_csv(data, index=False)
    cache = tmp_path / "verdicts.sqlite"
    common = [str(data), "--model", str(model_dir), "--column-map", "reference=gt", "--column-map", "retrieved_contexts=pred.ctx", "--cache", str(cache)]
    _score(*common, "-o", str(tmp_path / "a.jsonl"))
    _score(*common, "-o", str(tmp_path / "b.parquet"))
    first = _lines(tmp_path / "a.jsonl")
    assert all(r["context_recall"] is not None for r in first)
    table = pd.read_parquet(tmp_path / "b.parquet")
    assert list(table["context_recall"]) == [r["context_recall"] for r in first]
    assert json.loads(table["_input"][0])["gt"] == rows[0]["reference"]
    assert json.loads(table["context_recall_details"][0]) == first[0]["context_recall_details"]
    assert cache.exists()
    bad = cli.invoke(app, ["score", str(data), "--model", str(model_dir), "--column-map", "reference"])
    assert bad.exit_code == 2 and "FIELD=COLUMN" in bad.output


def test_a_chunk_forgets_the_previous_chunks_derived_values(tmp_path, model_dir):
    """Units, claims and the like are remembered within a chunk only: a long run's memory
    must not grow with the rows it has scored."""
    from localeval.judge import NLIJudge
    from localeval.judge.session import JudgeSession
    from localeval.metrics import ContextRecall
    from localeval.runner.run import run_chunks

    rows = list(read_jsonl(write_jsonl(tmp_path / "in.jsonl", make_rows(6))))
    metric = [("context_recall", ContextRecall(NLIJudge(model_dir, device="cpu")))]

    def held_after_each_chunk(chunk_size: int) -> list[int]:
        with JudgeSession() as session:
            return [session.remembered for _ in run_chunks(rows, metric, session=session, chunk_size=chunk_size)]

    (whole,) = held_after_each_chunk(6)
    per_chunk = held_after_each_chunk(2)
    assert len(per_chunk) == 3 and whole > 0
    assert max(per_chunk) < whole  # kept across chunks, the last would hold all six rows' values
