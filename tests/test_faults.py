"""Faults an adversarial user can cause: output over input, poison rows, odd file formats,
misused resume, damaged caches, reserved column names, unwritable outputs.

Each test states the promise of docs/guarantees.md ("Faults") it proves."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from localeval.judge.cache import JudgementCache, _verdict_key, seal, unseal
from localeval.cli.main import app
from localeval.runner import evaluate
from localeval.runner.guard import OutputLock, record_path
from localeval.runner.output import CsvWriter
from localeval.runner.reading import MAX_DEPTH, csv_records, json_lines

from bulk_helpers import THREE_LABELS, make_rows, same_up_to, sharp_tiny_model, write_jsonl

cli = CliRunner()
GOOD = {"user_input": "Where is Paris?", "response": "Paris is in France.", "retrieved_contexts": ["Paris is the capital of France."], "reference": "Paris is in France."}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return sharp_tiny_model(tmp_path_factory.mktemp("sharp"), THREE_LABELS, {"max_length": 64})


def _score(model_dir: Path, *args: str):
    return cli.invoke(app, ["score", *args, "-m", "context_recall", "--model", str(model_dir), "--no-progress"])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


# ----------------------------------------------------------------------- 1. input is never destroyed
def test_output_or_report_over_the_input_is_refused_and_the_input_kept(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(3))
    before = data.read_bytes()
    link = tmp_path / "link.jsonl"
    os.link(data, link)  # same inode, another name
    for args in (["-o", str(data)], ["-o", str(data), "--resume"], ["-o", str(tmp_path / "." / "in.jsonl")],
                 ["-o", str(link)], ["-o", str(tmp_path / "out.jsonl"), "--report", str(data)]):
        result = _score(model_dir, str(data), *args)
        assert result.exit_code == 2, (args, result.output)
        assert "error:" in result.output and "Traceback" not in result.output
        assert data.read_bytes() == before, args
    assert not (tmp_path / "out.jsonl").exists()  # refused before anything was opened


def test_csv_output_is_staged_and_a_failed_run_keeps_the_previous_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("previous\n")
    writer = CsvWriter(target, ["context_recall"])
    writer.abort()
    assert target.read_text() == "previous\n" and list(tmp_path.iterdir()) == [target]
    writer = CsvWriter(target, ["context_recall"])
    assert target.read_text() == "previous\n"  # not touched until the run succeeds
    writer.close()
    assert target.read_text().startswith("_line,") and list(tmp_path.iterdir()) == [target]


# ----------------------------------------------------------------------- 2 and 6. poison rows, formats
def _poison_file(path: Path) -> tuple[Path, dict[int, str]]:
    """Good rows around poison lines; returns the file and, per poison line, its reason."""
    good = json.dumps(GOOD).encode()
    lines = [
        b"\xef\xbb\xbf" + good,  # 1: a BOM before the first row
        b'{"user_input": ' + _deep(5000).encode() + b"}",  # 2: beyond the decoder's recursion
        b'{"user_input": "Where is Paris?", "x": ' + _deep(MAX_DEPTH + 5).encode() + b"}",  # 3
        good.replace(b"Paris is in France.", b"Paris is \xff in France.", 1),  # 4: invalid UTF-8
        good.replace(b"Paris is in France.", b"Paris is\rin France.", 1),  # 5: a raw CR in a string
        good,  # 6
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, {2: "nested more than", 3: "nested more than", 4: "invalid UTF-8"}


def test_poison_rows_come_back_unscored_with_reason_and_line_the_rest_scored(tmp_path, model_dir):
    data, poison = _poison_file(tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    result = _score(model_dir, str(data), "-o", str(out))
    assert result.exit_code == 0, result.output
    rows = _lines(out)
    assert [r["_line"] for r in rows] == [1, 2, 3, 4, 5, 6]  # none lost, CR split nothing
    for row in rows:
        if row["_line"] in poison:
            assert row["context_recall"] is None and poison[row["_line"]] in row["context_recall_reason"]
            assert f"line {row['_line']}" in row["context_recall_reason"]
        else:
            assert row["context_recall"] is not None, row
    assert rows[0]["user_input"] == GOOD["user_input"]  # the BOM did not cost the first row
    assert "\r" in rows[4]["response"]
    # A resume reads the output back (deep rows are kept as text) and scores nothing again.
    again = _score(model_dir, str(data), "-o", str(out), "--resume")
    assert again.exit_code == 0 and len(_lines(out)) == 6


def test_poison_python_rows_do_not_stop_evaluate(model_dir):
    deep: list = []
    for _ in range(3000):
        deep = [deep]
    rows = [dict(GOOD), {**GOOD, "retrieved_contexts": deep}, {**GOOD, "meta": {"a": deep}}, dict(GOOD)]
    result = evaluate(rows, ["context_recall"], model=str(model_dir), show_progress=False)
    scores = result.scores("context_recall")
    assert scores[0] is not None and scores[3] is not None and scores[1] is None and scores[2] is None
    assert all("nested more than" in r.reason for r in result.results("context_recall")[1:3])
    assert len(json.dumps(result.to_records())) > 0  # every row can be written


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), min_size=1, max_size=8))
def test_any_bytes_give_one_row_per_non_blank_line(tmp_path, lines):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"\n".join(lines))
    found = list(json_lines(path))
    expected = [i + 1 for i, raw in enumerate(lines) if (raw[3:] if i == 0 and raw.startswith(b"\xef\xbb\xbf") else raw).strip()]
    assert [f.number for f in found] == expected
    for f in found:
        if f.error is None:
            assert json.loads(f.text, strict=False) == f.value
        else:
            assert f"line {f.number}" in f.error


def test_csv_bom_huge_cell_bad_byte_and_own_output_read_back(tmp_path, model_dir):
    data = tmp_path / "in.csv"
    big = "Paris is the capital of France. " * 5000  # 160,000 characters: over csv's default limit
    with open(data, "w", encoding="utf-8-sig", newline="") as handle:  # Excel's BOM
        writer = csv.writer(handle)
        writer.writerow(["user_input", "response", "retrieved_contexts", "reference"])
        for response, contexts in ((GOOD["response"], [big]), ("BAD", GOOD["retrieved_contexts"]), (GOOD["response"], GOOD["retrieved_contexts"])):
            writer.writerow([GOOD["user_input"], response, json.dumps(contexts), GOOD["reference"]])
        writer.writerow([GOOD["user_input"], GOOD["response"], _deep(5000), GOOD["reference"]])  # a list cell too deep to decode
    data.write_bytes(data.read_bytes().replace(b"BAD", b"B\xffD"))
    out = tmp_path / "out.csv"
    result = _score(model_dir, str(data), "-o", str(out))
    assert result.exit_code == 0, result.output
    first = [r.cells for r in csv_records(out)]  # csv.DictReader would stop at the long _input
    assert [bool(r["context_recall"]) for r in first] == [True, False, True, False]  # the BOM broke no header
    assert "invalid UTF-8" in first[1]["_error"] and "line 3" in first[1]["_error"]
    assert "nested more than" in first[3]["_error"]
    back = tmp_path / "back.jsonl"
    with pytest.warns(UserWarning, match="output column"):  # its score columns are namespaced
        result = _score(model_dir, str(out), "-o", str(back))  # localeval's own CSV, _input > 131,072
    assert result.exit_code == 0, result.output
    rows = _lines(back)
    assert [r["context_recall"] is not None for r in rows] == [True, False, True, False]


# ----------------------------------------------------------------------- 4. resume misuse
def test_resume_refuses_another_input_other_options_a_missing_record_and_a_second_writer(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(4))
    other = write_jsonl(tmp_path / "other.jsonl", make_rows(4, seed=5))
    out = tmp_path / "out.jsonl"
    assert _score(model_dir, str(data), "-o", str(out)).exit_code == 0
    written = out.read_bytes()
    assert json.loads(record_path(out).read_text())["input"]["kind"] == "file"
    cases = {
        "the input": [str(other), "-o", str(out), "--resume"],
        "the options (thresholds)": [str(data), "-o", str(out), "--resume", "--threshold", "entailment=0.9"],
    }
    for message, args in cases.items():
        result = _score(model_dir, *args)
        assert result.exit_code == 2 and message in result.output, result.output
    with OutputLock(out):  # another run is writing
        result = _score(model_dir, str(data), "-o", str(out), "--resume")
        assert result.exit_code == 2 and "another localeval run" in result.output
    assert out.read_bytes() == written  # nothing appended, nothing cut
    assert _score(model_dir, str(data), "-o", str(out), "--resume").exit_code == 0  # same run: fine
    assert out.read_bytes() == written
    record_path(out).unlink()
    result = _score(model_dir, str(data), "-o", str(out), "--resume")
    assert result.exit_code == 2 and "no run record" in result.output
    assert not Path(f"{out}.lock").exists()


def _written_before_options_were_recorded(record: dict) -> dict:
    """``record`` as localeval wrote it before the scoring core v2 and the options that came
    after it: no exhaustive, candidates, locate, screen or contrasts among the run's options,
    max_units as evaluate()'s keyword ("default"), metrics without candidates, locate, screen,
    contrasts or given_thresholds (the shape of a real record of that version)."""
    old = json.loads(json.dumps(record))
    for key in ("exhaustive", "candidates", "locate", "screen", "contrasts"):
        del old["options"][key]
    old["options"]["max_units"] = "default"
    for metric in old["metrics"]:
        for key in ("candidates", "locate", "screen", "contrasts", "given_thresholds"):
            metric["options"].pop(key, None)
    return old


def test_resume_an_output_whose_record_predates_options(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(6))
    full = tmp_path / "full.jsonl"
    assert _score(model_dir, str(data), "-o", str(full), "--locate", "judge", "--no-contrasts").exit_code == 0
    out = tmp_path / "out.jsonl"  # killed after three rows, by an earlier version
    out.write_text("".join(full.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")
    old = _written_before_options_were_recorded(json.loads(record_path(full).read_text()))
    record_path(out).write_text(json.dumps(old))
    # Evidence was located by judging each sentence then, and no contrast rule ran: today's
    # defaults (words, rules on) are another run, and the message names the options
    # (max_units "default" and the absent exhaustive, candidates are what that run did, so the
    # run's options do not differ).
    refused = _score(model_dir, str(data), "-o", str(out), "--resume")
    assert refused.exit_code == 2 and "metrics' options (context_recall: contrasts, locate)" in refused.output, refused.output
    assert "the options (" not in refused.output
    refused = _score(model_dir, str(data), "-o", str(out), "--resume", "--locate", "judge")
    assert refused.exit_code == 2 and "(context_recall: contrasts)" in refused.output, refused.output
    # What that run did resumes, to the file an uninterrupted run writes.
    resumed = _score(model_dir, str(data), "-o", str(out), "--resume", "--locate", "judge", "--no-contrasts")
    assert resumed.exit_code == 0, resumed.output
    assert same_up_to(_lines(out), _lines(full))  # the runner's promise: equal to 1e-6 across batches
    # An absent key stands for what the earlier run did, not for anything.
    record_path(out).write_text(json.dumps(old))
    for args, message in ((["--max-units", "3"], "the options (max_units)"),
                          (["--candidates", "bm25"], "the options (candidates)")):
        result = _score(model_dir, str(data), "-o", str(out), "--resume", "--locate", "judge", "--no-contrasts", *args)
        assert result.exit_code == 2 and message in result.output, result.output


def test_an_earlier_record_without_the_relevance_screen_means_every_sentence_judged(tmp_path):
    from localeval.runner.guard import check_run_record

    def record(metric_options: dict, run_options: dict) -> dict:
        return {"format": 1, "input": {"kind": "list", "rows": 2}, "column_map": {}, "judge_weights": ["w"],
                "metrics": [{"name": "context_relevance", "class": "localeval.metrics.context_relevance.ContextRelevance",
                             "options": {"exhaustive": False, "level": "sentence", "max_units": 6, "threshold": None,
                                         **metric_options}}],
                "options": {"decomposer": None, "precision": None, "thresholds": {"relevance": 0.6}, **run_options}}

    out = tmp_path / "out.jsonl"
    record_path(out).write_text(json.dumps(record({}, {"max_units": "default"})))
    now = {"candidates": "overlap", "locate": "judge", "contrasts": False, "given_thresholds": {"relevance": 0.6}}
    run_now = {"max_units": 6, "exhaustive": False, "candidates": "overlap", "locate": "judge", "contrasts": False}
    with pytest.raises(ValueError, match=r"context_relevance: screen\)"):
        check_run_record(out, record({**now, "screen": True}, {**run_now, "screen": True}))
    check_run_record(out, record({**now, "screen": False}, {**run_now, "screen": False}))  # as it ran then
    with pytest.raises(ValueError, match=r"context_relevance: given_thresholds\)"):  # run-wide thresholds then
        check_run_record(out, record({**now, "screen": False, "given_thresholds": {}}, {**run_now, "screen": False}))


# ----------------------------------------------------------------------- 5. damaged caches
def _flip_bytes(path: Path) -> bytes:
    """A real cache file with 200 bytes flipped after its header page."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = bytearray(path.read_bytes())
    for i in range(200):
        data[(4096 + i * 97) % len(data)] ^= 0xFF
    return bytes(data)


