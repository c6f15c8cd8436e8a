"""What a new user tripped over (issue 34, items 3 and 5-11): gates in the config file,
threshold keys no metric reads, a missing CUDA device, quiet loading, plurals and help,
declined answers, RAGAS' habits, assert_scores' failure message."""

from __future__ import annotations

import json
import sys
import types

import pytest
from typer.testing import CliRunner

from localeval import evaluate
from localeval.cli.main import app
from localeval.text.declined import DECLINED_REASON, is_declined

runner = CliRunner()
GOOD = {"reference": "The cat sat.", "retrieved_contexts": ["The cat sat on the mat."]}
QUESTION = "When was the Eiffel Tower finished?"
CONTEXTS = ["The Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed in 1889."]


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ------------------------------------------------------------------ 3: gates in the config file
def test_ci_gates_and_no_flags_live_in_the_config_file(tmp_path, tiny_nli_dir, monkeypatch):
    from localeval.config import load_config

    (tmp_path / "localeval.toml").write_text(
        'metrics = ["context_recall"]\nno_progress = true\nmax_unscored = 0\n'
        '[fail_under]\ncontext_recall = 1.0\n'
    )
    config = load_config(cwd=tmp_path).config
    assert config.progress is False and config.fail_under == {"context_recall": 1.0} and config.max_unscored == 0
    data = _jsonl(tmp_path / "in.jsonl", [GOOD, {"retrieved_contexts": ["x"]}])
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["score", str(data), "-o", "out.jsonl", "--model", str(tiny_nli_dir),
                                 "--threshold", "entailment=1.0"])
    # The file's gates fail the run: the mean is 0 (threshold 1.0) and one row went unscored.
    assert result.exit_code == 1, result.output
    assert "gate failed: context_recall: mean 0.0000 is under 1.0" in result.output
    assert "more than 0" in result.output or "unscored" in result.output
    # The list spelling of the flag works too; a flag beats the file.
    (tmp_path / "localeval.toml").write_text('fail_under = ["context_recall=0.0"]\n')
    passed = runner.invoke(app, ["score", str(data), "-o", "out2.jsonl", "--model", str(tiny_nli_dir), "--no-progress"])
    assert passed.exit_code == 0, passed.output
    (tmp_path / "localeval.toml").write_text("no_progress = 1\n")
    refused = runner.invoke(app, ["config"])
    assert refused.exit_code == 2 and "no_progress must be true or false" in refused.output


# ------------------------------------------------------------------ 5: threshold keys no metric reads
def test_a_threshold_no_chosen_metric_reads_is_refused_naming_what_they_read(tmp_path, tiny_nli_dir):
    data = _jsonl(tmp_path / "in.jsonl", [GOOD])
    result = runner.invoke(app, ["score", str(data), "-m", "context_recall,retrieval", "-o", str(tmp_path / "o.jsonl"),
                                 "--model", str(tiny_nli_dir), "--threshold", "relevance=0.5"])
    assert result.exit_code == 2
    [line] = [x for x in result.output.splitlines() if x.strip()]
    assert line == ("error: threshold 'relevance' is read by none of the chosen metrics "
                    "(context_recall reads context_recall, entailment)")
    assert not (tmp_path / "o.jsonl").exists()
    with pytest.raises(ValueError, match="read by none of the chosen metrics"):
        evaluate([GOOD], ["faithfulness"], model=str(tiny_nli_dir), thresholds={"context_recall": 0.5},
                 show_progress=False)
    # A key a chosen metric reads is accepted.
    ok = evaluate([GOOD], ["context_recall"], model=str(tiny_nli_dir), thresholds={"entailment": 0.5}, show_progress=False)
    assert len(ok) == 1


