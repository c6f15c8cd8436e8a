"""Text analyses stored with the verdicts: a re-run in a new session reads its sentence
splits, claims and units from the cache file and gives bit-for-bit the same results.

Stored results (tests/test_stored_results.py) are turned off here: a re-run would read each
row's result back before any analysis is asked for."""

from __future__ import annotations

import json
import sqlite3

import pytest

from localeval.judge.session import JudgeSession
from localeval.options import RunOptions
from localeval.runner.output import dumps, record
from localeval.runner import stored as stored_module
from localeval.runner.rows import make_row
from localeval.runner.run import resolve_metrics, run_chunks
from localeval.text import analyses as analyses_module
from localeval.text import sentences as sentences_module

METRICS = ["context_recall", "chunk_recall", "context_relevance"]


@pytest.fixture(autouse=True)
def _no_stored_results(monkeypatch):
    monkeypatch.setattr(stored_module.StoredResults, "_kind", lambda self, metric: None)

ROWS = [
    {
        "user_input": "When did Dr. Smith arrive in Oslo, and what did she study?",
        "response": "Dr. Smith arrived at 5 p.m. on Jan. 5 and studied glaciers. She left the next week.",
        "reference": "Dr. Smith arrived in Oslo on Jan. 5. She studied glaciers and fjords. Her report came out in May.",
        "retrieved_contexts": [
            "Dr. Smith arrived at 5 p.m. on Jan. 5. She came to Oslo to study glaciers; see Fig. 3 for the route.",
            "The fjords near Oslo were mapped in 1921.\n\n- Glaciers retreat each summer.\n- Fjords are deep.",
            "Her report, published in May, described the glaciers and the fjords in detail.",
        ],
    },
    {
        "user_input": "Who designed the bridge?",
        "response": "The bridge was designed by Ada Park in 1931, e.g. its towers. It opened in 1933.",
        "reference": "Ada Park designed the bridge. It opened in 1933.",
        "retrieved_contexts": [
            "The bridge over the river was designed by Ada Park. Construction began in 1931 and it opened in 1933.",
            "Mr. Lee painted the towers red. The paint was chosen by the city council.",
        ],
    },
]


def _scored(rows, judge, cache=None, block_size=256):
    """(records as JSON lines, session) of one run with its own session, as a new process."""
    options = RunOptions(model=judge, cache=cache, block_size=block_size)
    named = resolve_metrics(METRICS, options)
    source = (make_row(i, i + 1, dict(r)) for i, r in enumerate(rows))
    with JudgeSession(options) as session:
        lines = [dumps(record(row, results)) for chunk in run_chunks(source, named, session=session,
                                                                     chunk_size=block_size) for row, results in chunk]
    return lines, session


def _stored_kinds(path):
    with sqlite3.connect(path) as db:
        return {kind.split("/")[0]: n for kind, n in
                db.execute("SELECT substr(kind, 1, instr(kind, '/')), COUNT(*) FROM analyses GROUP BY 1")}


def _check_rerun(rows, judge, tmp_path, *, all_stored=True):
    plain, plain_session = _scored(rows, judge)
    assert not plain_session.analyses.enabled and plain_session.analyses.saved == 0
    cache = tmp_path / "verdicts.sqlite"
    first, first_session = _scored(rows, judge, cache)
    kinds = _stored_kinds(cache)
    assert {"sentences", "claims", "units", "language"} <= set(kinds), kinds
    rerun, session = _scored(rows, judge, cache)
    # Bit-for-bit: every score, reason, evidence span and detail.
    assert first == plain and rerun == plain
    assert session.counters.pairs_judged == 0 and session.analyses.loaded > 0
    assert session.analyses.saved == 0  # nothing new to store
    assert session.timings.seconds["parse"] == 0.0  # claims read back: spaCy never runs
    if all_stored:  # the sentences' own analyses (chunk recall's) were read in a second query
        assert session.timings.seconds["split"] == 0.0
    assert first_session.timings.seconds["split"] > 0
    return plain


def test_rerun_reads_stored_analyses_and_scores_identically_tiny(tiny_judge, tmp_path):
    _check_rerun(ROWS * 3, tiny_judge, tmp_path)


def test_rerun_reads_stored_analyses_and_scores_identically_default_judge(default_judge, tmp_path):
    lines = _check_rerun(ROWS, default_judge, tmp_path)
    first = json.loads(lines[0])
    assert first["context_recall"] is not None and 0.0 <= first["context_recall"] <= 1.0


