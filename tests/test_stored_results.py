"""Results stored in the cache file: a re-run reads each row's result back and writes the very
same lines; anything that could change a result (a setting, a threshold, the code) finds
nothing stored and scores again; damaged or failed results are never served."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from localeval.judge.embeddings import Embedder
from localeval.judge.session import JudgeSession
from localeval.metrics.semantic_similarity import SemanticSimilarity
from localeval.options import RunOptions
from localeval.runner import stored as stored_module
from localeval.runner.output import dumps, record
from localeval.runner.rows import make_row
from localeval.runner.run import resolve_metrics, run_chunks
from localeval.runner.stored import OpaqueSetting, StoredResults, plain_setting

# Every kind of result the registry's judged and unjudged metrics return.
METRICS = ["context_recall", "chunk_recall", "context_relevance", "faithfulness", "factual_correctness",
           "answer_relevancy", "ragchecker", "trace_completeness", "trace_utilization", "context_precision",
           "question_recall", "context_entity_recall", "semantic_similarity", "answer_correctness", "retrieval"]

ROWS = [
    {
        "user_input": "When did Dr. Smith arrive in Oslo, and what did she study?",
        "response": "Dr. Smith arrived in Oslo on Jan. 5 and studied glaciers. She left the next week.",
        "reference": "Dr. Smith arrived in Oslo on Jan. 5. She studied glaciers and fjords.",
        "retrieved_contexts": [
            "Dr. Smith arrived at 5 p.m. on Jan. 5. She came to Oslo to study glaciers.",
            "The fjords near Oslo were mapped in 1921.\n\n- Glaciers retreat each summer.\n- Fjords are deep.",
        ],
        "retrieved_context_ids": ["a", "b"],
        "reference_context_ids": ["a"],
    },
    {
        "user_input": "Who designed the bridge?",
        "response": "I don't know.",
        "reference": "Ada Park designed the bridge. It opened in 1933.",
        "retrieved_contexts": ["The bridge over the river was designed by Ada Park. It opened in 1933."],
    },
    {"user_input": "What is missing?", "response": "Nothing."},  # most metrics: unscored, with a reason
]


def _scored(judge, cache=None, metrics=METRICS, rows=ROWS, **options):
    """(JSON lines, session) of one run in a session of its own, as a new process would."""
    run_options = RunOptions(model=judge, cache=cache, **options)
    named = resolve_metrics(metrics, run_options)
    source = (make_row(i, i + 1, dict(r)) for i, r in enumerate(rows))
    with JudgeSession(run_options) as session:
        lines = [dumps(record(row, results)) for chunk in run_chunks(source, named, session=session)
                 for row, results in chunk]
    return lines, session


def _stored(cache: Path) -> dict[str, int]:
    with sqlite3.connect(cache) as db:
        rows = db.execute("SELECT kind, COUNT(*) FROM analyses WHERE kind LIKE 'result/%' GROUP BY kind").fetchall()
    return {kind.split("/")[1]: n for kind, n in rows}


def test_rerun_reads_every_result_back_and_writes_the_same_lines(default_judge, tmp_path):
    plain, _ = _scored(default_judge)
    cache = tmp_path / "verdicts.sqlite"
    first, first_session = _scored(default_judge, cache)
    stored = _stored(cache)
    assert set(stored) == set(METRICS) and set(stored.values()) == {len(ROWS)}, stored
    rerun, session = _scored(default_judge, cache)
    assert first == plain and rerun == plain  # every score, reason and detail, byte for byte
    assert session.counters.pairs_judged == 0 and session.counters.pairs_requested == 0
    # Every result read back (and the texts' stored languages, for the rows' warnings).
    assert session.analyses.loaded >= len(ROWS) * len(METRICS) and session.analyses.saved == 0
    assert first_session.counters.pairs_judged > 0
    assert not any("error:" in line for line in plain)
    assert json.loads(plain[0])["context_recall"] is not None


def _kinds(cache: Path) -> dict[str, int]:
    with sqlite3.connect(cache) as db:
        return dict(db.execute("SELECT kind, COUNT(*) FROM analyses WHERE kind LIKE 'result/%' GROUP BY kind"))


def test_a_changed_setting_or_code_finds_nothing_stored(tiny_judge, tmp_path, monkeypatch):
    cache = tmp_path / "verdicts.sqlite"
    metrics = ["context_recall", "faithfulness"]
    _scored(tiny_judge, cache, metrics=metrics)
    assert len(_kinds(cache)) == 2
    # Another threshold table: results are scored again, under new identities (any key of the
    # run's table counts, the simple rule that can never serve a stale result).
    expected, _ = _scored(tiny_judge, metrics=metrics, thresholds={"context_recall": 0.999})
    lines, _ = _scored(tiny_judge, cache, metrics=metrics, thresholds={"context_recall": 0.999})
    assert lines == expected
    kinds = _kinds(cache)
    assert sorted(k.split("/")[1] for k in kinds) == ["context_recall"] * 2 + ["faithfulness"] * 2
    assert set(kinds.values()) == {len(ROWS)}
    # Another option value (max_units) and other code are new identities too.
    _scored(tiny_judge, cache, metrics=metrics, max_units=2)
    assert len(_kinds(cache)) == 6
    monkeypatch.setattr(stored_module, "localeval_identity", lambda: "edited-code")
    _scored(tiny_judge, cache, metrics=metrics)
    assert len(_kinds(cache)) == 8
    # Another spaCy pipeline named in the environment (the rules and entity recall load it).
    monkeypatch.setenv("LOCALEVAL_SPACY_MODEL", "en_core_web_sm")
    with JudgeSession(RunOptions(model=tiny_judge, cache=cache)) as session:
        named = resolve_metrics(metrics, RunOptions(model=tiny_judge))
        assert not set(StoredResults(session, named).kinds.values()) & {k for k in _kinds(cache)}


def test_damaged_results_are_scored_again(tiny_judge, tmp_path):
    cache = tmp_path / "verdicts.sqlite"
    expected, _ = _scored(tiny_judge, cache, metrics=["faithfulness"])
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE analyses SET value = x'7b226e6f223a' WHERE kind LIKE 'result/%'")  # '{"no":' cut short
    lines, session = _scored(tiny_judge, cache, metrics=["faithfulness"])
    assert lines == expected and session.analyses.saved >= len(ROWS)  # scored and stored again
    again, session = _scored(tiny_judge, cache, metrics=["faithfulness"])
    assert again == expected and session.analyses.saved == 0 and session.counters.pairs_requested == 0


def test_failed_rows_are_not_stored(tiny_judge, tmp_path, monkeypatch):
    from localeval.metrics.faithfulness import Faithfulness

    cache = tmp_path / "verdicts.sqlite"
    expected, _ = _scored(tiny_judge, metrics=["faithfulness"])
    with monkeypatch.context() as patch:
        patch.setattr(Faithfulness, "_score_valid", lambda self, *a, **k: 1 / 0)
        failed, _ = _scored(tiny_judge, cache, metrics=["faithfulness"])
    assert any("ZeroDivisionError" in line for line in failed)
    # The third row has no contexts and the second declines to answer ("I don't know."): their
    # reasons are decided before scoring, so they are stored.
    assert _stored(cache) == {"faithfulness": 2}
    lines, _ = _scored(tiny_judge, cache, metrics=["faithfulness"])
    assert lines == expected


class _Constant(Embedder):
    """An embedder object passed in: localeval cannot say which model it is."""

    def __init__(self) -> None:
        pass

    def encode(self, texts, batch_size=32):
        return np.ones((len(texts), 3), dtype=np.float32)


def test_what_has_no_stable_identity_is_not_stored(tiny_judge, tmp_path):
    cache = tmp_path / "verdicts.sqlite"
    named = [("similarity", SemanticSimilarity(embedding_model=_Constant())),
             ("faithfulness", resolve_metrics(["faithfulness"], RunOptions(model=tiny_judge))[0][1])]
    with JudgeSession(RunOptions(model=tiny_judge, cache=cache)) as session:
        assert StoredResults(session, named).kinds["similarity"] is None
        assert StoredResults(session, named).kinds["faithfulness"].startswith("result/faithfulness/")
    # An instruction-model decomposer: its outputs are cached by its own identity, not here.
    with JudgeSession(RunOptions(model=tiny_judge, cache=cache, decomposer="some-model.gguf")) as session:
        assert not StoredResults(session, named).active
    # A metric class of the user's own: its code is not part of the key.
    class Mine(type(named[1][1])):
        pass

    with JudgeSession(RunOptions(model=tiny_judge, cache=cache)) as session:
        mine = Mine.__new__(Mine)
        mine.__dict__.update(vars(named[1][1]))
        assert StoredResults(session, [("mine", mine)]).kinds["mine"] is None
    # Without a cache file nothing is stored.
    with JudgeSession(RunOptions(model=tiny_judge)) as session:
        assert not StoredResults(session, named).active


def test_plain_setting():
    assert plain_setting({"b": (1, 2.5), "a": [None, True], "p": Path("m")}) == {"a": [None, True], "b": [1, 2.5],
                                                                                   "p": "m"}
    with pytest.raises(OpaqueSetting):
        plain_setting(object())
