"""`--workers N` (`localeval.runner.workers`): the text side in forked processes, one judge
process; the same scores as one process, rows in input order, the run's counters and timers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

SHARED_DATA = Path(os.environ.get("LOCALEVAL_DATA_DIR") or REPO_ROOT.parent / "shared" / "data")

ROWS = [
    {"user_input": "Where was Marie Curie born?", "response": "Marie Curie was born in Warsaw.",
     "reference": "Marie Curie was born in Warsaw in 1867. She won two Nobel prizes.",
     "retrieved_contexts": ["Marie Curie was born in Warsaw in 1867.", "The weather was mild that spring."]},
    {"user_input": "Which organ produces insulin?", "response": "Insulin is made by the liver.",
     "reference": "Insulin is produced by the pancreas.",
     "retrieved_contexts": ["Insulin is produced by the pancreas.", "Many tourists visit the region."]},
    {"user_input": "What flows through Vienna?", "response": "The Danube flows through Vienna.",
     "reference": "The Danube flows through Vienna and Budapest.",
     "retrieved_contexts": ["The Danube flows through Vienna and Budapest."]},
    {"user_input": "Bad row", "retrieved_contexts": "not a list of texts"},
    {"user_input": "What is the highest mountain in Kenya?", "response": "Mount Kenya.",
     "reference": "Mount Kenya is the highest mountain in Kenya.",
     "retrieved_contexts": ["Mount Kenya is the highest mountain in Kenya.", "Nairobi is the capital."]},
]
METRICS = ["context_recall", "faithfulness", "context_relevance"]


def _scores(result) -> list[list[dict]]:
    return [[row.results[m].model_dump() for m in METRICS] for row in result.rows]


def test_workers_give_one_process_scores_in_order_and_count_the_run(tiny_judge, one_torch_thread):
    from localeval import evaluate
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions

    one = evaluate(ROWS, METRICS, model=tiny_judge, block_size=1, show_progress=False)
    with JudgeSession(RunOptions(model=tiny_judge, block_size=1)) as session:
        two = evaluate(ROWS, METRICS, session=session, show_progress=False, workers=2)
    assert [r.line for r in two.rows] == [r.line for r in one.rows] == list(range(1, len(ROWS) + 1))
    assert _scores(two) == _scores(one)
    assert two.rows[3].error and two.rows[3].results["faithfulness"].score is None  # the bad row keeps its reason
    # The workers' counters and text stages reach the caller's session; the judge's are its own.
    assert session.counters.pairs_requested >= session.counters.pairs_judged > 0
    assert session.counters.batches > 0 and session.timings.seconds["judge"] > 0
    assert session.timings.seconds["split"] > 0


def test_the_workers_tokenize_and_the_judge_process_only_pads_and_runs(tiny_judge, one_torch_thread, monkeypatch):
    """Tokenizing in the judge process capped a GPU run (benchmarks/results/gpu_session): with
    workers, every pair is tokenized in a worker, none in the process that runs the judge."""
    from localeval import evaluate
    from localeval.judge import formats
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions

    judge_process = os.getpid()
    encode = formats.JudgeFormat.encode

    def outside_the_judge_process(self, tokenizer, pairs, max_length):
        assert os.getpid() != judge_process, "a pair was tokenized in the judge process"
        return encode(self, tokenizer, pairs, max_length)

    one = evaluate(ROWS, METRICS, model=tiny_judge, block_size=2, show_progress=False)
    monkeypatch.setattr(formats.JudgeFormat, "encode", outside_the_judge_process)
    with JudgeSession(RunOptions(model=tiny_judge, block_size=2)) as session:
        two = evaluate(ROWS, METRICS, session=session, show_progress=False, workers=2)
    assert _scores(two) == _scores(one) and session.counters.pairs_judged > 0


def test_workers_share_the_cache_file_and_a_rerun_reads_it(tiny_judge, one_torch_thread, tmp_path):
    from localeval import evaluate
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions

    cache = tmp_path / "verdicts.sqlite"
    first = evaluate(ROWS, METRICS, model=tiny_judge, block_size=2, cache=cache, show_progress=False, workers=2)
    with JudgeSession(RunOptions(model=tiny_judge, block_size=2, cache=str(cache))) as session:
        again = evaluate(ROWS, METRICS, session=session, show_progress=False, workers=2)
    assert _scores(again) == _scores(first)
    assert session.counters.pairs_judged == 0  # every result was read back from the file


def test_a_run_with_fewer_blocks_than_workers_says_so_and_how_to_fix_it(tiny_judge, one_torch_thread):
    from localeval import evaluate

    with pytest.warns(RuntimeWarning, match=r"2 workers but 5 rows make 1 block\(s\) of 256.*block_size=3"):
        evaluate(ROWS, ["context_recall"], model=tiny_judge, show_progress=False, workers=2)
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*workers but")
        evaluate(ROWS, ["context_recall"], model=tiny_judge, block_size=2, show_progress=False, workers=2)


def test_default_workers_leave_the_judge_its_cores():
    from localeval.runner.workers import available_cores, default_workers

    assert default_workers("cpu") == 1
    assert default_workers("cuda") == max(1, available_cores() - 1)


def test_workers_must_be_positive(tiny_judge):
    from localeval import evaluate

    with pytest.raises(ValueError, match="workers"):
        evaluate(ROWS[:1], ["context_recall"], model=tiny_judge, show_progress=False, workers=0)


@pytest.mark.skipif(not (SHARED_DATA / "meta-eval" / "ragbench").is_dir(), reason="shared data folder not present")
def test_workers_equal_one_process_on_agreement_development_items(default_judge):
    """The agreement harness's RAGBench development rows (a sample), with the shipped judge
    in fp32: two workers give exactly the scores of one process."""
    from benchmarks.agreement.ragbench import load_ragbench
    from localeval import evaluate

    loaded = load_ragbench(SHARED_DATA / "meta-eval", {"hotpotqa": 2, "msmarco": 2})
    samples = [r.sample() for rows, _ in loaded.values() for r in rows]
    metrics = ["faithfulness", "context_relevance"]
    one = evaluate(samples, metrics, model=default_judge, block_size=1, show_progress=False)
    two = evaluate(samples, metrics, model=default_judge, block_size=1, show_progress=False, workers=2)
    assert [[r.results[m].model_dump() for m in metrics] for r in two.rows] == \
        [[r.results[m].model_dump() for m in metrics] for r in one.rows]
    assert all(r.results["faithfulness"].score is not None for r in one.rows)


def test_score_profile_prints_each_stage_and_workers_write_the_same_file(tmp_path, tiny_nli_dir):
    import json as js

    from typer.testing import CliRunner

    from localeval.judge.session import STAGES
    from localeval.cli.main import app

    data = tmp_path / "in.jsonl"
    data.write_text("".join(js.dumps(r) + "\n" for r in ROWS))
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        result = CliRunner().invoke(app, ["score", str(data), "-m", "context_recall,faithfulness", "-o", str(out),
                                          "--model", str(tiny_nli_dir), "--no-progress", "--chunk-size", "2",
                                          "--workers", workers, "--profile"])
        assert result.exit_code == 0, result.output
        table = result.stderr if hasattr(result, "stderr") else result.output
        for stage in (*STAGES, "other"):
            assert f"| {stage} |" in table
        assert "outside the judge" in table
        outs.append(out.read_text())
    assert outs[0] == outs[1]


def test_progress_moves_with_each_judged_batch_and_gives_an_eta(tiny_judge, one_torch_thread):
    """Rows move a chunk at a time; the plain display also moves with every forward pass."""
    import io

    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions
    from localeval.runner.progress import make_progress
    from localeval.runner.rows import make_row
    from localeval.runner.run import resolve_metrics, run_chunks

    stream = io.StringIO()
    options = RunOptions(model=tiny_judge, batch_size=2)
    named = resolve_metrics(["context_recall"], options)
    rows = [make_row(i, i + 1, dict(r)) for i, r in enumerate(ROWS[:3] * 2)]
    with make_progress(len(rows), stream=stream, every=0.0) as progress, JudgeSession(options) as session:
        for _ in run_chunks(rows, named, session=session, chunk_size=len(rows), progress=progress):
            pass
    lines = stream.getvalue().splitlines()
    before_rows = [line for line in lines if line.startswith("scored 0/")]
    assert before_rows and "pairs judged" in before_rows[-1]  # moved before the chunk was done
    assert int(before_rows[-1].split("rows/s, ")[1].split(" pairs")[0].replace(",", "")) > 0
    assert "ETA" in lines[-1] and lines[-1].startswith(f"scored {len(rows)}/")


def test_workers_refuse_models_of_their_own_on_a_gpu(tiny_judge, monkeypatch):
    """A forked worker cannot use CUDA: the embedding candidates on a GPU machine stay in one
    process by default and are refused with a reason when workers are asked for."""
    import importlib

    from localeval import evaluate

    evaluate_module = importlib.import_module("localeval.runner.evaluate")  # the module, not its function
    monkeypatch.setattr(evaluate_module, "_cuda_present", lambda: True)
    with pytest.raises(ValueError, match="CUDA"):
        evaluate(ROWS[:1], ["context_recall"], model=tiny_judge, candidates="embedding", show_progress=False,
                 workers=2)
    from localeval.options import RunOptions

    assert evaluate_module._workers(None, [], RunOptions(candidates="embedding")) == 1