def test_changed_splitter_never_serves_stored_splits(tiny_judge, tmp_path, monkeypatch):
    cache = tmp_path / "verdicts.sqlite"
    expected, _ = _scored(ROWS, tiny_judge, cache)
    monkeypatch.setattr(sentences_module, "splitter_identity", lambda: "another-splitter")
    lines, session = _scored(ROWS, tiny_judge, cache)
    assert lines == expected
    assert session.timings.seconds["split"] > 0  # split again, under the new identity
    assert any(kind.startswith("sentences/another-splitter/") for (kind,) in
               sqlite3.connect(cache).execute("SELECT DISTINCT kind FROM analyses"))


def test_damaged_stored_analyses_are_made_again(tiny_judge, tmp_path):
    cache = tmp_path / "verdicts.sqlite"
    expected, _ = _scored(ROWS, tiny_judge, cache)
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE analyses SET value = x'0100000002'")  # odd length: not offsets, not JSON
    lines, session = _scored(ROWS, tiny_judge, cache)
    assert lines == expected and session.timings.seconds["split"] > 0
    assert session.analyses.saved > 0  # overwritten with good values
    again, session = _scored(ROWS, tiny_judge, cache)
    assert again == expected and session.timings.seconds["split"] == 0.0


def test_analyses_are_read_with_two_queries_per_chunk(tiny_judge, tmp_path, monkeypatch):
    cache = tmp_path / "verdicts.sqlite"
    _scored(ROWS * 4, tiny_judge, cache, block_size=3)
    from localeval.judge.cache import JudgementCache

    calls = []
    original = JudgementCache.read_analyses
    monkeypatch.setattr(JudgementCache, "read_analyses",
                        lambda self, texts: calls.append(len(texts)) or original(self, texts))
    batches = []  # the contrast reasons asked for, one batch per call
    original_contrasts = JudgeSession.contrasts
    monkeypatch.setattr(JudgeSession, "contrasts",
                        lambda self, triples, rules=None: batches.append(len(triples))
                        or original_contrasts(self, triples, rules))
    _scored(ROWS * 4, tiny_judge, cache, block_size=3)
    # 8 rows in chunks of 3: per chunk one query for the rows' texts, one for their sentences,
    # and at most one per batch of contrast reasons (never one per pair).
    assert batches and sum(batches) > len(batches)
    assert 6 < len(calls) <= 6 + len(batches)


def test_span_codec_rejects_what_is_not_spans_of_the_text():
    text = "One. Two three."
    spans = sentences_module.split_sentences(text)
    value = analyses_module.encode_spans(text, spans)
    assert analyses_module.decode_spans(text, value) == spans
    assert analyses_module.decode_spans("One.", value) is None  # offsets past the end
    assert analyses_module.decode_spans(text, b"\x01\x02\x03") is None
    moved = [s.model_copy(update={"text": "x"}) for s in spans]
    assert analyses_module.encode_spans(text, moved) is None


@pytest.mark.parametrize("stage", ["split", "judge"])
def test_timings_are_exclusive(stage):
    session = JudgeSession()
    with session.timings.stage("plan"):
        with session.timings.stage(stage):
            pass
    seconds = session.timings.seconds
    assert seconds["plan"] > 0 and seconds[stage] > 0 and seconds["metric"] == 0.0


def test_session_counts_the_tokens_it_judges(tiny_judge):
    pairs = [("A short premise about the bridge.", "The bridge exists."), ("Another premise.", "Something else.")]
    session = JudgeSession()
    session.predict(tiny_judge, pairs)
    lengths = [len(ids) for ids in tiny_judge.tokenizer([p for p, _ in pairs], [h for _, h in pairs])["input_ids"]]
    assert session.counters.tokens_judged == sum(lengths)
    assert session.counters.tokens_judged_squared == sum(n * n for n in lengths)
    session.predict(tiny_judge, pairs)  # from the memory cache: nothing judged, nothing counted
    assert session.counters.tokens_judged == sum(lengths)


def test_stored_language_gives_the_same_warnings(tiny_judge, tmp_path):
    german = dict(ROWS[1], response="Die Brücke wurde von Ada Park entworfen und im Jahr 1933 eröffnet, "
                                    "nachdem die Bauarbeiten zwei Jahre gedauert hatten.")
    cache = tmp_path / "verdicts.sqlite"
    plain, _ = _scored([german], tiny_judge)
    first, _ = _scored([german], tiny_judge, cache)
    again, session = _scored([german], tiny_judge, cache)
    assert plain == first == again and "German" in json.loads(again[0])["_warnings"][0]
    assert session.analyses.loaded > 0
