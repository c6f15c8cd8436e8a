"""The Ray engine on a local Ray instance (2 CPUs, one session for the module): the same
results as the local engine, row by row, including the rows that cannot be scored.

Network guard: Ray's own system processes (GCS, raylet, its dashboard and agents) start
without the guard, because Ray's dashboard probes cloud metadata addresses when it starts
(`ray._common.usage.usage_lib`, even with usage statistics off), which is Ray's behaviour, not
localeval's. Every Ray *worker*, where localeval runs and the judge scores rows, gets the guard
through the runtime environment, and a test checks that it is installed there; the test
process, the Ray driver, keeps it too.
"""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from localeval import evaluate
from localeval.runner.columns import clean_value
from localeval.runner.guard import record_path
from localeval.runner.ray_engine import quiet_backend

from bulk_helpers import FIVE_LABELS, make_rows, same_up_to, sharp_tiny_model

ray = pytest.importorskip("ray", reason="the Ray engine is an optional extra (it is in the test extra)")
pd = pytest.importorskip("pandas")

METRICS = ["context_recall", "chunk_recall", "context_relevance", "retrieval", "ragchecker"]


@pytest.fixture(scope="module")
def local_ray():
    import localeval_netguard
    from conftest import NETGUARD_DIR

    guarded = os.environ["PYTHONPATH"]
    system = os.pathsep.join(p for p in guarded.split(os.pathsep) if p and p != str(NETGUARD_DIR))
    worker_env = {"PYTHONPATH": guarded, localeval_netguard.LOG_ENV: os.environ[localeval_netguard.LOG_ENV]}
    os.environ["PYTHONPATH"] = system
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    # Started with the log levels the engine gives an instance it starts itself, so a CLI run
    # here prints what a user's would (else Ray's core prints an E-level line at the first actor).
    quiet_backend()
    try:
        ray.init(
            num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
            runtime_env={"env_vars": worker_env},
        )
    finally:
        os.environ["PYTHONPATH"] = guarded
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def judge_dir(tmp_path_factory):
    extra = {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64}
    return sharp_tiny_model(tmp_path_factory.mktemp("sharp5-ray"), FIVE_LABELS, extra)


def _input(tmp_path) -> str:
    """Rows that score, rows that cannot (wrong type, not an object, not JSON), and a blank line."""
    lines = [json.dumps(r) for r in make_rows(9)]
    lines[2] = json.dumps({"id": "bad", "reference": 3, "retrieved_contexts": ["a"]})
    lines.insert(5, "[1, 2]")
    lines.insert(7, "{not json")
    lines.insert(8, "")
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_workers_run_under_the_network_guard(local_ray):
    @local_ray.remote
    def guarded() -> bool:
        import localeval_netguard

        return localeval_netguard.installed()

    assert local_ray.get(guarded.remote())


def test_ray_equals_the_local_engine_reads_in_its_tasks_and_resumes_a_killed_local_run(
        local_ray, judge_dir, tmp_path, monkeypatch):
    """One input, three promises (one test: each Ray run starts its actors, the cost here):
    the Ray engine gives the local engine's results row by row, the rows that cannot be scored
    included; its read task, not the driver, parses the file (the driver's reader is broken
    below); and it resumes a killed local run to the same file."""
    data = _input(tmp_path)
    common = dict(model=str(judge_dir), device="cpu", block_size=3, show_progress=False, thresholds={"entailment": 0.55})
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    local = evaluate(data, METRICS, output=full, **common)

    def broken(*_: object, **__: object):
        raise AssertionError("the driver read the input's rows")

    monkeypatch.setattr("localeval.runner.rows.json_lines", broken)
    with pytest.raises(AssertionError):
        evaluate(data, METRICS, **common)  # the local engine reads in the driver
    remote = evaluate(data, METRICS, engine="ray", **common)
    assert len(remote) == len(local) == 11
    # scores, reasons and evidence, in input order (actors judge on one thread each: to 1e-6)
    assert same_up_to(remote.to_records(), local.to_records())
    assert remote.summary() == local.summary()
    reasons = [r.results["context_recall"].reason or "" for r in remote]
    assert sum(r.startswith(("invalid row", "invalid JSON")) for r in reasons) == 3  # kept, with why

    lines = full.read_bytes().splitlines(keepends=True)
    # Killed mid-line after 4 rows (3 a chunk: the resumed run starts mid-chunk), with the run
    # record a killed local run leaves: the Ray engine must read it as its own.
    part.write_bytes(b"".join(lines[:4]) + lines[4][:20])
    record_path(part).write_bytes(record_path(full).read_bytes())
    resumed = evaluate(data, METRICS, output=part, resume=True, engine="ray", **common)
    # No row lost, none written twice; the killed run's rows stay as written. The rows scored
    # again meet other batch neighbours than in the full run (the resumed run starts mid-chunk),
    # which on some CPUs moves an fp32 probability in its 7th decimal: equal to 1e-6.
    written = part.read_bytes().splitlines(keepends=True)
    assert len(written) == len(lines) and written[:4] == lines[:4]
    assert same_up_to([json.loads(line) for line in written], [json.loads(line) for line in lines])
    assert len(resumed) == 11 and resumed.summary().rows == 11


