"""The judge's padding, written straight into arrays, gives the tokenizer's own tensors and so
the same verdicts (bit for bit in fp32, within 1e-3 in bf16); and why batches stay as they
are: a verdict moves with its batch neighbours."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from localeval.judge.nli import NLIJudge, ScoringState
from localeval.judge.formats import Packed
from localeval.judge.dtypes import cpu_has_native_bf16

WORDS = ("the bridge in Lisbon was repaired after a storm in 1931 and reopened to traffic "
         "while the museum nearby attracted thousands of visitors every summer").split()


def _pairs() -> list[tuple[str, str]]:
    """Pairs of many lengths (3 to ~90 words of premise), so batches differ in width."""
    rng = np.random.default_rng(0)
    out = []
    for i in range(24):
        n = int(rng.integers(3, 90))
        premise = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(n)) + "."
        out.append((premise, f"The bridge in Lisbon was repaired in {1900 + i}."))
    return out


def _reference(judge: NLIJudge, pairs, monkeypatch, batch: int) -> np.ndarray:
    """Fixed batches of ``batch`` pairs padded by the tokenizer: how the judge batched before."""
    with monkeypatch.context() as m:
        m.setattr(NLIJudge, "pad_batch", lambda self, packed, ids: self.tokenizer.pad(
            {k: [packed.row(k, i).tolist() for i in ids] for k in packed.columns}, return_tensors="pt"))
        return judge.score_distinct(pairs, "nli", batch_size=batch, state=ScoringState())


def test_padding_equals_the_tokenizers_own(default_judge):
    pairs = _pairs()[:7]
    enc = default_judge.tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation="longest_first",
                                  max_length=default_judge.max_length)
    ids = [3, 0, 6, 1]
    ours = default_judge.pad_batch(Packed.of(enc), ids)
    theirs = default_judge.tokenizer.pad({k: [enc[k][i] for i in ids] for k in enc.keys()}, return_tensors="pt")
    assert set(ours) == set(theirs.keys())
    for key in ours:
        assert ours[key].dtype == theirs[key].dtype and torch.equal(ours[key], theirs[key])


def test_packed_ids_are_the_tokenizers_and_scores_from_them_equal_scoring_the_texts(default_judge, monkeypatch):
    """What a worker sends the judge process (`Packed`, a slice of pairs each): every pair's
    ids as the tokenizer gives them, and the same verdicts, bit for bit, as the judge
    tokenizing the texts itself, across several slices."""
    from localeval.judge import nli

    pairs = _pairs()
    enc = default_judge.tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation="longest_first",
                                  max_length=default_judge.max_length)
    packed = Packed.of(enc)
    assert len(packed) == len(pairs) and set(packed.columns) == set(enc.keys())
    assert all(packed.row(k, i).tolist() == enc[k][i] for k in enc.keys() for i in range(len(pairs)))
    monkeypatch.setattr(nli, "ENCODE_SLICE", 5)
    slices = default_judge.encode(pairs)
    assert [len(s) for s in slices] == [5] * (len(pairs) // 5) + ([len(pairs) % 5] if len(pairs) % 5 else [])
    given = default_judge.score_distinct(pairs, "nli", batch_size=4, state=ScoringState(), encoded=slices)
    assert np.array_equal(given, default_judge.score_distinct(pairs, "nli", batch_size=4, state=ScoringState()))


def test_padding_keeps_verdicts_bit_for_bit_in_fp32(default_judge, monkeypatch):
    assert default_judge.dtype == torch.float32
    pairs = _pairs()
    ours = default_judge.score_distinct(pairs, "nli", batch_size=4, state=ScoringState())
    assert np.array_equal(ours, _reference(default_judge, pairs, monkeypatch, batch=4))


@pytest.mark.skipif(not cpu_has_native_bf16(), reason="bf16 on this CPU would be emulated; localeval refuses it")
def test_padding_keeps_bf16_verdicts_and_batch_neighbours_move_them(monkeypatch):
    """Same batches: same bf16 verdicts. Other batch neighbours move them by more than 1e-3,
    which is why workers' requests are judged alone (localeval.runner.workers)."""
    judge = NLIJudge(None, device="cpu", precision="bf16")
    pairs = _pairs()
    ours = judge.score_distinct(pairs, "nli", batch_size=4, state=ScoringState())
    assert np.abs(ours - _reference(judge, pairs, monkeypatch, batch=4)).max() <= 1e-3
    wider = judge.score_distinct(pairs, "nli", batch_size=24, state=ScoringState())
    assert np.abs(ours - wider).max() > 1e-3


def test_judge_time_plumbing(tmp_path, tiny_nli_dir, one_torch_thread):
    """benchmarks/studies/judge_time.py on a tiny judge: every part timed, the operators grouped."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.studies import judge_time

    out = tmp_path / "judge_time.json"
    assert judge_time.main(["--model", str(tiny_nli_dir), "--rows", "2", "--precision", "fp32",
                            "--peak-seconds", "0.05", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["pairs"] > 0 and result["batches"] > 0 and result["tokens"] > 0
    assert result["operator_s"]["linear layers"] > 0 and result["linear_tflop_per_s"] > 0
    assert "| tokenizing |" in out.with_suffix(".md").read_text()
    feed = result["feed_us_per_pair"]
    assert len(feed) == 3 and all(v > 0 for v in feed.values())
