"""The verdict cache (memory LRU + SQLite), its use by the judge and the runner, and the
judge's out-of-memory back-off (simulated: no GPU is needed)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
import torch

from localeval import evaluate
from localeval.judge import NLIJudge
from localeval.judge.cache import JudgementCache, model_identity
from localeval.judge.session import JudgeSession
from localeval.metrics import ContextRecall, PrecisionRecall

from bulk_helpers import THREE_LABELS, make_rows, sharp_tiny_model

PAIRS = [("the cat sat on the mat", "a cat sat"), ("paris is in france", "berlin is big"), ("the dog", "a dog")]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return sharp_tiny_model(tmp_path_factory.mktemp("sharp"), THREE_LABELS, {"max_length": 64})


def _count_model_calls(judge, monkeypatch) -> list[int]:
    """Pairs sent to the model, per call, by any session (read from the public counters)."""
    calls: list[int] = []
    original = JudgeSession.predict

    def predict(self, judge, pairs, **kwargs):
        before = self.counters.pairs_judged
        out = original(self, judge, pairs, **kwargs)
        if self.counters.pairs_judged > before:
            calls.append(self.counters.pairs_judged - before)
        return out

    monkeypatch.setattr(JudgeSession, "predict", predict)
    return calls


def test_cache_roundtrip_lru_and_wal(tmp_path):
    path = tmp_path / "c.sqlite"
    probs = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]], dtype=np.float32)
    with JudgementCache(path, memory_size=1) as cache:
        cache.put_many("m", "nli", PAIRS[:2], probs)
        assert len(cache._memory) == 1  # the LRU keeps only the newest entry
        found = cache.get_many("m", "nli", [PAIRS[1], PAIRS[0], PAIRS[2]])
        np.testing.assert_array_equal(found[0], probs[1])
        np.testing.assert_array_equal(found[1], probs[0])  # read back from the file
        assert found[2] is None and cache.hits == 2 and cache.misses == 1
        assert cache.get_many("other-model", "nli", PAIRS[:1]) == [None]
        assert cache.get_many("m", "relevance", PAIRS[:1]) == [None]
    with JudgementCache(path) as again:  # persisted
        np.testing.assert_array_equal(again.get_many("m", "nli", PAIRS[:1])[0], probs[0])
        assert len(again) == 2
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    stored = b"".join(row[0] for row in db.execute("SELECT key FROM judgements"))
    assert b"cat" not in stored  # only digests of the text are stored


def test_model_identity_follows_weights_and_dtype(model_dir, tmp_path):
    first = model_identity(model_dir, max_length=64, dtype="float32")
    assert first == model_identity(model_dir, max_length=64, dtype="float32")
    assert first != model_identity(model_dir, max_length=64, dtype="float16")
    assert first != model_identity(model_dir, max_length=32, dtype="float32")


def test_session_with_cache_asks_the_model_once(model_dir, tmp_path):
    path = tmp_path / "c.sqlite"
    judge = NLIJudge(model_dir, device="cpu")
    plain = judge.predict(PAIRS)
    with JudgeSession(cache=path) as first:
        np.testing.assert_allclose(first.predict(judge, PAIRS), plain, atol=1e-6)
    with JudgeSession(cache=path) as fresh:  # a new process, in effect: only the file carries over
        np.testing.assert_allclose(fresh.predict(judge, PAIRS[::-1]), plain[::-1], atol=1e-6)
        assert first.counters.pairs_judged == 3 and fresh.counters.pairs_judged == 0
        assert fresh.counters.cache_hits == 3
        fresh.predict(judge, PAIRS + [("one two three", "red blue green")])
        assert fresh.counters.pairs_judged == 1  # only the unseen pair
    assert not hasattr(judge, "cache")  # the judge holds no run state


def test_judge_cache_argument_is_deprecated_but_works(model_dir, tmp_path):
    path = tmp_path / "c.sqlite"
    with pytest.warns(DeprecationWarning, match="JudgeSession"):
        judge = NLIJudge(model_dir, device="cpu", cache=path)
    first = judge.predict(PAIRS)
    with JudgeSession(cache=path) as session:  # the verdicts are in the file
        np.testing.assert_allclose(session.predict(NLIJudge(model_dir, device="cpu"), PAIRS), first, atol=1e-6)
        assert session.counters.pairs_judged == 0


def test_second_evaluate_run_makes_no_model_call(model_dir, tmp_path, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    rows = make_rows(10)
    path = tmp_path / "verdicts.sqlite"
    first = evaluate(rows, [ContextRecall(judge)], cache=path, block_size=4, show_progress=False)
    calls = _count_model_calls(judge, monkeypatch)
    second = evaluate(rows, [ContextRecall(judge)], cache=path, block_size=4, show_progress=False)
    assert calls == []
    assert second.scores("context_recall") == first.scores("context_recall")
    assert [r.results["context_recall"].model_dump() for r in second] == [r.results["context_recall"].model_dump() for r in first]


def test_metrics_share_verdicts_within_a_chunk(model_dir):
    judge = NLIJudge(model_dir, device="cpu")
    memo = JudgementCache(None)
    evaluate(make_rows(6), [ContextRecall(judge), PrecisionRecall(judge)], cache=memo, show_progress=False)
    # precision_recall's recall half asks exactly context recall's pairs: all read, none re-judged.
    assert memo.hits > 0 and memo.hits >= memo.misses / 2


# ---------------------------------------------------------------- out of memory

def _oom_when(judge, monkeypatch, condition) -> list[int]:
    sizes: list[int] = []
    original = judge._forward

    def forward(encoded, batch_ids, columns):
        sizes.append(len(batch_ids))
        if condition(len(batch_ids)):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(encoded, batch_ids, columns)

    monkeypatch.setattr(judge, "_forward", forward)
    return sizes


def _pairs(n: int) -> list[tuple[str, str]]:
    words = "the cat sat on the mat and the dog was in paris with the red sun".split()
    return [(" ".join(words[: 3 + i % 12]), " ".join(words[i % 10 : i % 10 + 3])) for i in range(n)]


def test_out_of_memory_halves_the_batch(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    pairs = _pairs(20)
    expected = judge.predict(pairs, batch_size=16)
    sizes = _oom_when(judge, monkeypatch, lambda n: n > 4)
    session = JudgeSession()
    np.testing.assert_allclose(session.predict(judge, pairs, batch_size=16), expected, atol=1e-5)
    assert sizes[:3] == [16, 8, 4] and max(sizes[3:]) <= 4
    assert session.state(judge).batch_cap == 4  # kept by the run, not by the judge
    sizes.clear()
    session.predict(judge, [(p + " again", h) for p, h in pairs[:6]], batch_size=16)
    assert sizes[0] == 4  # later calls of the run start at the size that fitted
    sizes.clear()
    JudgeSession().predict(judge, [(p + " new", h) for p, h in pairs[:6]], batch_size=16)
    assert sizes[0] == 6  # another run starts afresh: all six pairs in one batch


def test_out_of_memory_at_one_pair_falls_back_to_cpu(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    pairs = _pairs(5)
    expected = judge.predict(pairs)
    judge.device = torch.device("cuda")  # pretend: the weights stay where they are
    _oom_when(judge, monkeypatch, lambda n: True)  # every batch of this (shared) judge fails
    session = JudgeSession()
    with pytest.warns(RuntimeWarning, match="continuing on the CPU"):
        got = session.predict(judge, pairs, batch_size=4)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    fallback = session.scorer(judge)
    assert fallback is not judge and fallback.device.type == "cpu" and session.state(judge).batch_cap is None
    assert judge.device.type == "cuda"  # the shared judge did not move: the copy is the session's
    np.testing.assert_allclose(session.predict(judge, pairs[:2]), expected[:2], atol=1e-5)  # stays on the copy


def test_out_of_memory_on_cpu_is_raised(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    _oom_when(judge, monkeypatch, lambda n: True)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        JudgeSession().predict(judge, _pairs(3), batch_size=2)


def test_other_errors_are_not_swallowed(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")

    def broken(*args, **kwargs):
        raise RuntimeError("shape mismatch")

    monkeypatch.setattr(judge, "_forward", broken)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        judge.predict(_pairs(3))
