"""`localeval.text.memo`: text functions' results live in one run's memo, never process-wide."""

from __future__ import annotations

import threading

import pytest

from localeval.judge.session import JudgeSession, session_scope
from localeval.text.memo import TextMemo, memo_scope, remembered, remembering

calls: list[str] = []


@remembered
def _shout(text: str) -> str:
    calls.append(text)
    return text.upper()


@remembered(entries=2)
def _whisper(text: str) -> str:
    calls.append(text)
    return text.lower()


@pytest.fixture(autouse=True)
def _no_calls():
    calls.clear()


def test_outside_a_run_every_call_computes():
    assert _shout("a") == _shout("a") == "A"
    assert calls == ["a", "a"]


def test_a_session_remembers_for_its_own_run_only():
    with session_scope(None) as first:
        _shout("a"), _shout("a")
        assert len(first.text_memo) == 1
    with session_scope(None):
        _shout("a")  # a new run is not answered by the last one
    assert calls == ["a", "a"]


def test_clearing_forgets_and_tables_keep_their_size():
    memo = TextMemo(maxsize=3)
    with remembering(memo):
        for text in "abcd":
            _shout(text), _whisper(text)
        assert len(memo) == 3 + 2  # the latest 3 of one table, 2 of the other
        _shout("a")  # evicted: computed again
        assert calls.count("a") == 3
        memo.clear()
        _shout("d")
    assert calls.count("d") == 3 and len(memo) == 1


def test_a_bound_function_uses_the_memo_active_when_bound():
    assert _shout.bound()("b") == "B"  # no run: the plain function
    memo = TextMemo()
    with remembering(memo):
        shout = _shout.bound()
        shout("b"), shout("b")
    assert calls == ["b", "b"] and len(memo) == 1


def test_memo_scope_shares_results_within_a_batch_call():
    with memo_scope() as memo:
        _shout("x"), _shout("x")
        with memo_scope() as inner:
            assert inner is memo  # nested scopes use the run's memo
    assert calls == ["x"]


def test_threads_see_the_memo_they_activate():
    memo = TextMemo()
    seen: list[object] = []

    def work():
        from localeval.text.memo import active_memo

        seen.append(active_memo())
        with remembering(memo):
            _shout("t")
            seen.append(active_memo())

    with remembering(TextMemo()):
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    assert seen == [None, memo] and len(memo) == 1


def test_invalid_size_is_refused():
    with pytest.raises(ValueError, match="maxsize"):
        TextMemo(maxsize=0)


def test_the_runner_empties_the_memo_per_chunk():
    session = JudgeSession()
    with session.active():
        _shout("row text")
    assert len(session.text_memo) == 1
    session.clear_memory()
    assert len(session.text_memo) == 0 and session.remembered == 0
    session.close()


def test_contrast_many_parses_only_claims_a_rule_reads_with_the_same_reasons(monkeypatch):
    from localeval.text import roles
    from localeval.text.contrast_rules import contrast, contrast_many

    triples = [
        ("Martin Hale wrote 'Winter Harbour'.",
         "'Winter Harbour' was written by Clara Voss and adapted for the stage by Martin Hale.", ""),
        ("the cat sat on the mat in the garden.", "a dog ran across the road.", ""),  # no gate opens
        ("the museum did not open on mondays.", "the museum opens every day of the week.", ""),  # negation gate
    ]
    parsed: list[str] = []
    real = roles._parsed
    monkeypatch.setattr(roles, "_parsed", lambda texts: (parsed.extend(texts), real(texts))[1])
    batched = contrast_many(triples)
    assert triples[1][0] not in parsed and triples[0][0] in parsed and triples[2][0] in parsed
    assert batched == [contrast(*t) for t in triples]
    assert batched[0] is not None and batched[1] is None


def test_contrast_many_parses_no_premise_that_writes_the_claim_word_for_word_and_batches_confirmations(monkeypatch):
    from localeval.text import roles
    from localeval.text.contrast_rules import contrast, contrast_many

    copied = "The Harbour Bridge attracted more than 3,300 visitors in 2019."
    later = "The Harbour Bridge opened in 1932, three years after the tunnel."
    triples = [
        # A copy: no rule that reads a parse for roles, merges, swaps or orders opens for it.
        (copied, "The museum was closed in 2018. " + copied + " The bridge was repainted in 2021.", ""),
        # A number missing ("three": 1932 - 1930 is two): the number rule asks for a confirmation
        # before it fires, and "three years after" could have one, so claim and premise are parsed.
        (later, "The Harbour Bridge opened in 1932. The tunnel under the harbour opened in 1930 after delays.", ""),
    ]
    batches: list[list[str]] = []
    real = roles._parsed
    monkeypatch.setattr(roles, "_parsed", lambda texts: (batches.append(list(texts)), real(texts))[1])
    batched = contrast_many(triples)
    parsed = [t for b in batches for t in b]
    assert triples[0][1] not in parsed and triples[0][0] not in parsed
    assert triples[1][0] in parsed and triples[1][1] in parsed
    assert batched == [contrast(*t) for t in triples]
    assert batched[0] is None and batched[1] is not None and batched[1].startswith("number"), batched
