"""Quick checks of the benchmark helpers: metrics, the overlap floor, sampling, readers."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `benchmarks` is not installed

from benchmarks.lib.metrics import (  # noqa: E402
    auroc,
    balanced_accuracy,
    best_threshold,
    candidate_thresholds,
    macro_best_threshold,
    paired_bootstrap_se,
)
from benchmarks.lib.overlap import content_words, overlap_score  # noqa: E402
from benchmarks.lib.readers import stratified_sample  # noqa: E402

def test_auroc_known_values():
    assert auroc([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == 1.0
    assert auroc([0, 0, 1, 1], [0.4, 0.3, 0.2, 0.1]) == 0.0
    assert auroc([0, 1], [0.5, 0.5]) == 0.5  # a tie counts one half
    # 3 of the 4 (pos, neg) pairs are ordered correctly.
    assert auroc([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1]) == 0.75
    assert np.isnan(auroc([1, 1], [0.2, 0.3]))


def _rmse(p, g):
    return float(np.sqrt(np.mean((p - g) ** 2)))


def _pearson(p, g):
    return None if p.std() == 0 or g.std() == 0 else float(np.corrcoef(p, g)[0, 1])


def test_paired_bootstrap_se_is_seeded_paired_and_skips_undefined_draws():
    rng = np.random.default_rng(0)
    gold = rng.random(60)
    base, other = gold + rng.normal(0, 0.3, 60), gold + rng.normal(0, 0.1, 60)
    stats = {"rmse": _rmse, "pearson": _pearson}
    se = paired_bootstrap_se(gold, base, other, stats)
    assert se == paired_bootstrap_se(gold, base, other, stats)  # seeded: the same every run
    assert se != paired_bootstrap_se(gold, base, other, stats, seed=14)
    assert 0 < se["rmse"] < 0.1 and 0 < se["pearson"] < 0.2
    # Paired: a prediction against itself differs by exactly 0 on every resample.
    assert paired_bootstrap_se(gold, base, base, stats) == {"rmse": 0.0, "pearson": 0.0}
    # Shared noise cancels: the same shift on both sides leaves a smaller SE than independent draws would.
    shifted = paired_bootstrap_se(gold, base, base + 0.05, {"rmse": _rmse})["rmse"]
    assert shifted < se["rmse"]
    # A constant prediction has no Pearson: never NaN, None when no resample defines it.
    assert paired_bootstrap_se(gold, np.full(60, 0.5), other, stats)["pearson"] is None
    with pytest.raises(ValueError):
        paired_bootstrap_se(gold, base[:-1], other, stats)


def test_balanced_accuracy_uses_greater_or_equal():
    labels, scores = [1, 1, 0, 0], [0.9, 0.5, 0.5, 0.1]
    # 0.5 counts as positive at t=0.5: TPR 1, TNR 1/2.
    assert balanced_accuracy(labels, scores, 0.5) == pytest.approx(0.75)
    assert balanced_accuracy(labels, scores, 0.6) == pytest.approx(0.75)
    assert balanced_accuracy(labels, scores, 0.0) == pytest.approx(0.5)


def test_best_threshold_sits_between_scores():
    t, ba = best_threshold([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.8])
    assert ba == 1.0 and 0.2 < t < 0.7
    assert t == pytest.approx(0.45)  # the tie of perfect thresholds goes to the one nearest 0.5


def test_macro_threshold_weighs_sets_equally():
    big = ([1] * 50 + [0] * 50, [0.9] * 50 + [0.6] * 50)  # separable at t in (0.6, 0.9)
    small = ([1, 0], [0.5, 0.2])  # separable at t in (0.2, 0.5)
    t, ba = macro_best_threshold([big, small])
    assert ba == pytest.approx(0.75)
    assert candidate_thresholds([0.2, 0.5]).tolist()[1] == pytest.approx(0.35)
    assert all(np.isnan(best_threshold([0, 0], [0.1, 0.2])))  # one class: undefined, no crash
    assert macro_best_threshold([small, ([0], [0.3])])[1] == 1.0  # undefined sets are ignored


def test_overlap_floor():
    assert content_words("The cat is not on the mat.") == {"cat", "mat"}
    assert overlap_score("The cat sat on the mat.", "A cat was on a mat") == pytest.approx(2 / 3)
    assert overlap_score("Paris is in France", ["Berlin is big.", "Paris, FRANCE!"]) == 1.0
    assert overlap_score("it is not", "it is") == pytest.approx(2 / 3)  # stopword-only claim
    assert overlap_score("", "anything") == 0.0


def test_stratified_sample_is_fixed_and_keeps_balance():
    labels = [1] * 30 + [0] * 70
    a, b = stratified_sample(labels, 10), stratified_sample(labels, 10)
    assert a == b and len(a) == 10 and a == sorted(a)
    assert sum(labels[i] for i in a) == 3
    assert stratified_sample(labels, None) == list(range(100))
    # balanced: the rare class is kept whole when the budget allows.
    rare = [1] * 5 + [0] * 95
    chosen = stratified_sample(rare, 20, balanced=True)
    assert len(chosen) == 20 and sum(rare[i] for i in chosen) == 5


class _Sentence:
    def __init__(self, text: str) -> None:
        self.text = text


def _naive_split(text: str) -> list[_Sentence]:
    return [_Sentence(s) for s in text.replace("! ", ". ").split(". ") if s]


def test_readers_on_shared_data(shared_data):
    from benchmarks.lib import readers

    eval_only = readers.load_eval_only(shared_data, limit=5)
    attribution, pairs = readers.load_meta_eval(shared_data, limit=5, splitter=_naive_split)
    names = {t.name for t in eval_only + attribution + pairs}
    assert {"anli/test", "covidfact/test", "wice/dev-article", "summac/polytope", "begin/dev", "sick/test"} <= names
    for task in eval_only + pairs:
        assert len(task.pairs) == len(task.labels) == 5
        assert all(isinstance(e, str) and isinstance(c, str) and c for e, c in task.pairs)
    wice = next(t for t in attribution if t.name == "wice/dev-article")
    assert wice.n_total == 349 and all(len(it.claims) == 1 for it in wice.items)
    assert {it.original_label for it in wice.items} <= {"supported", "partially_supported", "not_supported"}
    assert all(it.label == (it.original_label == "supported") for it in wice.items)


def test_judge_eval_end_to_end_with_tiny_model(tmp_path, shared_data):
    from benchmarks import judge_eval
    from tests.conftest import build_tiny_model

    # 128 tokens: at 64, a long HealthVer claim alone fills the input and cannot be judged.
    tiny = build_tiny_model(tmp_path / "tiny", {0: "contradiction", 1: "neutral", 2: "entailment"}, {"max_length": 128})

    out = tmp_path / "r.json"
    argv = ["--model", str(tiny), "--limit", "4", "--sections", "eval_only", "--sets", "anli,climate",
            "--no-speed", "--data-dir", str(shared_data), "--output", str(out),
            "--dump-scores", str(tmp_path / "scores.json.xz")]
    assert judge_eval.main(argv) == 0
    # A dump named .xz is written compressed (the committed ones are: every device call carries
    # the whole tree) and read back by the one reader every study uses.
    from benchmarks.lib.files import read_data

    assert (tmp_path / "scores.json.xz").read_bytes()[:6] == b"\xfd7zXZ\x00"
    dumped = read_data(tmp_path / "scores.json.xz")["sets"]
    assert sorted(dumped) == ["anli/test", "climate_fever/pairs"]
    assert len(dumped["anli/test"]["model"]) == len(dumped["anli/test"]["labels"]) == 4
    result = json.loads(out.read_text())
    assert [r["set"] for r in result["rows"]] == ["anli/test", "climate_fever/pairs"]
    assert result["rows"][0]["model"]["accuracy_3way"] is not None
    assert all(r["overlap"]["auroc"] is None or 0 <= r["overlap"]["auroc"] <= 1 for r in result["rows"])
    # Committed results must not carry this machine's paths: no absolute path anywhere.
    for text in (out.read_text(), out.with_suffix(".md").read_text()):
        assert not re.search(r"(?<![.\w])/[A-Za-z]", text), re.search(r"(?<![.\w])/[A-Za-z].{0,40}", text)
    assert out.with_suffix(".md").read_text().startswith("# Judge benchmark")


def test_long_context_benchmark_plumbing(tmp_path, tiny_nli_dir, one_torch_thread):
    """The long-context benchmark end to end on the tiny judge, at toy sizes, in this process."""
    from benchmarks import long_context

    out = tmp_path / "long.json"
    argv = ["--sizes", "150,300", "--model", str(tiny_nli_dir), "--same-process", "--output", str(out)]
    assert long_context.main(argv) == 0
    result = json.loads(out.read_text())
    assert [r["words"] >= size for r, size in zip(result["rows"], (150, 300))] == [True, True]
    assert all(len(r["attributed"]) == 3 and r["judge_pairs"] > 0 for r in result["rows"])
    assert result["machine"]["cpu_cores"] and result["s_per_1k_words_ratio_last_first"] > 0
    for text in (out.read_text(), out.with_suffix(".md").read_text()):
        assert not re.search(r"(?<![.\w])/[A-Za-z]", text), re.search(r"(?<![.\w])/[A-Za-z].{0,40}", text)


def test_hybrid_blend_is_chosen_on_dev_and_applied_per_claim(tmp_path):
    from benchmarks.studies import hybrid
    from benchmarks.judge_eval import THRESHOLD_DEV

    # Attribution item = min over claims of the blend, not the blend of the two mins.
    entry = {"labels": [1], "claims": [[(0.9, 0.1), (0.2, 0.8)]], "model": [0.2], "overlap": [0.1]}
    assert hybrid.blended(entry, 0.5)[0] == pytest.approx(0.5)
    assert hybrid.blended({"model": [0.2, 0.6], "overlap": [1.0, 0.0]}, 0.25) == pytest.approx([0.8, 0.15])

    # Dev families where neither scorer separates alone but their sum does: the chosen alpha is
    # strictly between 0 and 1 and the blend's dev accuracy beats both.
    rng = np.random.default_rng(0)
    sets = {}
    for family in THRESHOLD_DEV.values():
        m, o = rng.random(200), rng.random(200)
        y = (m + o > 1.0).astype(int)  # each alone separates only partly (BA about 75)
        sets[family[0]] = {"section": "meta_eval", "kind": "attribution", "labels": y.tolist(),
                           "model": m.tolist(), "overlap": o.tolist(),
                           "claims": [[(float(a), float(b))] for a, b in zip(m, o)]}
    sets["anli/test"] = {"section": "eval_only", "kind": "nli3", "labels": [0, 1], "model": [0.1, 0.9],
                         "overlap": [0.5, 0.5], "claims": None}
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"judge": "tiny", "sets": sets}))
    out = tmp_path / "hybrid.json"
    assert hybrid.main([str(path), "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    blend = result["choices"]["blend"]
    assert 0.0 < blend["alpha"] < 1.0
    assert blend["dev_balanced_accuracy"] > result["choices"]["judge"]["dev_balanced_accuracy"] + 0.1
    assert blend["dev_balanced_accuracy"] > result["choices"]["overlap"]["dev_balanced_accuracy"] + 0.1
    assert {r["set"]: r["in_sample"] for r in result["rows"]}["anli/test"] is False
    assert len(result["leave_one_family_out"]) == len(THRESHOLD_DEV)


def test_precision_benchmark_plumbing(tmp_path, tiny_nli_dir, shared_data):
    from benchmarks import precision
    from localeval.judge.dtypes import cpu_has_native_bf16

    out = tmp_path / "precision.json"
    argv = ["--model", str(tiny_nli_dir), "--pairs", "8", "--repeats", "1", "--batch-size", "4",
            "--data-dir", str(shared_data), "--output", str(out)]
    rc = precision.main(argv)
    if not cpu_has_native_bf16():
        assert rc == 1 and not out.exists()
        return
    assert rc == 0
    result = json.loads(out.read_text())
    assert result["pairs"] == 8 and result["bf16_over_fp32"] > 0
    assert result["bf16_vs_fp32"]["entailment"]["max_abs_diff"] < 0.05
    assert result["batch_dependence_max_abs_diff"]["fp32"] < 1e-4


def test_memory_curve_plumbing(tmp_path, tiny_nli_dir):
    from benchmarks import memory_curve

    out = tmp_path / "memory.json"
    assert memory_curve.main(["--model", str(tiny_nli_dir), "--rows", "12", "--chunk-size", "4",
                              "--precision", "fp32", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["rows_scored"] == 12 and result["cache_file"] is True
    assert [p["rows_written"] for p in result["curve"]][-1] == 12 and len(result["curve"]) == 10
    assert result["peak_rss_mb"] >= result["rss_after_load_mb"] > 0
    assert "| 12 |" in out.with_suffix(".md").read_text()
    # Thinning keeps the last sample and the peak.
    samples = [(float(i), i, 100.0 + (50 if i == 333 else 0)) for i in range(1000)]
    kept = memory_curve.thinned(samples, keep=20)
    assert len(kept) <= 22 and kept[-1] == samples[-1] and samples[333] in kept


def test_kernel_cache_plumbing(tmp_path, tiny_nli_dir):
    from benchmarks.studies import kernel_cache

    out = tmp_path / "kernels.json"
    assert kernel_cache.main(["--model", str(tiny_nli_dir), "--calls", "2", "--repeats", "1", "--precision", "fp32",
                              "--capacities", "1024,16", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result["summary"]) == {"1024", "16"} and result["summary"]["1024"]["time_vs_first"] == 1.0
    assert all(len(runs) == 1 and runs[0]["pairs"] == 2 * kernel_cache.CALL_PAIRS for runs in result["runs"].values())
    assert result["summary"]["16"]["rss_peak_mb"] >= result["summary"]["16"]["rss_loaded_mb"] > 0
    assert "| 16 |" in out.with_suffix(".md").read_text()


def test_bulk_speed_plumbing(tmp_path, one_torch_thread):
    from benchmarks import bulk_speed
    from tests.conftest import build_tiny_model

    five = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}
    tiny = build_tiny_model(tmp_path / "tiny5", five, {"max_length": 64, "tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}})
    out = tmp_path / "bulk.json"
    assert bulk_speed.main(["--model", str(tiny), "--rows", "2,3", "--naive-rows", "2",
                            "--device", "cpu", "--profile", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert [r["rows"] for r in result["runs"]] == [2, 3]
    # --profile: the session's timers and counters, without and with a filled cache file.
    fresh, cached = result["profile"]
    assert fresh["ms_per_row"]["judge"] > 0 and fresh["judge_pairs_per_row"] > 0 and fresh["judge_tflop_per_s"] > 0
    assert fresh["ms_per_row"]["split"] > 0 and fresh["ms_per_row"]["read"] > 0
    assert cached["judge_pairs_per_row"] == 0 and cached["ms_per_row"]["judge"] == 0
    # Every row's results are read back from the cache file: no pair is even asked for.
    assert cached["pairs_requested_per_row"] == 0 < fresh["pairs_requested_per_row"]
    assert cached["analyses_loaded"] > 0 and cached["analyses_saved"] == 0 and fresh["analyses_saved"] == 0
    run = result["runs"][1]
    assert run["judge_pairs"] > 0 and run["judge_tflop_per_s"] > 0 and 0 < run["judge_share_of_time"] <= 1
    assert result["cached"]["rows"] == 2 and result["naive_loop"]["rows"] == 2
    assert result["cached"]["rerun_new_process_s"] > 0
    assert "share_of_h100_peak" not in run  # a CPU run is not compared with a GPU's peak
    alone = {r["metric"]: r for r in result["per_metric"]}
    assert set(alone) == set(bulk_speed.METRICS) and alone["context_recall"]["judge_pairs_per_row"] > 0
    with pytest.raises(SystemExit):
        bulk_speed.main(["--rows", "0", "--output", str(out)])


def test_compute_floor_plumbing(tmp_path, one_torch_thread):
    from benchmarks import compute_floor
    from tests.conftest import build_tiny_model

    five = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}
    tiny = build_tiny_model(tmp_path / "tiny5", five, {"max_length": 64, "tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}})
    out = tmp_path / "floor.json"
    assert compute_floor.main(["--model", str(tiny), "--rows", "2", "--precision", "fp32", "--peak-seconds", "0.05",
                               "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["peak_tflop_per_s"] == max(result["matmul_tflop_per_s"].values()) > 0
    recall = result["runs"]["context_recall"]
    assert recall["pairs_per_row"] > 0 and recall["gflop_per_row"] > 0 and recall["target_rows_per_s"] == 40.0
    # The ceiling at peak is FLOPs-bound: peak / work per row.
    assert recall["ceiling_rows_per_s_at_peak"] == pytest.approx(
        result["peak_tflop_per_s"] * 1e3 / recall["gflop_per_row"], rel=0.01, abs=0.06)
    assert "ceiling at peak" in out.with_suffix(".md").read_text()
    # A forward pass by operator kind: every operator's time in one kind, the products found.
    ops = compute_floor.forward_ops(str(tiny), "fp32", batch=2, rounds=1)
    assert set(ops["lengths"]) == {48, 96, 128}  # the tiny judge's 128 positions
    for row in ops["lengths"].values():
        assert sum(row["shares"].values()) == pytest.approx(1.0, abs=0.01)
        assert row["shares"]["linear layers"] > 0 and row["shares"]["attention"] > 0
        assert row["linear_tflop_per_s"] > 0 and row["forward_tflop_per_s"] > 0
    assert compute_floor._kind_of("mkldnn::_linear_pointwise") == "linear layers"
    assert compute_floor._kind_of("aten::_scaled_dot_product_flash_attention_for_cpu") == "attention"
    assert compute_floor._kind_of("aten::embedding") == "other"
    att = compute_floor.attention_kernels("fp32", batch=2, heads=2, head_dim=8, rounds=1)
    assert set(att["lengths"]) == set(compute_floor.AB_LENGTHS)
    assert all(r["fused_ms"] > 0 and r["written_ms"] > 0 and r["max_abs_diff"] < 1e-4 for r in att["lengths"].values())
    from localeval.judge.dtypes import cpu_has_native_bf16

    if cpu_has_native_bf16():  # packed and plain bf16 linear layers timed in turns: same logits
        ab = compute_floor.packed_vs_plain(str(tiny), rounds=1, batch=2)
        assert ab["packed_linear_layers"] > 0 and set(ab["lengths"]) == {48, 96, 128}  # the tiny judge's 128 positions
        assert all(r["same_logits"] and r["packed_ms"] > 0 for r in ab["lengths"].values())


def test_frank_errors_by_category():
    from benchmarks.studies import frank_errors

    ok = {c: 1.0 for c in frank_errors.CATEGORIES}
    rows = [{"Factuality": 1.0, **ok}] * 4 + [{"Factuality": 0.5, **ok, "OutE": 0.5}] * 3 + [{"Factuality": 0.5, **ok, "EntE": 0.0}] * 3
    features = [{"claims": [{"signals": {"p_best": p}, "overlap": o}]}
                for p, o in zip([0.9, 0.2, 0.8, 0.7, 0.95, 0.1, 0.3, 0.6, 0.5, 0.4], [1, 1, 1, 1, 0.5, 0.4, 0.3, 1, 1, 1])]
    table = {r["category"]: r for r in frank_errors.by_category(rows, *frank_errors.item_scores(features))}
    # Overlap ranks every out-of-article summary below every factual one; the judge does not.
    assert table["OutE"]["overlap_auroc"] == 100.0 and table["OutE"]["judge_auroc"] < 100.0
    assert table["OutE"]["n_with_error"] == 3 and table["EntE"]["n_with_error"] == 3
    assert table["EntE"]["overlap_auroc"] == 50.0  # ties with every factual summary
    assert table["GramE"]["n_with_error"] == 0 and table["OutE"]["difference_se"] is not None


def test_coverage_gates_trade_off():
    from benchmarks.studies import coverage_gates as cg

    # A gate only discounts below `full` coverage, and only by the power.
    g = cg.gate(0.5, 2.0, "all")
    assert g({"p_best": 0.8, "coverage_all": 0.75}) == 0.8 and abs(g({"p_best": 0.8, "coverage_all": 0.25}) - 0.2) < 1e-12
    # Rare words: those split into several pieces, and numbers; found after the coverage words' normalising.
    pieces = lambda token: 1 if len(token) <= 6 else 2  # noqa: E731
    assert cg.rare_words("The Kelvingrove dome was 12 metres wide", pieces) >= {"12"}
    words = cg.lexical("The Kelvingrove dome reopened in 2006", ["The dome reopened in 2006."], pieces)
    assert words["coverage_rare"] < 1.0 and words["coverage_all"] < 1.0
    assert cg.lexical("The dome reopened in 2006", ["The dome reopened in 2006."], pieces) == {
        "coverage_all": 1.0, "coverage_rare": 1.0}

    def claim(p, cov, overlap):
        return {"signals": {"p_best": p, "coverage_all": cov, "coverage_rare": cov}, "overlap": overlap}

    # FRANK-like: two unsupported summaries the judge likes but whose words are missing; overlap sees them.
    family = [{"label": 1, "claims": [claim(0.9, 1.0, 1.0)]}, {"label": 1, "claims": [claim(0.7, 1.0, 1.0)]},
              {"label": 0, "claims": [claim(0.95, 0.4, 0.4)]}, {"label": 0, "claims": [claim(0.8, 0.5, 0.5)]},
              {"label": 0, "claims": [claim(0.2, 1.0, 1.0)]}]
    # A paraphrase the judge accepts with few of the premise's words, and a contrast it rejects.
    sets = {"contrast": [{"label": 1, "found": True, "signals": {"p_best": 0.9, "coverage_all": 0.6, "coverage_rare": 1.0}},
                         {"label": 0, "found": True, "signals": {"p_best": 0.3, "coverage_all": 1.0, "coverage_rare": 1.0}}]}
    out = cg.sweep({"frank": family}, sets, 0.5, fulls=(0.5, 1.0), powers=(2.0,), coverages=("all", "rare"))
    assert out["judge"]["auroc"]["frank"] < out["overlap"]["frank"] and out["judge"]["sets"]["contrast"] == 1.0
    by = {(r["coverage"], r["full"]): r for r in out["gates"]}
    strict, loose = by[("all", 1.0)], by[("all", 0.5)]
    assert strict["above_overlap"] and not strict["keeps_sets"]  # it rejects the paraphrase
    assert loose["keeps_sets"] and not loose["above_overlap"]
    assert by[("rare", 1.0)]["keeps_sets"] and by[("rare", 1.0)]["above_overlap"] and out["any_passes"]
    assert strict["margin"]["frank"]["se"] is not None
    text = cg.markdown({"command": "c", "machine": {"cpu": "x", "cpu_cores": 2, "date_utc": "d"}, "features": "f",
                        "threshold": 0.5, "sweep": out})
    assert "A gate passes both sides" in text and "rare, full 1, power 2" in text


def test_prefilter_comparison_plumbing(tmp_path):
    from benchmarks.studies import prefilter

    def run(sha, auroc, seconds):
        row = {"set": "wice/dev-article", "kind": "attribution", "n": 10, "seconds": seconds,
               "model": {"auroc": auroc, "balanced_accuracy_oracle": 0.7}}
        return {"model": {"name": "j", "weights_sha256": sha}, "command": "python benchmarks/judge_eval.py",
                "machine": {"date_utc": "d", "cpu": "c"}, "threshold": {"chosen": 0.5, "chosen_dev_balanced_accuracy": 0.74},
                "rows": [row, {**row, "set": "anli/test", "kind": "nli3"}]}

    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps(run("x", 0.68, 400.0)))
    b.write_text(json.dumps(run("x", 0.71, 50.0)))
    c.write_text(json.dumps(run("y", 0.71, 50.0)))
    out = tmp_path / "pf.json"
    assert prefilter.main([f"all={a}", f"6={b}", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert [s["set"] for s in result["sets"]] == ["wice/dev-article"]  # attribution sets only
    assert result["sets"][0]["6"]["auroc"] == 0.71 and result["sets"][0]["all"]["seconds"] == 400.0
    with pytest.raises(SystemExit):
        prefilter.main([f"all={a}", f"6={c}", "--output", str(out)])  # different judges
    with pytest.raises(SystemExit):
        prefilter.main([str(a), "--output", str(out)])  # no label


def test_contrast_set_is_well_formed():
    from benchmarks.contrast import CATEGORIES, DATA, load_items

    items = load_items(DATA)  # raises on a malformed line, a bad label or category, a repeated id
    assert len(items) >= 100
    assert len({i.id for i in items}) == len(items)
    by_category = {c: [i for i in items if i.category == c] for c in CATEGORIES}
    assert all(len(v) >= 12 for v in by_category.values()), {c: len(v) for c, v in by_category.items()}
    assert {i.label for i in by_category["plain_supported"]} == {"supported"}
    assert {i.label for i in by_category["plain_unsupported"]} == {"not_supported"}
    for c in CATEGORIES[:7]:  # the contrast categories test both verdicts
        labels = [i.label for i in by_category[c]]
        assert labels.count("supported") >= 4 and labels.count("not_supported") >= 4, c
    for item in items:
        assert item.claim not in item.premise or item.label == "supported", item.id
        assert item.claim.rstrip().endswith((".", "?", "!")) and item.premise.count(".") >= 2, item.id


def test_contrast_set_rejects_bad_lines(tmp_path):
    from benchmarks.contrast import load_items

    good = {"id": "a", "category": "number_words", "premise": "P. Q.", "claim": "C.", "label": "supported"}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "label": "yes"}) + "\n")
    with pytest.raises(ValueError, match="line 2"):
        load_items(path)
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(good) + "\n")
    with pytest.raises(ValueError, match="already on line 1"):
        load_items(path)


def test_contrast_benchmark_plumbing(tmp_path, tiny_nli_dir, one_torch_thread):
    from benchmarks import contrast

    out = tmp_path / "contrast.json"
    assert contrast.main(["--model", str(tiny_nli_dir), "--limit", "2", "--device", "cpu", "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    assert [r["category"] for r in result["categories"]] == list(contrast.CATEGORIES)
    assert all(r["n"] == 2 and 0.0 <= r["accuracy"] <= 1.0 for r in result["categories"])
    assert result["overall"]["n"] == len(result["items"]) == 2 * len(contrast.CATEGORIES)
    # The verdict is the probability against the judge's context recall threshold.
    t = result["threshold"]["value"]
    for row in result["items"]:
        assert (row["verdict"] == "supported") == (row["probability"] >= t)
        assert row["correct"] == (row["verdict"] == row["label"])
    md = out.with_suffix(".md").read_text()
    assert md.startswith("# Contrast benchmark") and "| **overall** | 18 |" in md
    for text in (out.read_text(), md):
        assert not re.search(r"(?<![.\w])/[A-Za-z]", text), re.search(r"(?<![.\w])/[A-Za-z].{0,40}", text)
    assert contrast.main(["--data", str(tmp_path / "missing.jsonl"), "--output", str(out)]) == 2


def test_candidates_benchmark_standard_errors():
    import numpy as np

    from benchmarks.studies.candidates import auroc_se, ba_se

    labels = np.array([1] * 50 + [0] * 50)
    perfect = labels.copy()
    assert ba_se(labels, perfect) == 0.0
    half = np.array([1, 0] * 50)  # each recall 0.5 on 50 items: SE = 0.5 * sqrt(2 * 0.25 / 50)
    assert ba_se(labels, half) == pytest.approx(0.5 * (2 * 0.25 / 50) ** 0.5)
    # Hanley-McNeil: an AUROC of 0.5 on 50 + 50 items has SE about 0.058; it shrinks near 1.
    assert auroc_se(0.5, 50, 50) == pytest.approx(0.0578, abs=1e-3)
    assert auroc_se(0.95, 50, 50) < auroc_se(0.7, 50, 50)
    assert np.isnan(auroc_se(0.7, 0, 50))


def test_rule_findings_counts_flagged_claims_by_label_and_what_a_change_moves():
    from collections import Counter

    from benchmarks.studies import rule_findings as rf

    items = [{"contexts": ["Check the filter weekly. Do not store the vaccine in the freezer."], "label": 0},
             {"contexts": ["If you do not prime the pump, the seals can burn out.", "Run the pump for ten minutes."],
              "label": 1}]
    claims = [["Store the vaccine in the freezer.", "Check the filter weekly."], ["Prime the pump before use."]]
    assert rf.short_units("One two. Three four. Five six.") == ["One two. Three four.", "Three four. Five six."]
    found, pairs = rf.findings(items, claims, ("polarity",))
    assert [(h["item"], h["claim"]) for h in found["polarity"]] == [(0, "Store the vaccine in the freezer.")]
    assert pairs == 2 * 1 + 1 * 2  # each claim against each unit of its item
    # Only the pairs where claim and unit both hold a word: here, "freezer" -- one pair.
    narrow, read = rf.findings(items, claims, ("polarity",), re.compile("freezer", re.I))
    assert read == 1 and narrow == found
    assert rf.findings(items, claims, ("polarity",), re.compile("pump", re.I)) == ({"polarity": []}, 2)
    # Only the claims that hold a word, each against every unit of its item: one claim, one unit.
    assert rf.findings(items, claims, ("polarity",), claimed=re.compile("freezer", re.I)) == (found, 1)
    assert rf.findings(items, claims, ("polarity",), claimed=re.compile("pump", re.I)) == ({"polarity": []}, 2)
    # Only the claims an earlier run flagged (`--flagged`): that claim against its item's one unit.
    assert rf.findings(items, claims, ("polarity",), only={(0, "Store the vaccine in the freezer.")}) == (found, 1)
    assert rf.findings(items, claims, ("polarity",), only=set()) == ({"polarity": []}, 0)
    table = rf.tally(found, Counter({0: 2, 1: 1}))
    assert {(r["label"], r["flagged"], r["per_hundred"]) for r in table} == {("unfaithful", 1, 50.0), ("faithful", 0, 0.0)}
    before = {"polarity": [{"item": 1, "claim": "Prime the pump before use.", "label": 1, "reason": "polarity: ..."}]}
    moved = rf.changes(before, found)["polarity"]
    assert [h["claim"] for h in moved["quiet"]] == ["Prime the pump before use."]
    assert [h["claim"] for h in moved["new"]] == ["Store the vaccine in the freezer."]
    # What raises a claim is read the same way: the dates bear out the first claim only.
    dated = [{"contexts": ["The museum opened in 1889. Its library opened in 1902."], "label": 1}]
    raised, _ = rf.findings(dated, [["The museum opened before its library.", "The museum has a library."]],
                            (rf.CONFIRMATION,))
    assert [h["claim"] for h in raised[rf.CONFIRMATION]] == ["The museum opened before its library."]
    assert rf.changes(before, {**found, **raised}).keys() == {"polarity"}  # not read before: not compared


def test_rule_findings_refuses_to_compare_runs_that_read_other_pairs(tmp_path):
    from benchmarks.studies import rule_findings as rf

    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps({"both_match": None, "families": {}}), encoding="utf-8")
    with pytest.raises(SystemExit, match="compare runs that read the same pairs"):
        rf.main(["--before", str(wide), "--both-match", "km", "--output", str(tmp_path / "out.json")])
    with pytest.raises(SystemExit, match="no regular expression"):
        rf.main(["--both-match", "(km", "--output", str(tmp_path / "out.json")])
    with pytest.raises(SystemExit, match="--claim-match None, this run 'century'"):
        rf.main(["--before", str(wide), "--claim-match", "century", "--output", str(tmp_path / "out.json")])
    with pytest.raises(SystemExit, match="--flagged re-reads the claims a --before run flagged"):
        rf.main(["--flagged", "--output", str(tmp_path / "out.json")])
    with pytest.raises(SystemExit, match="--claim-match is no regular expression"):
        rf.main(["--claim-match", "(km", "--output", str(tmp_path / "out.json")])


def test_judge_compare_reads_auroc_differences_with_their_standard_error(tmp_path):
    """judge_compare: each later judge's AUROC minus the first's per shared set, with a paired
    bootstrap SE, flagged where lower beyond one SE (the adoption rule of a trained judge)."""
    from benchmarks import judge_compare
    from benchmarks.lib.files import write_data

    rng = np.random.default_rng(3)
    labels = [int(x) for x in rng.integers(0, 2, 200)]
    good = [0.7 * y + 0.3 * float(rng.random()) for y in labels]  # separates the classes
    noisy = [float(rng.random()) for _ in labels]  # does not
    runs = []
    for name, scores in (("a", good), ("b", noisy)):
        sets = {"wice/dev": {"section": "meta_eval", "kind": "nli", "labels": labels, "model": scores,
                             "overlap": noisy, "claims": None},
                "begin/dev": {"section": "meta_eval", "kind": "nli", "labels": labels, "model": good,
                              "overlap": noisy, "claims": None}}
        write_data(tmp_path / f"{name}.json.xz", {"judge": name, "sets": sets})
        result = {"threshold": {"chosen": 0.5, "chosen_dev_balanced_accuracy": 0.7},
                  "thresholds_used": {"relevance": 0.5}, "model": {"name": name, "weights_sha256": name}}
        write_data(tmp_path / f"{name}_result.json", result)
        runs.append(f"{name}={tmp_path / f'{name}_result.json'}:{tmp_path / f'{name}.json.xz'}")
    judge_compare.main([*runs, "-o", str(tmp_path / "judges.md")])
    diffs = json.loads((tmp_path / "judges.json").read_text())["auroc_differences"]["b"]
    assert diffs["wice/dev"]["difference"] < -0.2 and diffs["wice/dev"]["lower_beyond_se"] is True
    assert 0 < diffs["wice/dev"]["se"] < 0.1
    assert diffs["begin/dev"]["difference"] == 0.0 and diffs["begin/dev"]["lower_beyond_se"] is False
    assert "## AUROC of b minus a (paired bootstrap SE)" in (tmp_path / "judges.md").read_text()
