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


def test_padding_width_study_plumbing(tmp_path, tiny_nli_dir, one_torch_thread):
    """benchmarks/studies/padding_width.py on a tiny judge: wider masked padding and pairs alone
    are compared with the judge's own batches; in fp32 the text, not the company, decides."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.studies import padding_width

    out = tmp_path / "padding_width.json"
    assert padding_width.main(["--model", str(tiny_nli_dir), "--rows", "2", "--extra", "8",
                               "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    fp32 = [r for r in result["comparisons"] if r["precision"] == "fp32"]
    assert result["pairs"] > 0 and len(result["comparisons"]) == (4 if cpu_has_native_bf16() else 2)
    assert all(r["max_abs_diff"] < 1e-5 for r in fp32)
    assert "| fp32 | each batch 8 tokens wider |" in out.with_suffix(".md").read_text()


def test_batches_go_to_a_gpu_pinned_and_without_waiting(monkeypatch):
    """The CUDA path of `to_device`, run here with the copy recorded instead of made: page-locked
    first, then non-blocking; a CPU judge copies as before and never pins (pinning needs CUDA)."""
    from localeval.judge.nli import to_device

    batch = {"input_ids": torch.tensor([[101, 7, 102]]), "attention_mask": torch.tensor([[1, 1, 1]])}
    assert to_device(batch, torch.device("cpu"), pinned=True)["input_ids"] is batch["input_ids"]
    calls = []
    monkeypatch.setattr(torch.Tensor, "pin_memory", lambda self: calls.append("pin") or self)
    monkeypatch.setattr(torch.Tensor, "to", lambda self, device, non_blocking=False: calls.append(
        (str(device), non_blocking)) or self)
    to_device(batch, torch.device("cuda"), pinned=True)
    assert calls == ["pin", ("cuda", True)] * 2
    calls.clear()
    to_device(batch, torch.device("cuda"), pinned=False)
    assert calls == [("cuda", False)] * 2


def test_judge_gpu_study_plumbing(tmp_path, tiny_nli_dir, one_torch_thread):
    """benchmarks/studies/judge_gpu.py on a tiny judge and the CPU: the model alone and the
    judge's whole path at each batch size, idle and beside a busy core, the requests merged and
    with gaps, the same probabilities (merged: within float noise)."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.studies import judge_gpu

    out = tmp_path / "judge_gpu.json"
    assert judge_gpu.main(["--model", str(tiny_nli_dir), "--device", "cpu", "--rows", "2", "--batch-sizes", "4,8",
                           "--busy", "1", "--repeats", "1", "--gap-ms", "5", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    runs = result["runs"]
    paths = (("model alone", 0), ("judge process", 0), ("judge process", 1), ("model alone, requests merged", 0),
             ("judge process, requests merged", 0), ("judge process, requests 0 ms apart", 0),
             ("judge process, requests 5 ms apart", 0))
    assert {(r["batch_size"], r["path"], r["busy_cores"]) for r in runs} == {
        (b, p, c) for b in (4, 8) for p, c in paths if b == 4 or "apart" not in p}
    assert all(r["pairs_per_s"] > 0 for r in runs)
    assert all(r["max_diff_vs_unpinned"] == 0.0 for r in runs if r["path"].startswith("judge process")
               and "merged" not in r["path"])
    by = {(r["batch_size"], r["path"]): r for r in runs}
    for b in (4, 8):  # merged requests fill their batches: fewer of them, the same verdicts but for float noise
        assert by[b, "model alone, requests merged"]["batches"] < by[b, "model alone"]["batches"]
        assert by[b, "judge process, requests merged"]["max_diff_vs_unpinned"] < 1e-5
    assert result["pairs"] > 0 and "| model alone |" in out.with_suffix(".md").read_text()
    assert result["complete"] is True and "Stopped before the end" not in out.with_suffix(".md").read_text()
    # Each configuration is saved as soon as it is measured: a study its device step stops
    # still leaves the runs it made, and says that it stopped.
    from localeval.judge import get_judge

    judge = get_judge(str(tiny_nli_dir), device="cpu")
    requests = judge_gpu.requests_of(judge, [(pairs, "nli") for pairs in ([("A cat sat.", "A cat sat.")] * 3,)])
    saved: list[int] = []
    judge_gpu.measure(judge, requests, [2, 4], busy=0, repeats=1, save=lambda runs: saved.append(len(runs)))
    assert saved == [1, 2, 3, 4, 5, 6, 7, 8]  # per batch size: alone, the judge's path, merged twice
    partial = judge_gpu.render({**result, "complete": False, "runs": runs[:2]})
    assert "Stopped before the end" in partial and partial.count("| model alone |") == 1