def test_a_config_file_threshold_no_metric_reads_is_said_and_left_out(tmp_path, tiny_nli_dir, monkeypatch):
    # The file serves runs of other metrics too: a note, not a refusal (a flag is refused).
    (tmp_path / "localeval.toml").write_text("[thresholds]\nrelevance = 0.6\nentailment = 0.4\n")
    data = _jsonl(tmp_path / "in.jsonl", [GOOD])
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["score", str(data), "-o", "o.jsonl", "--model", str(tiny_nli_dir), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert ("note: threshold 'relevance' from the configuration file is read by none of this run's metrics "
            "(context_recall reads context_recall, entailment); left out") in result.output
    record = json.loads((tmp_path / "o.jsonl.run.json").read_text())
    assert record["options"]["thresholds"] == {"entailment": 0.4}


# ------------------------------------------------------------------ 6: no CUDA device
def test_cuda_on_a_machine_without_it_is_one_line_and_exit_2(tmp_path, tiny_nli_dir, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    data = _jsonl(tmp_path / "in.jsonl", [GOOD])
    result = runner.invoke(app, ["score", str(data), "-o", str(tmp_path / "o.jsonl"), "--model", str(tiny_nli_dir),
                                 "--device", "cuda"])
    assert result.exit_code == 2
    [line] = [x for x in result.output.splitlines() if x.strip()]
    assert line.startswith("error: no CUDA device is available") and "--device cpu" in line
    bad = runner.invoke(app, ["score", str(data), "--model", str(tiny_nli_dir), "--device", "gpu"])
    assert bad.exit_code == 2 and "is not a torch device" in bad.output


# ------------------------------------------------------------------ 7: quiet unless -v
def test_loading_is_quiet_by_default_and_shown_with_verbose(tiny_nli_dir, capfd, monkeypatch):
    from localeval.judge import NLIJudge

    monkeypatch.delenv("LOCALEVAL_VERBOSE", raising=False)
    NLIJudge(tiny_nli_dir, device="cpu")
    quiet = capfd.readouterr().err
    assert "Loading weights" not in quiet and "Materializing" not in quiet
    monkeypatch.setenv("LOCALEVAL_VERBOSE", "1")
    NLIJudge(tiny_nli_dir, device="cpu")
    assert "Loading weights" in capfd.readouterr().err  # the library's own bar, when asked for


def test_ray_is_started_quiet_by_default(monkeypatch):
    from localeval.runner import ray_engine

    calls = []
    fake = types.SimpleNamespace(is_initialized=lambda: False, init=lambda **kw: calls.append(kw))
    monkeypatch.delenv("LOCALEVAL_VERBOSE", raising=False)
    monkeypatch.delenv("RAY_BACKEND_LOG_LEVEL", raising=False)
    ray_engine._connect(fake, None)
    assert calls[-1]["log_to_driver"] is False and calls[-1]["logging_level"] >= 40
    import os

    assert os.environ["RAY_BACKEND_LOG_LEVEL"] == "fatal"  # the C++ core's E-level lines
    monkeypatch.setenv("LOCALEVAL_VERBOSE", "1")
    ray_engine._connect(fake, "auto")
    assert calls[-1]["log_to_driver"] is True and calls[-1]["address"] == "auto"


# ------------------------------------------------------------------ 8: plurals, counts, help
def test_counts_agree_and_help_keeps_its_text(tmp_path, tiny_nli_dir):
    from localeval.reports.explain import _of
    from localeval.runner.summary import MetricSummary, RunSummary

    assert _of(1, 1, "claim") == "1 of 1 claim" and _of(1, 3, "claim") == "1 of 3 claims"
    none = RunSummary(rows=3, metrics=[MetricSummary(metric="faithfulness", mean=None, scored=0, unscored=3, reasons={})])
    assert none.headline() == "3 rows read, none scored"
    data = _jsonl(tmp_path / "in.jsonl", [{"user_input": "q"}] * 3)
    result = runner.invoke(app, ["score", str(data), "-o", str(tmp_path / "o.jsonl"), "--model", str(tiny_nli_dir)])
    assert "3 rows read, none scored" in result.output and "3 rows scored" not in result.output
    text = runner.invoke(app, ["score", "--help"], terminal_width=100).output
    assert "[tool.localeval]" in text and "<bool>" not in text and "--screen / --no-screen" in text
    top = runner.invoke(app, ["--help"], terminal_width=100).output
    # One line per command, never a sentence cut by the docstring's own line breaks.
    for line in top.split("Commands:")[1].splitlines():
        assert not line.strip() or line.startswith("  ") and not line.startswith("          "), top


# ------------------------------------------------------------------ 9: declined answers
@pytest.mark.parametrize("answer", [
    "I'm sorry, the provided documents do not say.", "I don't know.",
    "The context does not contain information about the opening hours.",
    "Unfortunately, I cannot answer that based on the provided context.",
    "Based on the documents provided, there is no information about his birth date.",
    "The provided context does not mention when the bridge opened. I recommend checking the official website.",
])
def test_declined_answers_are_recognised(answer):
    assert is_declined(answer)


@pytest.mark.parametrize("answer", [
    "I'm sorry to say the museum closed in 1990.", "No, the museum is closed on Mondays.",
    "I don't know the exact year, but it was finished in 1889.", "The context says the tower is 330 metres tall.",
    "Unknown soldiers are buried there.", "Yes.", "",
])
def test_answers_are_not_declined(answer):
    assert not is_declined(answer)


def test_a_declined_answer_is_unscored_and_counted_not_a_hallucination(default_judge):
    rows = [
        {"user_input": QUESTION, "response": "I'm sorry, the provided documents do not say.", "retrieved_contexts": CONTEXTS,
         "reference": "It was completed in 1889."},
        {"user_input": QUESTION, "response": "It was finished in 1889.", "retrieved_contexts": CONTEXTS,
         "reference": "It was completed in 1889."},
        {"user_input": QUESTION, "response": "It was finished in 1925 by Gustave Klimt.", "retrieved_contexts": CONTEXTS,
         "reference": "It was completed in 1889."},
    ]
    metrics = ["faithfulness", "factual_correctness", "answer_relevancy", "context_recall"]
    run = evaluate(rows, metrics, model=default_judge, show_progress=False)
    for name in ("faithfulness", "factual_correctness", "answer_relevancy"):
        declined = run.rows[0].results[name]
        assert declined.score is None and declined.reason == DECLINED_REASON, name
        assert run.summary()[name].reasons == {DECLINED_REASON: 1}
    assert run["faithfulness"][1] == 1.0 and run["faithfulness"][2] < 1.0  # the hallucination still scores low
    assert run["context_recall"][0] is not None  # a metric that does not read the response is unaffected
    assert f"1 x {DECLINED_REASON}" in str(run.summary())
    # Switched off: scored as before (the run option and the metric option).
    scored = evaluate(rows[:1], ["faithfulness"], model=default_judge, score_declined=True, show_progress=False)
    assert scored["faithfulness"][0] is not None
    from localeval.metrics import Faithfulness

    assert Faithfulness(default_judge, score_declined=True).score(rows[0]).score is not None
    assert Faithfulness(default_judge).score(rows[0]).reason == DECLINED_REASON


def test_the_cli_shows_declined_answers_in_the_summary(tmp_path, tiny_nli_dir):
    data = _jsonl(tmp_path / "in.jsonl", [{"response": "I don't know.", "retrieved_contexts": ["x"]},
                                          {"response": "I cannot answer that.", "retrieved_contexts": ["x"]}])
    result = runner.invoke(app, ["score", str(data), "-m", "faithfulness", "-o", str(tmp_path / "o.jsonl"),
                                 "--model", str(tiny_nli_dir)], terminal_width=200)
    assert f"2 x {DECLINED_REASON}" in result.output
    on = runner.invoke(app, ["score", str(data), "-m", "faithfulness", "-o", str(tmp_path / "o2.jsonl"),
                             "--model", str(tiny_nli_dir), "--score-declined"], terminal_width=200)
    assert DECLINED_REASON not in on.output and "2 rows scored" in on.output


# ------------------------------------------------------------------ 10: RAGAS habits
@pytest.fixture()
def fake_ragas(monkeypatch):
    """Classes named like ragas', in a module named like ragas' (ragas itself not needed)."""
    module = types.ModuleType("ragas.metrics._fake")

    def make(name, metric_name=None, **attributes):
        cls = type(name, (), {"__module__": module.__name__, **attributes})
        if metric_name:
            cls.name = metric_name
        return cls

    module.Faithfulness = make("Faithfulness", "faithfulness")
    module.LLMContextRecall = make("LLMContextRecall", "context_recall")
    module.FactualCorrectness = make("FactualCorrectness", "factual_correctness", mode="precision")
    module.BleuScore = make("BleuScore", "bleu_score")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module


def test_ragas_metric_objects_and_the_dataset_keyword(fake_ragas, tiny_nli_dir):
    with pytest.warns(UserWarning, match=r"RAGAS Faithfulness scored by localeval's 'faithfulness'") as said:
        run = evaluate(dataset=[{**GOOD, "response": "The cat sat."}],
                       metrics=[fake_ragas.Faithfulness(), fake_ragas.LLMContextRecall()],
                       model=str(tiny_nli_dir), show_progress=False)
    assert run.metrics == ["faithfulness", "context_recall"]
    assert all("\n" not in str(w.message) for w in said)  # one line each
    with pytest.warns(UserWarning, match="'factual_correctness_precision'"):
        from localeval.runner.run import resolve_metrics

        [(name, metric)] = resolve_metrics([fake_ragas.FactualCorrectness()], load_judge=False)
    assert metric.mode == "precision"
    with pytest.raises(TypeError, match="BleuScore is a RAGAS metric object .* no localeval counterpart"):
        evaluate(dataset=[GOOD], metrics=[fake_ragas.BleuScore()], show_progress=False)
    with pytest.raises(TypeError, match="not both"):
        evaluate([GOOD], ["retrieval"], dataset=[GOOD])
    with pytest.raises(TypeError, match="needs metrics"):
        evaluate(dataset=[GOOD])


# ------------------------------------------------------------------ 11: assert_scores
def test_assert_scores_names_rows_by_id_and_lists_only_the_failing(tiny_nli_dir):
    from localeval.testing import assert_scores

    rows = [{**GOOD, "id": "cat-ok"}, {**GOOD, "id": "cat-2"}, {"retrieved_contexts": ["x"], "id": "no-reference"}, GOOD]
    with pytest.raises(AssertionError) as failed:
        assert_scores(rows, {"context_recall": 0.5}, model=str(tiny_nli_dir), thresholds={"entailment": 1.0})
    message = str(failed.value)
    assert "id 'cat-ok' (line 1): 0.0000  missing claims: 'The cat sat.'" in message
    assert "id 'no-reference' (line 3): n/a  unscored: missing required column(s): reference" in message
    assert "row 4: 0.0000" in message  # no id: the line
    assert "def assert_scores" not in message
    with pytest.raises(AssertionError) as passing_rows:
        assert_scores([{**GOOD, "id": "fine"}, {"retrieved_contexts": ["x"], "id": "bad"}], {"context_recall": 0.0},
                      model=str(tiny_nli_dir))
    assert "fine" not in str(passing_rows.value) and "'bad'" in str(passing_rows.value)


def test_assert_scores_failure_shows_no_helper_source(tiny_nli_dir):
    from localeval.testing import assert_scores

    with pytest.raises(AssertionError) as failed:
        assert_scores([{"id": "r1", **GOOD}], {"context_recall": 0.5}, model=str(tiny_nli_dir),
                      thresholds={"entailment": 1.0})
    shown = str(failed.getrepr(style="long", tbfilter=True))  # what pytest prints for a failing test
    assert "id 'r1' (line 1)" in shown
    assert "options.setdefault" not in shown and "for name, bound in minimums.items()" not in shown, shown
