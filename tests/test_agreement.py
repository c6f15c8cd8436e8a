"""The agreement harness (`benchmarks.agreement`): its plumbing on a tiny meta-eval folder
written here in the upstream formats, its cross-validated threshold choice, and the metrics'
per-metric thresholds with their fallback to the generic ones."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `benchmarks` is not installed

from benchmarks.agreement.ablation import pairwise  # noqa: E402
from benchmarks.agreement.thresholds import cv_binary, cv_graded, folds_of  # noqa: E402

FACTS = [
    ("Marie Curie was born in Warsaw in 1867.", "Where was Marie Curie born?"),
    ("The Danube flows through Vienna and Budapest.", "Which cities does the Danube flow through?"),
    ("Mount Kenya is the highest mountain in Kenya.", "What is the highest mountain in Kenya?"),
    ("Insulin is produced by the pancreas.", "Which organ produces insulin?"),
]
FILLER = ["The weather was mild that spring.", "Many tourists visit the region every summer."]


def _ragbench_rows() -> pd.DataFrame:
    rows = []
    for i, (fact, question) in enumerate(FACTS):
        other = FACTS[(i + 1) % len(FACTS)][0]
        docs = [[["0a", fact], ["0b", FILLER[0]]], [["1a", other], ["1b", FILLER[1]]]]
        grounded = i % 2 == 0
        rows.append({
            "id": f"r{i}", "question": question,
            "documents": [" ".join(s for _, s in d) for d in docs],
            "response": fact if grounded else "The answer is unknown to historians of Peru.",
            "documents_sentences": docs,
            "all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"] if grounded else [],
            "adherence_score": grounded, "relevance_score": 0.25, "utilization_score": 0.25 if grounded else 0.0,
            "completeness_score": 1.0 if grounded else 0.0, "gpt3_context_relevance": 0.5,
        })
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def meta_eval(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("data") / "meta-eval"
    from benchmarks.agreement.ragbench import SUBSETS

    for subset in SUBSETS:
        (root / "ragbench" / subset).mkdir(parents=True)
        _ragbench_rows().to_parquet(root / "ragbench" / subset / "validation-00000-of-00001.parquet")
    wice = [{"claim": f, "evidence": [f, FILLER[0]] if k else [FILLER[0], FILLER[1]],
             "label": "supported" if k else "not_supported"} for f, _ in FACTS for k in (0, 1)]
    (root / "wice" / "claim").mkdir(parents=True)
    (root / "wice" / "claim" / "dev.jsonl").write_text("\n".join(json.dumps(r) for r in wice) + "\n")
    (root / "summac").mkdir()
    for subset in ("factcc", "polytope", "summeval", "xsumfaith"):
        items = {f"{i}": {"document": f"{f} {FILLER[0]}", "claim": f if i % 2 else "Paris is in Japan.", "label": i % 2}
                 for i, (f, _) in enumerate(FACTS)}
        (root / "summac" / f"{subset}.json").write_text(json.dumps(items))
    for folder, name in (("wow", "begin_dev_wow.tsv"), ("topicalchat", "begin_dev_tc.tsv"), ("cmu-dog", "begin_dev_cmu.tsv")):
        (root / "begin" / folder).mkdir(parents=True)
        lines = ["knowledge\tresponse\tbegin_label"] + [
            f"{f}\t{f if i % 2 else 'I like cats a lot.'}\t{'Fully attributable' if i % 2 else 'Generic'}"
            for i, (f, _) in enumerate(FACTS)
        ]
        (root / "begin" / folder / name).write_text("\n".join(lines) + "\n")
    (root / "attributionbench").mkdir()
    claims = [{"claim": f if i % 2 else "Paris is in Japan.", "references": [f"{f} {FILLER[0]}"],
               "attribution_label": "attributable" if i % 2 else "not attributable", "src_dataset": "ExpertQA"}
              for i, (f, _) in enumerate(FACTS)]
    (root / "attributionbench" / "dev_all_subset_balanced.noLFQA.jsonl").write_text(
        "\n".join(json.dumps(r) for r in claims) + "\n")
    (root / "frank").mkdir()
    frank = [{"hash": f"h{i}", "model_name": "m", "split": "valid", "article": f"{f} {FILLER[1]}",
              "summary": f if i % 2 else "The moon is made of cheese.", "Factuality": float(i % 2)}
             for i, (f, _) in enumerate(FACTS)]
    (root / "frank" / "frank_joined.jsonl").write_text("\n".join(json.dumps(r) for r in frank) + "\n")
    baselines = [{"hash": r["hash"], "model_name": "m", "FactCC": float(i % 2), "Rouge L": 0.3 + 0.1 * i}
                 for i, r in enumerate(frank)]
    (root / "frank" / "baseline_factuality_metrics_outputs.json").write_text(json.dumps(baselines))
    return root


def _finite_or_none(obj) -> None:
    if isinstance(obj, dict):
        for v in obj.values():
            _finite_or_none(v)
    elif isinstance(obj, list):
        for v in obj:
            _finite_or_none(v)
    elif isinstance(obj, float):
        assert math.isfinite(obj)


def test_harness_writes_the_table_with_floors_and_leaves_the_judge_alone(meta_eval, tmp_path, default_judge):
    from benchmarks.agreement.__main__ import main

    config = default_judge.path / "config.json"
    before = config.read_bytes()
    out = tmp_path / "agreement.json"
    report = main(["--data-dir", str(meta_eval), "--limit-per-set", "2", "--output", str(out)])
    assert config.read_bytes() == before  # thresholds are written only when asked
    saved = json.loads(out.read_text())  # valid JSON: no NaN anywhere
    _finite_or_none(saved)
    s = saved["sections"]
    assert {r["set"] for r in s["relevance"]} == {f"ragbench/{x}" for x in
                                                  ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")}
    for r in s["relevance"]:
        assert r["n"] == 2 and 0 <= r["rmse"] <= 1 and 0 <= r["floor_overlap_rmse_cv"] <= 1
        assert r["mean_floor_rmse"] == 0.0  # the gold relevance is constant here: the mean is exact
        assert r["gpt35_rmse_these_rows"] == 0.25  # the shipped baseline column, computed here
        assert 0 <= r["sentence_f1"] <= 1
    names = {(r["set"], r["metric"]) for r in s["binary"]}
    assert {("wice/dev-article", "context_recall"), ("wice/dev-article", "faithfulness"),
            ("begin/dev", "faithfulness"), ("frank/valid", "faithfulness"), ("summac/factcc", "faithfulness"),
            ("attributionbench/dev", "faithfulness")} <= names
    for r in s["binary"]:
        assert 0 <= r["ba_final"] <= 1 and 0 <= r["ba_cv"] <= 1 and 0 <= r["floor_ba_cv"] <= 1
        assert r["n"] >= 2
    # the unsupported half of every set is plain word salad against the context: the floor sees it
    assert all(r["floor_auroc"] > 0.5 for r in s["binary"] if not r["set"].startswith("ragbench"))
    assert {r["metric"] for r in s["frank"]} >= {"floor: word overlap (lowest claim share)"}
    assert {r["metric"] for r in s["ablation"]} == {"context_recall", "chunk_recall", "question_recall"}
    for r in s["ablation"]:
        assert r["n"] == 1 and 0 <= r["accuracy"] <= 1  # the grounded row of the two sampled
    for key, value in saved["thresholds"]["final"].items():
        assert 0 <= value <= 1, key
    answers = s["answers"]
    assert [r["set"] for r in answers["ragbench"]] == [r["set"] for r in s["relevance"]]
    for r in answers["ragbench"]:
        assert r["n"] == 2 and r["adherence"]["n"] == 2 and r["unscored"] <= 2
    assert {r["set"] for r in answers["summaries"]} >= {"frank/valid", "summac/factcc"}
    pooled = {(m["target"], m["floor"]) for m in answers["margins"]}
    assert ("RAGBench completeness", "always the mean") in pooled and ("SummaC (4 subsets)", "word overlap") in pooled
    assert next(m for m in answers["margins"] if m["target"] == "RAGBench adherence")["n"] == 14  # 7 subsets x 2
    md = out.with_suffix(".md").read_text()
    assert "| ragbench/hotpotqa |" in md and "AlignScore 66.0" in md and "floor" in md
    assert "## Answer-side metrics" in md and "| frank/valid |" in md
    assert report["limit_per_set"] == 2


def test_answer_side_margins_are_paired_differences_with_their_noise():
    from benchmarks.agreement.answers import auroc_margin, graded_margin, markdown_lines

    rng = np.random.default_rng(0)
    gold = rng.random(200)
    good, noise = gold + rng.normal(0, 0.05, 200), rng.random(200)
    m = graded_margin(gold, good, noise)
    assert m["pearson"]["margin"] > 4 * m["pearson"]["se"] > 0  # a real gain, far outside the noise
    assert m["rmse"]["margin"] < 0
    assert "pearson" not in graded_margin(gold, good, None)  # the mean has no correlation
    labels = (gold > 0.5).astype(int)
    same = auroc_margin(labels, noise, noise)["auroc"]
    assert same["margin"] == 0 and same["se"] == 0  # a scorer against itself: nothing to tell apart
    one_class = auroc_margin(np.ones(5), rng.random(5), rng.random(5))["auroc"]
    assert one_class["margin"] is None and one_class["se"] is None  # undefined, not NaN
    lines = markdown_lines({"ragbench": [], "summaries": [], "margins": [
        {"target": "t", "ours": "o", "floor": "word overlap", "n": 5, "auroc": one_class},
        {"target": "t", "ours": "o", "floor": "word overlap", "n": 200, **m}]})
    assert "| t | o | word overlap | 5 | auroc | — | — | — | — |" in lines
    assert any("| pearson |" in line and line.endswith("| yes |") for line in lines)


def test_frank_baselines_are_correlated_on_the_same_rows(meta_eval):
    from benchmarks.agreement.frank import baseline_correlations, load_frank

    rows, n_total = load_frank(meta_eval, None)
    assert n_total == 4 and len(rows) == 4
    figures = baseline_correlations(meta_eval, rows)
    assert figures["FactCC"] == {"n": 4, "pearson": pytest.approx(1.0), "spearman": pytest.approx(1.0)}
    assert "QAGS" not in figures  # not in this file's outputs: left out, not scored as 0


def test_thresholds_are_written_only_on_full_runs(meta_eval, tmp_path):
    from benchmarks.agreement.__main__ import parse_args

    with pytest.raises(SystemExit):
        parse_args(["--data-dir", str(meta_eval), "--limit-per-set", "3", "--write-thresholds"])
    with pytest.raises(SystemExit):  # stored thresholds serve the default (rule) decomposer
        parse_args(["--data-dir", str(meta_eval), "--decomposer", "smol.gguf", "--write-thresholds"])
    # An LLM decomposer's table goes beside the rules' one, not over it.
    assert parse_args(["--data-dir", str(meta_eval), "--decomposer", "smol.gguf"]).output.name == "agreement-llm.json"
    assert parse_args(["--data-dir", str(meta_eval)]).output.name == "agreement.json"


def test_cv_binary_scores_out_of_fold_and_weighs_families():
    rng = np.random.default_rng(0)
    y = np.array([1] * 40 + [0] * 40)
    clean = np.where(y == 1, 0.8, 0.3) + rng.normal(0, 0.01, 80)
    noisy = rng.uniform(0, 1, 80)
    res = cv_binary({"clean": (y, clean), "noisy": (y, noisy)}, stored=0.5)
    assert 0.3 < res["threshold"] < 0.8
    assert res["families"]["clean"]["ba_cv"] == 1.0
    # out of fold, pure noise is near chance, while its in-sample figure can only be higher
    assert res["families"]["noisy"]["ba_cv"] <= res["families"]["noisy"]["ba_chosen_in_sample"] + 1e-9
    assert len(res["oof"]["clean"]) == 80


def test_cv_graded_finds_the_threshold_that_reproduces_the_share():
    # Each item: 10 sentence probabilities, the gold share is the share above 0.6.
    rng = np.random.default_rng(1)
    probs = [rng.uniform(0, 1, 10).tolist() for _ in range(60)]
    gold = [float(np.mean(np.asarray(p) >= 0.6)) for p in probs]
    res = cv_graded(probs, gold, stored=0.5)
    assert abs(res["threshold"] - 0.6) < 0.05
    assert res["cv"]["rmse"] < res["stored"]["rmse"]
    assert res["cv"]["rmse"] < 0.1


def test_folds_are_stratified_and_seeded():
    labels = [1] * 10 + [0] * 20
    f = folds_of(labels, 5)
    assert (f == folds_of(labels, 5)).all()
    for k in range(5):
        assert sum(1 for lab, x in zip(labels, f) if x == k and lab == 1) == 2


def test_pairwise_counts_ties_as_half():
    assert pairwise([1.0, 1.0, 0.5], [0.0, 1.0, 1.0]) == {"n": 3, "accuracy": 0.5, "above": 0.3333, "ties": 0.3333}
    assert pairwise([], [])["accuracy"] is None


def test_metrics_use_their_own_threshold_then_the_generic_one(tiny_nli_dir):
    from localeval.judge import NLIJudge
    from localeval.metrics import ChunkRecall, ContextRecall, ContextRelevance, Faithfulness

    judge = NLIJudge(tiny_nli_dir, device="cpu")
    judge.thresholds.update({"entailment": 0.61, "relevance": 0.42, "faithfulness": 0.73})
    assert Faithfulness(judge).resolved_threshold() == 0.73
    assert ContextRecall(judge).resolved_threshold() == 0.61  # no key of its own: the generic one
    assert ContextRelevance(judge).resolved_threshold() == 0.42
    assert Faithfulness(judge, threshold=0.2).resolved_threshold() == 0.2  # an explicit value wins
    judge.thresholds["chunk_recall_relevance"] = 0.9
    assert ChunkRecall(judge).threshold_key("relevance") == "chunk_recall_relevance"
    assert ChunkRecall(judge).resolved_threshold() == 0.61


def test_decomposer_comparison_puts_each_run_in_its_own_column():
    from benchmarks.agreement.compare import compare

    def run(command: str, ba: float, limit=None) -> dict:
        return {
            "command": command, "model": "judge", "elapsed_s": 1.0, "limit_per_set": limit,
            "sections": {
                "binary": [{"set": "wice", "metric": "context_recall", "n": 40, "ba_cv": ba, "auroc": 0.7}],
                "ablation": [{"set": "ragbench/hotpotqa", "metric": "question_recall", "n": 9, "accuracy": 0.5}],
            },
        }

    rule = run("python -m benchmarks.agreement", 0.725)
    llm = run("python -m benchmarks.agreement --decomposer smol.gguf", 0.65)
    text = compare([rule, llm])
    header = next(line for line in text.splitlines() if line.startswith("| section"))
    assert header.endswith("| rule | smol.gguf |")
    row = next(line for line in text.splitlines() if "| wice |" in line)
    assert "BA 72.5" in row.split("|")[4] and "BA 65.0" in row.split("|")[5]
    with pytest.raises(ValueError, match="different samples"):
        compare([rule, run("python -m benchmarks.agreement --limit-per-set 5", 0.7, limit=5)])


def test_a_decomposer_reaches_every_metric_that_splits_text(tiny_nli_dir):
    from localeval.judge import get_judge
    from localeval.text.questions import RuleBasedDecomposer

    from benchmarks.agreement.scoring import build_metrics

    judge = get_judge(str(tiny_nli_dir), device="cpu")
    chosen = RuleBasedDecomposer()
    metrics = build_metrics(judge, chosen)
    given = {name for name, m in metrics.items() if getattr(m, "decomposer", None) is chosen}
    assert given == {"context_recall", "faithfulness", "question_recall", "trace_utilization", "trace_completeness",
                     "factual_recall", "factual_precision", "ragchecker"}
    from localeval.metrics.decomposed import is_rule_based

    assert all(is_rule_based(getattr(m, "decomposer", None)) for m in build_metrics(judge).values())


def test_trace_variants_score_every_variant_out_of_fold(meta_eval, tmp_path, default_judge):
    from benchmarks.agreement.trace_variants import VARIANTS, main

    config = default_judge.path / "config.json"
    before = config.read_bytes()
    out = tmp_path / "variants.json"
    report = main(["--data-dir", str(meta_eval), "--limit-per-set", "2", "--output", str(out)])
    assert config.read_bytes() == before
    saved = json.loads(out.read_text())
    _finite_or_none(saved)
    assert list(saved["variants"]) == list(VARIANTS) and saved["rows"] == 14
    for name, v in saved["variants"].items():
        assert 0 < v["n"] <= 14 and 0 <= v["rmse_cv"] <= 1, name
        assert len(v["chosen"]) == 5 and v["mean"]["rmse_margin_se"] >= 0
    assert out.with_suffix(".md").read_text().startswith("# TRACe completeness: variants")
    assert report["variants"]["shipped"]["n"] == saved["variants"]["shipped"]["n"]


def test_trace_variant_definitions_on_a_hand_made_row():
    from benchmarks.agreement.trace_variants import VARIANTS

    # one context of five sentences: 0 used (the evidence of a claim), 1-3 relevant, 3 screened
    # (it opens with "It", after a kept sentence), 4 irrelevant; the response entails sentence 2
    row = {"used": np.array([0.9, 0.0, 0.0, 0.0, 0.0]), "relevance": np.array([0.8, 0.7, 0.5, 0.9, 0.1]),
           "screened": np.array([False, False, False, True, False]), "coref": np.array([False] * 5),
           "context": np.zeros(5, int), "entailed": np.array([0.0, 0.0, 0.6, 0.0, 0.0])}
    score = {name: scorer(row, 0.5, 0.4, 0.5) for name, (scorer, _) in VARIANTS.items()}
    assert score["shipped"] == pytest.approx(1 / 3)  # relevant 0, 1, 2 (3 screened); used 0
    assert score["coref screen"] == pytest.approx(1 / 4)  # 3 kept for the judge, relevant, not used
    assert score["relevance threshold (CV)"] == pytest.approx(1 / 3)  # its own threshold 0.5: relevant 0, 1, 2
    assert VARIANTS["relevance threshold (CV)"][0](row, 0.5, 0.4, 0.75) == 1.0  # at 0.75: relevant 0 only
    assert score["neighbours used (1)"] == pytest.approx(2 / 3)
    assert score["neighbours used (chunk)"] == pytest.approx(1.0)
    assert score["response entails it (CV)"] == pytest.approx(2 / 3)
    assert score["soft relevance"] == pytest.approx(0.8 / (0.8 + 0.7 + 0.5 + 0.1))
    nothing = {**row, "relevance": np.zeros(5), "used": np.zeros(5)}
    assert VARIANTS["shipped"][0](nothing, 0.5, 0.4, 0.5) is None  # nothing relevant: unscored, never NaN


def test_trace_benchmark_scores_ragbench_only_and_leaves_the_judge_alone(meta_eval, tmp_path, default_judge):
    from benchmarks.agreement.trace import main

    config = default_judge.path / "config.json"
    before = config.read_bytes()
    out = tmp_path / "trace.json"
    report = main(["--data-dir", str(meta_eval), "--limit-per-set", "2", "--output", str(out)])
    assert config.read_bytes() == before  # the threshold is written only when asked
    saved = json.loads(out.read_text())
    _finite_or_none(saved)
    f = saved["figures"]
    for key in ("utilization_evidence", "utilization_entailing", "completeness", "completeness_entailing",
                "floor_utilization_overlap", "floor_completeness_overlap"):
        assert f[key]["n"] <= 14 and 0 <= f[key]["cv"]["rmse"] <= 1, key
    assert f["utilization_evidence"]["n"] == 14  # 2 rows x 7 subsets, none dropped
    assert sorted(f["utilization_evidence"]["subsets"]) == sorted(
        ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco"))
    md = out.with_suffix(".md").read_text()
    assert md.startswith("# RAGBench TRACe") and "always the mean" in md
    assert report["written"] == {}
    # each metric's margin over each floor, with its paired bootstrap SE and a plain verdict
    for target in ("utilization", "completeness"):
        for floor in ("overlap", "mean"):
            m = f["margins"][target][floor]
            assert 0 < m["n"] <= 14 and m["rmse_margin_se"] >= 0
            assert m["rmse_margin"] == pytest.approx(m["rmse"] - m["floor_rmse"], abs=2e-4)
            assert m["outside_noise"] == (abs(m["rmse_margin"]) > 2 * m["rmse_margin_se"])
        assert "pearson_margin" not in f["margins"][target]["mean"]  # a constant has no Pearson
    assert "## Margins over the floors" in md and ("outside the noise" in md or "within the noise" in md)
    with pytest.raises(SystemExit):
        main(["--data-dir", str(meta_eval), "--limit-per-set", "2", "--write-threshold"])


def test_faithfulness_items_scores_the_harness_items_and_reports_what_a_change_moved(meta_eval, tmp_path,
                                                                                      tiny_nli_dir):
    from benchmarks import faithfulness_items as fi

    old = tmp_path / "old.json"  # an earlier run on other items (another cap)
    old.write_text(json.dumps({"sets": {"wice/dev-article": {"labels": [1], "stat": [0.5], "overlap": [0.5]}}}))
    out = tmp_path / "items.json"
    run = fi.main(["--model", str(tiny_nli_dir), "--data-dir", str(meta_eval), "--limit", "2", "--before", str(old),
                   "--output", str(out)])
    assert {"wice/dev-article", "summac/factcc", "begin/dev", "attributionbench/dev", "frank/valid"} <= set(run["sets"])
    for name, s in run["sets"].items():
        assert len(s["labels"]) == len(s["stat"]) == len(s["overlap"]) == run["figures"][name]["n"] <= 2
    assert run["changes"] == {"wice/dev-article": {"comparable": False}}
    assert "other items: not compared" in out.with_suffix(".md").read_text()
    # The run reported again against itself, without a judge call: every set comparable, nothing moved.
    again = fi.main(["--scored", str(out), "--before", str(out), "--model", "no-such-judge",
                     "--output", str(tmp_path / "again.json")])
    assert again["sets"] == run["sets"] and again["reported_by"].startswith("python benchmarks/faithfulness_items.py")
    assert all(c["comparable"] and c["changed"] == 0 for c in again["changes"].values())
    # A change that lifts one supported item above every unsupported one, and other items.
    labels = [1, 1, 1, 0, 0, 0]
    before = {"x": {"labels": labels, "stat": [0.9, 0.2, 0.8, 0.3, 0.7, 0.1], "overlap": [0.5] * 6},
              "y": {"labels": labels, "stat": [0.5] * 6, "overlap": [0.5] * 6}}
    after = {"x": {"labels": labels, "stat": [0.9, 0.95, 0.8, 0.3, 0.7, 0.1], "overlap": [0.5] * 6},
             "y": {"labels": [0, 1], "stat": [0.5, 0.5], "overlap": [0.5, 0.5]}}
    moved = fi.changes(before, after)
    assert moved["x"]["changed"] == 1 and moved["x"]["items"] == [1]
    assert moved["x"]["difference"] == pytest.approx(1.0 - 7 / 9) and moved["x"]["se"] > 0
    assert moved["y"] == {"comparable": False}
    with pytest.raises(SystemExit):
        fi.main(["--limit", "1"])
    with pytest.raises(SystemExit):  # refused before any scoring: no run of this script
        fi.main(["--before", str(tmp_path / "again.md"), "--model", "no-such-judge"])