def test_damaged_cache_file_is_moved_aside_and_scores_do_not_change(tmp_path, model_dir):
    rows = make_rows(4)
    filled = tmp_path / "filled.sqlite"
    plain = evaluate(rows, ["context_recall"], model=str(model_dir), cache=filled, show_progress=False).scores("context_recall")
    flipped = _flip_bytes(filled)
    for damage in (b"this is not a database" * 10, b"SQLite format 3\x00" + b"\x00" * 50, flipped, flipped[: len(flipped) // 2]):
        path = tmp_path / "cache.sqlite"
        path.write_bytes(damage)
        with pytest.warns(RuntimeWarning, match="moved to"):
            scores = evaluate(rows, ["context_recall"], model=str(model_dir), cache=path, show_progress=False)
        assert scores.scores("context_recall") == plain
        assert list(tmp_path.glob("cache.sqlite.corrupt-*")), "the damaged file is kept aside"
        for old in tmp_path.glob("cache.sqlite*"):
            old.unlink()


@pytest.mark.parametrize("bad", [np.array([np.nan, 0.5, 0.5]), np.array([1.0]), np.array([0.9, 0.9, 0.9]),
                                 np.array([np.inf, 0.0, 0.0]), np.array([-0.5, 1.0, 0.5])])
def test_invalid_stored_verdicts_are_judged_again_and_overwritten(tmp_path, model_dir, bad):
    rows = make_rows(4)
    path = tmp_path / "cache.sqlite"
    plain = evaluate(rows, ["context_recall"], model=str(model_dir), cache=path, show_progress=False).scores("context_recall")
    db = sqlite3.connect(path)
    # Sealed with a valid checksum: what is tested is the verdict's own validation.
    for model, key in db.execute("SELECT model, key FROM judgements").fetchall():
        db.execute("UPDATE judgements SET probs = ? WHERE model = ? AND key = ?",
                   (seal(_verdict_key(model, key), bad.astype(np.float32).tobytes()), model, key))
    # The stored results would answer before any verdict is read: the damage is the verdicts'.
    db.execute("DELETE FROM analyses WHERE kind LIKE 'result/%'")
    db.commit()
    db.close()
    assert evaluate(rows, ["context_recall"], model=str(model_dir), cache=path, show_progress=False).scores("context_recall") == plain
    with JudgementCache(path) as cache:
        stored = [np.frombuffer(unseal(_verdict_key(m, k), b) or b"", dtype=np.float32)
                  for m, k, b in cache._db.execute("SELECT model, key, probs FROM judgements")]
    assert all(len(v) == 3 and np.isfinite(v).all() and abs(v.sum() - 1) < 1e-3 for v in stored)


# ----------------------------------------------------------------------- 8. names and unwritable outputs
def test_reserved_and_metric_named_input_columns_are_namespaced_with_a_warning(model_dir):
    row = {**GOOD, "_error": "mine", "context_recall": 0.123, "context_recall_reason": "mine too"}
    with pytest.warns(UserWarning, match="written as 'input._error'"):
        result = evaluate([row], ["context_recall"], model=str(model_dir), show_progress=False)
    out = result.to_records()[0]
    assert out["input._error"] == "mine" and out["input.context_recall"] == 0.123
    assert "_error" not in out and out["context_recall"] != 0.123


def test_both_question_and_user_input_say_which_one_is_scored(model_dir):
    with pytest.warns(UserWarning, match="'user_input' is scored, 'question' is only kept"):
        evaluate([{**GOOD, "question": "Something else?"}], ["context_recall"], model=str(model_dir), show_progress=False)


def test_directory_and_full_device_outputs_are_one_line_errors(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(2))
    result = _score(model_dir, str(data), "-o", str(tmp_path))
    assert result.exit_code == 2 and result.output.strip().count("\n") == 0 and "is a directory" in result.output
    if Path("/dev/full").exists():
        result = _score(model_dir, str(data), "-o", "/dev/full")
        # Refused before the judge loads (it has no output format), or when written: one line either way.
        assert result.exit_code == 2 and "cannot write" in result.output and "/dev/full" in result.output
        assert "Traceback" not in result.output and result.output.strip().count("\n") == 0


# ----------------------------------------------------------------------- 3. no silent truncation
def test_chunk_recall_reads_a_fact_anywhere_in_an_over_long_sentence_without_truncating(default_judge):
    from localeval.metrics import ChunkRecall

    filler = ", ".join(["the committee reviewed the annual budget report of the regional office in detail"] * 60)
    fact = "the Eiffel Tower is 330 metres tall"  # shorter than the pieces' 8-word overlap
    assert default_judge.count_tokens(filler) > 2 * default_judge.max_length  # one sentence, far over the input
    metric = ChunkRecall(default_judge)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, last, none = (
            metric.score_many([_sample("How tall is the Eiffel Tower?", context)])[0].evaluated_chunks[0]
            for context in (f"{fact}, {filler}.", f"{filler}, {fact}.", f"{filler}.")
        )
    assert not [w for w in caught if "truncated" in str(w.message)], "a pair was cut at the token limit"
    assert first.is_relevant and not none.is_relevant
    # Cut at the token limit, the fact-last sentence would read exactly as the filler alone.
    assert last.relevance > none.relevance + 0.05


def _sample(question: str, context: str):
    from localeval.schema import Sample

    return Sample(user_input=question, response="The Eiffel Tower is 330 metres tall.", retrieved_contexts=[context])


# ----------------------------------------------------------------------- 7. per-row budgets
def test_rows_over_a_budget_are_unscored_with_the_reason_and_the_budget_is_configurable(tmp_path, model_dir):
    huge = {**GOOD, "retrieved_contexts": ["Paris is the capital of France. " * 40_000]}  # 1.28M characters
    many = {**GOOD, "retrieved_contexts": ["Paris is in France."] * 1_500}
    rows = [dict(GOOD), huge, many, dict(GOOD)]
    result = evaluate(rows, ["context_recall"], model=str(model_dir), show_progress=False)
    scores = result.scores("context_recall")
    reasons = [r.reason or "" for r in result.results("context_recall")]
    assert scores[0] is not None and scores[3] is not None and scores[1] is None and scores[2] is None
    assert "max_row_chars=1,000,000" in reasons[1] and "max_contexts=1,000" in reasons[2]
    assert result.summary()["context_recall"].reasons == {"over budget": 2}
    unlimited = evaluate([many], ["context_recall"], model=str(model_dir), show_progress=False, max_contexts=None)
    assert unlimited.scores("context_recall")[0] is not None  # no context limit: scored in full
    tight = evaluate([dict(GOOD)], ["context_recall"], model=str(model_dir), show_progress=False, max_row_chars=50)
    assert "max_row_chars=50 " in (tight.results("context_recall")[0].reason or "")
    data = write_jsonl(tmp_path / "in.jsonl", [dict(GOOD)])
    out = tmp_path / "out.jsonl"
    # Every row over the budget: the rows are written, and the run fails its gate (nothing scored).
    assert _score(model_dir, str(data), "-o", str(out), "--max-row-chars", "10").exit_code == 1
    assert _lines(out)[0]["_error"].startswith("over budget: ")
