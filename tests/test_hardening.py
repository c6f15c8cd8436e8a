"""Regression tests for the defects an adversarial run found (issue 34, items 13-23): files a
run writes over files it reads, caches that cannot be used or were damaged, locks through
links, values Python cannot decode, reserved columns, staged files left behind, signals."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from localeval.judge.cache import CacheSchemaError, JudgementCache
from localeval.cli.main import app
from localeval.runner import evaluate
from localeval.runner.guard import OutputLock, record_path
from localeval.runner.output import CsvWriter, JsonlWriter
from localeval.runner.reading import json_lines

from bulk_helpers import THREE_LABELS, make_rows, sharp_tiny_model, write_jsonl

cli = CliRunner()
GOOD = {"id": "paris", "user_input": "Where is Paris?", "response": "Paris is in France.",
        "retrieved_contexts": ["Paris is the capital of France."], "reference": "Paris is in France."}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return sharp_tiny_model(tmp_path_factory.mktemp("sharp"), THREE_LABELS, {"max_length": 64})


def _score(model_dir: Path, *args: str):
    return cli.invoke(app, ["score", *args, "-m", "context_recall", "--model", str(model_dir), "--no-progress"])


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ----------------------------------------------------------------------- 13, 14. paths a run writes
def test_every_written_path_is_checked_against_every_read_or_written_one(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(3))
    out = tmp_path / "out.jsonl"
    assert _score(model_dir, str(data), "-o", str(out)).exit_code == 0
    link = tmp_path / "link.jsonl"
    os.link(data, link)
    side = tmp_path / "s.json"
    cases = [
        ["--summary-json", str(data)], ["--junit-xml", str(data)], ["--summary-json", str(link)],
        ["--summary-json", str(out)], ["--junit-xml", str(out)], ["--summary-json", str(record_path(out))],
        ["--summary-json", str(side), "--junit-xml", str(side)], ["--report", str(side), "--summary-json", str(side)],
        ["--cache", str(out)], ["--cache", str(out), "--resume"], ["--cache", str(data)], ["--cache", str(link)],
        ["--summary-json", f"{out}.lock"],
    ]
    before = _snapshot(tmp_path)
    for args in cases:
        result = _score(model_dir, str(data), "-o", str(out), *args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
        assert _snapshot(tmp_path) == before, args  # nothing overwritten, renamed or created
    with pytest.raises(ValueError, match="is the input file"):
        evaluate(str(data), ["context_recall"], model=str(model_dir), cache=str(data), show_progress=False)
    assert _snapshot(tmp_path) == before


def test_devices_may_take_several_outputs(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(2))
    result = _score(model_dir, str(data), "-o", str(tmp_path / "out.jsonl"), "--summary-json", "/dev/null",
                    "--junit-xml", "/dev/null")
    assert result.exit_code == 0, result.output


# ----------------------------------------------------------------------- 15. one lock per file
def test_a_link_to_an_output_being_written_is_refused(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(2))
    target = tmp_path / "x.jsonl"
    symlink, hardlink = tmp_path / "y.jsonl", tmp_path / "z.jsonl"
    with OutputLock(target) as lock:  # a run that will create x.jsonl
        target.write_text("")
        lock.pin()  # the writer created the file: its inode is locked too
        symlink.symlink_to(target)
        os.link(target, hardlink)
        for name in (symlink, hardlink):
            result = _score(model_dir, str(data), "-o", str(name))
            assert result.exit_code == 2 and "another localeval run" in result.output, (name, result.output)
        assert target.read_text() == ""
    assert _score(model_dir, str(data), "-o", str(hardlink)).exit_code == 0  # released: fine
    assert len(target.read_text().splitlines()) == 2


# ----------------------------------------------------------------------- 16. values Python cannot decode
def test_a_huge_integer_row_is_unscored_and_the_rest_scored(tmp_path, model_dir):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps(GOOD) + "\n" + '{"user_input": "q", "n": ' + "7" * 5000 + "}\n" + json.dumps(GOOD) + "\n")
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    result = _score(model_dir, str(data), "-o", str(out))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["context_recall"] is None for r in rows] == [False, True, False]
    assert "integer string conversion" in rows[1]["context_recall_reason"] and "line 2" in rows[1]["context_recall_reason"]


def test_an_existing_output_is_not_truncated_before_the_first_row_is_ready(tmp_path, model_dir):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    record_path(out).write_text("{}\n")

    def rows():
        yield dict(GOOD)
        raise RuntimeError("the source failed")

    with pytest.raises(RuntimeError, match="the source failed"):
        evaluate(rows(), ["context_recall"], model=str(model_dir), output=out, show_progress=False)
    assert out.read_text() == "previous\n" and record_path(out).read_text() == "{}\n"
    writer = JsonlWriter(out)
    writer.abort()
    assert out.read_text() == "previous\n"
    empty = JsonlWriter(tmp_path / "empty.jsonl")
    empty.close()  # a complete run of no rows still leaves its file
    assert (tmp_path / "empty.jsonl").read_text() == ""


# ----------------------------------------------------------------------- 17. caches that cannot be used
def test_a_cache_on_a_device_or_a_full_disk_warns_once_and_the_run_goes_on(tmp_path, model_dir):
    rows = make_rows(3)
    plain = evaluate(rows, ["context_recall"], model=str(model_dir), show_progress=False).scores("context_recall")
    with pytest.warns(RuntimeWarning, match=r"verdict cache /dev/null cannot be used \(.*\); the run goes on"):
        scores = evaluate(rows, ["context_recall"], model=str(model_dir), cache="/dev/null", show_progress=False)
    assert scores.scores("context_recall") == plain
    with JudgementCache(tmp_path / "full.sqlite") as cache:
        page = cache._db.execute("PRAGMA page_count").fetchone()[0]
        cache._db.execute(f"PRAGMA max_page_count = {page + 1}")  # SQLite's own "database or disk is full"
        probs = np.full((2_000, 3), 1 / 3, dtype=np.float32)
        pairs = [(f"premise {i}", f"hypothesis {i}") for i in range(2_000)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cache.put_many("m", "nli", pairs, probs)
            cache.put_many("m", "nli", pairs, probs)
        said = [str(w.message) for w in caught]
        assert len(said) == 1 and "full.sqlite" in said[0] and "full" in said[0].split("(")[1], said
        assert cache.get_many("m", "nli", pairs[:1])[0] is not None  # memory still answers


def test_a_sqlite_file_of_another_program_is_refused_before_scoring(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(2))
    foreign = tmp_path / "app.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    db.commit()
    db.close()
    before = foreign.read_bytes()
    out = tmp_path / "out.jsonl"
    result = _score(model_dir, str(data), "-o", str(out), "--cache", str(foreign))
    assert result.exit_code == 2 and "another program or layout" in result.output, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert foreign.read_bytes() == before and not out.exists()
    with pytest.raises(CacheSchemaError):
        JudgementCache(foreign)


# ----------------------------------------------------------------------- 18. checksums
def _flip(value: bytes, bit: int) -> bytes:
    data = bytearray(value)
    data[bit // 8] ^= 1 << (bit % 8)
    return bytes(data)


def test_a_flipped_bit_in_a_stored_result_or_verdict_is_a_miss(tmp_path, model_dir):
    rows = make_rows(2)
    path = tmp_path / "cache.sqlite"
    first = evaluate(rows, ["context_recall"], model=str(model_dir), cache=path, show_progress=False).to_records()
    db = sqlite3.connect(path)
    results = db.execute("SELECT text, kind, value FROM analyses WHERE kind LIKE 'result/%'").fetchall()
    verdicts = db.execute("SELECT model, key, probs FROM judgements").fetchall()
    db.close()
    assert results and verdicts
    rng = np.random.default_rng(0)
    for trial in range(6):
        db = sqlite3.connect(path)
        text, kind, value = results[trial % len(results)]
        db.execute("UPDATE analyses SET value = ? WHERE text = ? AND kind = ?",
                   (_flip(value, int(rng.integers(len(value) * 8))), text, kind))
        model, key, probs = verdicts[trial % len(verdicts)]
        db.execute("UPDATE judgements SET probs = ? WHERE model = ? AND key = ?",
                   (_flip(probs, int(rng.integers(len(probs) * 8))), model, key))
        db.commit()
        db.close()
        again = evaluate(rows, ["context_recall"], model=str(model_dir), cache=path, show_progress=False).to_records()
        assert again == first, trial  # every score and every detail as judged


# ----------------------------------------------------------------------- 20. _warnings is reserved
def test_a_users_warnings_column_is_kept_apart_from_localevals(tmp_path, model_dir):
    rows = [{**GOOD, "_warnings": ["user note"]}, dict(GOOD)]
    out = tmp_path / "out.jsonl"
    with pytest.warns(UserWarning, match="'_warnings'"):
        summary = evaluate(rows, ["context_recall"], model=str(model_dir), output=out, show_progress=False).summary()
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written[0]["input._warnings"] == ["user note"] and "_warnings" not in written[0]
    assert not summary.warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resumed = evaluate(rows, ["context_recall"], model=str(model_dir), output=out, resume=True, show_progress=False)
    assert not resumed.summary().warnings  # the user's values are not counted as localeval's


# ----------------------------------------------------------------------- 21. staged files
def test_csv_abort_on_a_full_disk_removes_the_staged_file(tmp_path):
    target = tmp_path / "o.csv"
    writer = CsvWriter(target, ["context_recall"])

    class FullDisk:
        def close(self) -> None:
            raise OSError(28, "No space left on device")

    writer._handle.close()
    writer._handle = FullDisk()
    writer.abort()
    assert list(tmp_path.iterdir()) == []


def test_sigterm_leaves_no_staged_file_and_says_how_to_go_on(tmp_path, model_dir):
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(400))
    out = tmp_path / "o.csv"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "localeval", "score", str(data), "-o", str(out), "-m", "context_recall",
         "--model", str(model_dir), "--no-progress", "--chunk-size", "1"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True,
    )
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".o.csv.*.tmp")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM" in err and "rerun" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


# ----------------------------------------------------------------------- 23. smaller
def test_duplicate_keys_and_columns_warn_utf16_is_refused_and_semicolons_get_a_hint(tmp_path, model_dir):
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"user_input": "a", "user_input": "b"}\n')
    with pytest.warns(UserWarning, match="JSON key 'user_input' appears twice \\(line 1\\)"):
        assert [line.value for line in json_lines(dup)] == [{"user_input": "b"}]
    csv_dup = tmp_path / "dup.csv"
    csv_dup.write_text("user_input,reference,user_input\na,b,c\n")
    with pytest.warns(UserWarning, match="CSV column 'user_input' appears twice"):
        evaluate(str(csv_dup), ["context_recall"], model=str(model_dir), show_progress=False)
    utf16 = tmp_path / "u16.jsonl"
    utf16.write_text(json.dumps(GOOD) + "\n", encoding="utf-16")
    result = _score(model_dir, str(utf16))
    assert result.exit_code == 2 and "UTF-16" in result.output and "iconv" in result.output, result.output
    semi = tmp_path / "semi.csv"
    semi.write_text("user_input;reference;retrieved_contexts\nq;r;c\n")
    with pytest.warns(UserWarning, match="looks separated by ';'"):
        evaluate(str(semi), ["context_recall"], model=str(model_dir), show_progress=False)


# ----------------------------------------------------------------------- 19. position in a long sentence
def test_chunk_recall_verdict_does_not_depend_on_where_a_fact_sits_in_an_over_long_sentence(default_judge):
    from localeval.judge.session import JudgeSession
    from localeval.metrics import ChunkRecall
    from localeval.schema import Sample

    filler = " ".join(["the committee reviewed the annual budget report of the regional office in detail and"] * 24).split()[:300]
    # Set off by semicolons: bare, the fact can fuse with the filler into another statement
    # ("the budget report of the Eiffel Tower is 330 metres tall"), which the contrast rules
    # rightly refuse to read as the tower's height.
    fact = "; the Eiffel Tower is 330 metres tall ;".split()
    assert default_judge.count_tokens(" ".join(filler)) > default_judge.max_length  # one sentence over the input
    # Every word position over three piece strides (pieces repeat their layout every 16
    # words), then every 12th word to the end, and the very end.
    positions = [*range(0, 49), *range(49, 300, 12), 300]
    samples = [Sample(user_input="How tall is the Eiffel Tower?", response="The Eiffel Tower is 330 metres tall.",
                      retrieved_contexts=[" ".join(filler[:p] + fact + filler[p:]) + "."]) for p in positions]
    samples.append(Sample(user_input="How tall is the Eiffel Tower?", response="The Eiffel Tower is 330 metres tall.",
                          retrieved_contexts=[" ".join(filler) + "."]))
    with JudgeSession() as session:
        results = ChunkRecall(default_judge).score_many(samples, session=session)
    chunks = [r.evaluated_chunks[0] for r in results]
    assert all(c.is_relevant and c.is_included for c in chunks[:-1]), \
        [(p, c.relevance) for p, c in zip(positions, chunks) if not (c.is_relevant and c.is_included)]
    assert [r.score for r in results[:-1]] == [1.0] * len(positions)
    assert not chunks[-1].is_relevant  # the filler alone is not about the tower


# ----------------------------------------------------------------------- 22. time per row: judge pairs
def test_a_row_under_the_character_budget_but_over_the_pair_budget_is_unscored_with_the_reason(default_judge):
    from localeval.metrics import ContextRecall, ContextRelevance
    from localeval.runner.budget import RowBudget, estimated_pairs
    from localeval.schema import Sample

    context = "Paris is the capital of France. " * 5_000  # 160,000 characters, 5,000 sentences
    huge = {**GOOD, "retrieved_contexts": [context]}
    sample = Sample(user_input=huge["user_input"], response=huge["response"], reference=huge["reference"],
                    retrieved_contexts=[context])
    relevance, recall = ContextRelevance(default_judge), ContextRecall(default_judge)
    assert estimated_pairs(relevance, sample) >= 5_000  # every sentence against the question
    assert estimated_pairs(recall, sample) <= 6  # one claim against its closest units
    one_long = Sample(user_input="q", retrieved_contexts=[" ".join(["word"] * 3_200)])
    assert estimated_pairs(relevance, one_long) == 200  # an over-long sentence counts its pieces
    assert RowBudget().excess(sample, [("context_recall", recall)]) is None
    assert RowBudget(max_row_pairs=None).excess(sample, [("context_relevance", relevance)]) is None
    result = evaluate([dict(GOOD), huge], ["context_recall", "context_relevance"], model=default_judge, show_progress=False)
    reasons = [r.reason or "" for r in result.results("context_relevance")]
    assert result.scores("context_relevance")[0] is not None and result.scores("context_relevance")[1] is None
    assert "judge pairs for context_relevance" in reasons[1] and "max_row_pairs=4,000" in reasons[1]
    assert result.summary()["context_relevance"].reasons == {"over budget": 1}