def test_cli_engine_ray_reads_and_writes_parquet_as_the_local_engine(local_ray, judge_dir, tmp_path, capfd, monkeypatch):
    """The parquet input form (the CSV rows of `_csv_input`, its bad byte as U+FFFD) through
    the CLI: the same output file from both engines, and quiet without -v."""
    from localeval.cli.main import app

    monkeypatch.delenv("LOCALEVAL_VERBOSE", raising=False)

    data = str(tmp_path / "in.parquet")
    pd.read_csv(_csv_input(tmp_path), encoding_errors="replace").to_parquet(data)
    cli = CliRunner()
    args = ["-m", ",".join(METRICS), "--model", str(judge_dir), "--device", "cpu", "--chunk-size", "4", "--no-progress"]
    for engine in ("local", "ray"):
        result = cli.invoke(app, ["score", data, *args, "--engine", engine, "-o", str(tmp_path / f"{engine}.parquet")])
        assert result.exit_code == 0, result.output
        said = result.output + capfd.readouterr().err
        # Quiet without -v: no Ray INFO line, no core_worker line, no loading bar (issue 34, item 7).
        assert not [line for line in said.splitlines() if " INFO " in line or "core_worker" in line
                    or "Loading weights" in line], said
    a, b = pd.read_parquet(tmp_path / "local.parquet"), pd.read_parquet(tmp_path / "ray.parquet")
    assert len(a) == len(b) == 8 and list(a["_line"]) == list(b["_line"])
    assert list(a.columns) == list(b.columns)
    for column in a.columns:  # clean_value: NaN -> None, arrays -> lists
        assert same_up_to([clean_value(v) for v in a[column]], [clean_value(v) for v in b[column]]), column


def test_ray_engine_takes_names_not_objects(local_ray, judge_dir):
    from localeval.metrics import ContextRecall

    with pytest.raises(TypeError, match="metric names"):
        evaluate([{"reference": "a."}], [ContextRecall(str(judge_dir))], engine="ray", show_progress=False)
    with pytest.raises(ValueError, match="unknown engine"):
        evaluate([{"reference": "a."}], METRICS, engine="spark", show_progress=False)
    with pytest.raises(TypeError, match="decomposer"):  # each actor loads its own from a path
        evaluate([{"reference": "a."}], METRICS, engine="ray", decomposer=object(), show_progress=False)


def _csv_input(tmp_path) -> str:
    """A CSV file whose cells span lines, with a row over the budget and an unreadable cell."""
    rows = make_rows(7, seed=3)
    frame = pd.DataFrame([{k: json.dumps(v) if isinstance(v, list) else v for k, v in r.items()} for r in rows])
    frame.loc[1, "reference"] = "A reference\nwritten over two lines."
    frame.loc[4, "reference"] = "x" * 300
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    path.write_bytes(path.read_bytes() + b'r9,"q?","bad \xff byte",,,,\n')
    return str(path)


@pytest.mark.parametrize("kind", ["csv", "memory"])  # parquet: through the CLI above
def test_ray_reads_every_input_form_as_the_local_engine(local_ray, tmp_path, kind):
    """What is read is the point here (every cell comes back in the records): the judge-free
    retrieval metric spares each Ray run its actors' judge (the judged metrics' equality:
    the tests above)."""
    data: object = _csv_input(tmp_path) if kind == "csv" else make_rows(8, seed=4)
    common = dict(block_size=3, show_progress=False, max_row_chars=250)
    local = evaluate(data, ["retrieval"], **common)
    remote = evaluate(data, ["retrieval"], engine="ray", **common)
    assert len(remote) == len(local) >= 8
    assert [r.line for r in remote] == [r.line for r in local]
    assert same_up_to(remote.to_records(), local.to_records())
    if kind == "csv":  # the unreadable record and the row over the budget keep their reasons
        reasons = [r.results["retrieval"].reason or "" for r in remote]
        assert any("invalid UTF-8" in r for r in reasons) and any("250" in r for r in reasons)


def test_the_read_tasks_warnings_reach_the_caller(local_ray, tmp_path):
    """Warnings of the readers, raised in the read task's worker, are given in the driver."""
    rows = [{**r, "retrieval": "an input column", "question": "also a question"} for r in make_rows(3, seed=9)]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.warns(UserWarning) as caught:
        result = evaluate(str(path), ["retrieval"], engine="ray", show_progress=False)
    messages = [str(w.message) for w in caught]
    assert any("'retrieval'" in m and "input.retrieval" in m for m in messages)
    assert any("'user_input' and 'question'" in m for m in messages)
    assert len(result) == 3 and result.to_records()[0]["input.retrieval"] == "an input column"


def test_ray_workers_split_and_pair_budget_equal_one_process(local_ray, judge_dir, tmp_path):
    """``workers=2``: two text actors and one judge actor give one process's results; and the
    Ray file reader's rows meet the pair budget as the local reader's do (estimated pairs per
    row here: 9 to 18 for context recall, so a budget of 10 holds some rows back)."""
    data = _input(tmp_path)
    metrics = ["context_recall", "context_relevance"]
    common = dict(model=str(judge_dir), device="cpu", block_size=3, show_progress=False, max_row_pairs=10)
    local = evaluate(data, metrics, **common)
    split = evaluate(data, metrics, engine="ray", workers=2, **common)
    assert len(split) == len(local) == 11
    assert same_up_to(split.to_records(), local.to_records())
    over = [r.line for r in split if (r.results["context_recall"].reason or "").startswith("over budget")]
    assert over and over == [r.line for r in local if (r.results["context_recall"].reason or "").startswith("over budget")]
    assert any(r.results["context_recall"].score is not None for r in split)
