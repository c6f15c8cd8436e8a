"""The verdict cache (memory LRU + SQLite), its use by the judge and the runner, and the
judge's out-of-memory back-off (simulated: no GPU is needed)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
import torch

from localeval import evaluate
from localeval.backends import NLIJudge
from localeval.backends.cache import JudgementCache, model_identity
from localeval.metrics import ContextRecall, PrecisionRecall

from bulk_helpers import THREE_LABELS, make_rows, sharp_tiny_model

PAIRS = [("the cat sat on the mat", "a cat sat"), ("paris is in france", "berlin is big"), ("the dog", "a dog")]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return sharp_tiny_model(tmp_path_factory.mktemp("sharp"), THREE_LABELS, {"max_length": 64})


def _count_model_calls(judge, monkeypatch) -> list[int]:
    calls: list[int] = []
    original = judge._score_unique

    def spy(pairs, *args, **kwargs):
        calls.append(len(pairs))
        return original(pairs, *args, **kwargs)

    monkeypatch.setattr(judge, "_score_unique", spy)
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


def test_judge_with_cache_asks_the_model_once(model_dir, tmp_path, monkeypatch):
    path = tmp_path / "c.sqlite"
    plain = NLIJudge(model_dir, device="cpu").predict(PAIRS)
    judge = NLIJudge(model_dir, device="cpu", cache=path)
    calls = _count_model_calls(judge, monkeypatch)
    np.testing.assert_allclose(judge.predict(PAIRS), plain, atol=1e-6)
    judge.cache.close()
    fresh = NLIJudge(model_dir, device="cpu", cache=path)  # a new process, in effect
    calls_again = _count_model_calls(fresh, monkeypatch)
    np.testing.assert_allclose(fresh.predict(PAIRS[::-1]), plain[::-1], atol=1e-6)
    assert calls == [3] and calls_again == []
    fresh.predict(PAIRS + [("one two three", "red blue green")])
    assert calls_again == [1]  # only the unseen pair


def test_second_evaluate_run_makes_no_model_call(model_dir, tmp_path, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    rows = make_rows(10)
    path = tmp_path / "verdicts.sqlite"
    first = evaluate(rows, [ContextRecall(judge)], cache=path, chunk_size=4, show_progress=False)
    assert judge.cache is None  # the run's cache is detached afterwards
    calls = _count_model_calls(judge, monkeypatch)
    second = evaluate(rows, [ContextRecall(judge)], cache=path, chunk_size=4, show_progress=False)
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
    np.testing.assert_allclose(judge.predict(pairs, batch_size=16), expected, atol=1e-5)
    assert sizes[:3] == [16, 8, 4] and max(sizes[3:]) <= 4
    assert judge._batch_cap == 4
    sizes.clear()
    judge.predict(pairs[:6], batch_size=16)
    assert sizes[0] == 4  # later calls start at the size that fitted


def test_out_of_memory_at_one_pair_falls_back_to_cpu(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    pairs = _pairs(5)
    expected = judge.predict(pairs)
    judge.device = torch.device("cuda")  # pretend: the weights stay where they are
    _oom_when(judge, monkeypatch, lambda n: judge.device.type == "cuda")
    with pytest.warns(RuntimeWarning, match="continuing on the CPU"):
        got = judge.predict(pairs, batch_size=4)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert judge.device.type == "cpu" and judge._batch_cap is None


def test_out_of_memory_on_cpu_is_raised(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")
    _oom_when(judge, monkeypatch, lambda n: True)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        judge.predict(_pairs(3), batch_size=2)


def test_other_errors_are_not_swallowed(model_dir, monkeypatch):
    judge = NLIJudge(model_dir, device="cpu")

    def broken(*args, **kwargs):
        raise RuntimeError("shape mismatch")

    monkeypatch.setattr(judge, "_forward", broken)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        judge.predict(_pairs(3))
