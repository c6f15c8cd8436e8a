"""The statistics (`localeval.stats`) on synthetic numbers with known answers, and their
plumbing: label columns, the summary's intervals, `localeval compare` on hand-written runs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from localeval.cli.main import app
from localeval.runner.human import LabelError, read_label
from localeval.runner.summary import SummaryBuilder, bootstrap_settings
from localeval.stats import (
    auroc,
    balanced_accuracy,
    bootstrap_mean,
    classical_mean,
    cross_validated_threshold,
    paired_difference,
    paired_pvalue,
    pearson,
    ppi_mean,
)
from localeval.stats.ppi import power_tuning

runner = CliRunner()


# ----------------------------------------------------------------- bootstrap of a mean
def test_bootstrap_interval_is_seeded_and_holds_the_mean():
    x = np.random.default_rng(3).random(150)
    a, b = bootstrap_mean(x, seed=7), bootstrap_mean(x, seed=7)
    assert a == b
    assert a.low < a.estimate < a.high and a.estimate == pytest.approx(x.mean())
    assert bootstrap_mean(x, seed=8) != a


def test_bootstrap_interval_covers_a_known_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    assert tuple(bootstrap_mean([0.7])) == (0.7, 0.7, 0.7, 1)  # one value: nothing to resample
    covered = 0
    for s in range(300):
        iv = bootstrap_mean((rng.random(100) < 0.7).astype(float), resamples=400, seed=s)
        covered += iv.low <= 0.7 <= iv.high
    assert 0.90 <= covered / 300 <= 0.99


def test_bootstrap_of_many_distinct_values_matches_the_normal_width():
    x = np.random.default_rng(1).random(20_000)  # the rounded, counted path
    iv = bootstrap_mean(x, resamples=2000)
    normal = 2 * 1.96 * x.std() / np.sqrt(x.size)
    assert iv.high - iv.low == pytest.approx(normal, rel=0.08)
    assert iv.estimate == x.mean()


def test_bootstrap_refuses_non_finite_scores_and_has_nothing_for_no_score():
    assert bootstrap_mean([]) is None
    with pytest.raises(ValueError, match="finite"):
        bootstrap_mean([0.5, float("nan")])


# ----------------------------------------------------------------- paired comparison
def test_paired_difference_finds_a_real_shift_and_not_noise():
    rng = np.random.default_rng(2)
    a = rng.random(300)
    shifted = paired_difference(a, a + 0.05 + rng.normal(0, 0.1, 300))
    assert shifted.low > 0 and shifted.p_value < 0.01
    noise = paired_difference(a, a + rng.normal(0, 0.1, 300))
    assert noise.low < 0 < noise.high and noise.p_value > 0.05
    assert paired_pvalue(np.zeros(10)) == 1.0


def test_permutation_pvalue_is_uniform_ish_under_no_difference():
    rng = np.random.default_rng(4)
    ps = [paired_pvalue(rng.normal(0, 1, 40), resamples=200, seed=s) for s in range(200)]
    assert 0.02 <= np.mean(np.array(ps) < 0.05) <= 0.09


# ----------------------------------------------------------------- PPI++
def _population(rng, size=3000, flip=0.2, bias=0.1):
    y = (rng.random(size) < 0.6).astype(float)
    f = np.where(rng.random(size) < flip, 1 - y, y)  # a judge wrong on 20 % of rows ...
    return y, np.clip(f + bias * (rng.random(size) < 0.5), 0, 1)  # ... and biased upwards


def test_ppi_covers_the_human_mean_where_the_judge_mean_is_biased():
    rng = np.random.default_rng(5)
    y, f = _population(rng)
    truth = y.mean()
    assert abs(f.mean() - truth) > 0.02  # the judge alone is off
    covered, ratio = 0, []
    for _ in range(300):
        mask = np.zeros(y.size, bool)
        mask[rng.choice(y.size, 100, replace=False)] = True
        est, cls = ppi_mean(y[mask], f[mask], f[~mask]), classical_mean(y[mask])
        covered += est.low <= truth <= est.high
        ratio.append((est.high - est.low) / (cls.high - cls.low))
    assert covered / 300 >= 0.92
    assert np.mean(ratio) < 0.9  # a useful judge narrows the interval


def test_ppi_with_a_useless_judge_falls_back_to_the_labels():
    rng = np.random.default_rng(6)
    y = (rng.random(500) < 0.5).astype(float)
    noise = rng.random(500)
    est, cls = ppi_mean(y[:100], noise[:100], noise[100:]), classical_mean(y[:100])
    assert est.lam < 0.3
    assert (est.high - est.low) <= 1.05 * (cls.high - cls.low)


def test_power_tuning_is_the_papers_formula_clipped():
    y = np.array([0, 1, 1, 0, 1, 1, 0, 1, 0, 1], float)
    f = np.array([0.1, 0.9, 0.8, 0.3, 0.7, 0.9, 0.2, 0.6, 0.4, 0.8])
    expected = np.cov(y, f)[0, 1] / ((1 + 10 / 40) * np.var(f, ddof=1))
    assert power_tuning(y, f, 40) == pytest.approx(min(1.0, expected))
    assert power_tuning(y, 1 - f, 40) == 0.0  # a judge that disagrees is not used
    perfect = ppi_mean(y, y, np.ones(30))
    assert perfect.estimate == pytest.approx((y.sum() + 30) / 40, abs=0.05)
    assert ppi_mean(y[:5], f[:5], f) is None  # under the minimum


# ----------------------------------------------------------------- calibration
def test_cross_validated_threshold_recovers_the_labels_rule():
    rng = np.random.default_rng(7)
    p = rng.random(120)
    y = (p >= 0.62).astype(float)
    grid = np.round(np.arange(0.05, 1.0, 0.05), 2)
    fit = cross_validated_threshold(np.stack([(p >= t).astype(float) for t in grid]), grid, y)
    assert fit.threshold in (0.6, 0.65)
    assert fit.out_of_fold.ba > 0.95 and fit.out_of_fold.n == 120


def test_calibration_refuses_too_few_labels_and_graded_labels_take_rmse():
    grid = [0.3, 0.5, 0.7]
    with pytest.raises(ValueError, match="at least 30 labelled rows"):
        cross_validated_threshold(np.zeros((3, 12)), grid, np.ones(12))
    rng = np.random.default_rng(8)
    y = rng.random(60)
    scores = np.stack([np.clip(y + d, 0, 1) for d in (-0.3, 0.0, 0.3)])
    fit = cross_validated_threshold(scores, grid, y)
    assert fit.objective == "rmse" and fit.threshold == 0.5 and fit.out_of_fold.rmse == pytest.approx(0.0)


def test_agreement_figures_on_known_cases():
    y = np.array([1, 1, 0, 0], float)
    assert balanced_accuracy(y, np.array([1, 0, 0, 0], bool)).value == 0.75
    assert auroc(y, np.array([0.9, 0.8, 0.1, 0.2])).value == 1.0
    assert auroc(y, np.array([0.5, 0.5, 0.5, 0.5])).value == 0.5
    assert pearson(np.arange(5.0), 2 * np.arange(5.0)).value == pytest.approx(1.0)


# ----------------------------------------------------------------- labels and the summary
def test_labels_are_read_strictly():
    assert [read_label(v) for v in (1, 0, True, "1", " 0.25 ", None, "", float("nan"))] == [1.0, 0.0, 1.0, 1.0, 0.25,
                                                                                          None, None, None]
    for bad in ("yes please", 2, -0.1, [1]):
        with pytest.raises(LabelError):
            read_label(bad)


def test_summary_leaves_unscored_rows_out_and_adds_label_estimates():
    b = SummaryBuilder(["m"])
    for i in range(40):
        b.rows += 1
        b.add("m", None if i % 10 == 0 else 1.0, "missing required column(s): response", label=None)
    s = b.build()["m"]
    assert (s.mean, s.ci_low, s.ci_high, s.unscored) == (1.0, 1.0, 1.0, 4)  # never a zero for an unscored row
    b = SummaryBuilder(["m"])
    rng = np.random.default_rng(9)
    for i in range(200):
        y = float(rng.random() < 0.5)
        b.add("m", y if rng.random() < 0.8 else 1 - y, None, label=y if i < 60 else None)
    b.add("m", 0.5, None, label="not a label")
    h = b.build()["m"].human
    assert h.labelled == 60 and h.invalid == 1
    assert h.ppi_low < h.ppi_mean < h.ppi_high and h.labels_low < h.labels_mean < h.labels_high
    with bootstrap_settings(resamples=50, seed=3):
        assert b.build().resamples == 50


def test_mapped_label_columns_reach_the_row_but_never_the_sample():
    from localeval.runner.columns import ColumnMap
    from localeval.runner.rows import make_row

    row = make_row(0, 1, {"response": "x", "retrieved_contexts": ["y"], "gold": 1},
                   ColumnMap({"human_faithfulness": "gold"}))
    assert row.error is None and row.data["human_faithfulness"] == 1
    assert "human_faithfulness" not in row.sample.model_dump()


# ----------------------------------------------------------------- compare
def _run_file(path, scores, *, ids=True, labels=None, metric="faithfulness"):
    with open(path, "w") as f:
        for i, s in enumerate(scores):
            row = {"_line": i + 1, metric: s, f"{metric}_reason": None if s is not None else "no response",
                   f"{metric}_details": None}
            if ids:
                row["id"] = f"r{i}"
            if labels is not None and labels[i] is not None:
                row[f"human_{metric}"] = labels[i]
            f.write(json.dumps(row) + "\n")
    return path


def test_compare_pairs_by_id_and_reads_each_metrics_direction(tmp_path):
    from localeval.reports.significance import compare_files

    rng = np.random.default_rng(10)
    a = rng.random(200)
    b = np.clip(a + 0.1, 0, 1)
    fa = _run_file(tmp_path / "a.jsonl", list(a), metric="noise_sensitivity")
    # B's rows in another order, one row missing: paired by id, not by position.
    fb = tmp_path / "b.jsonl"
    rows = [json.loads(x) for x in _run_file(tmp_path / "tmp.jsonl", list(b), metric="noise_sensitivity").read_text().splitlines()]
    fb.write_text("".join(json.dumps(r) + "\n" for r in reversed(rows[1:])))
    (result,) = compare_files([fa, fb])
    m = result.metrics[0]
    assert result.pairing.by == "id" and result.pairing.only_a == ["r0"] and m.n == 199
    assert m.higher_is_better is False and m.low > 0 and m.verdict == "worse"  # more noise sensitivity is worse
    out = runner.invoke(app, ["compare", str(fa), str(fb), "--fail-worse", "noise_sensitivity", "--resamples", "200"])
    assert out.exit_code == 1, out.output
    assert "gate failed: noise_sensitivity is significantly worse" in out.output
    assert runner.invoke(app, ["compare", str(fb), str(fa), "--fail-worse", "all", "--resamples", "200"]).exit_code == 0


def test_compare_gives_the_human_difference_when_both_runs_carry_labels(tmp_path):
    from localeval.reports.significance import compare_files

    rng = np.random.default_rng(11)
    ya, yb = (rng.random(300) < 0.5).astype(float), (rng.random(300) < 0.7).astype(float)
    fa, fb = np.where(rng.random(300) < 0.85, ya, 1 - ya), np.where(rng.random(300) < 0.85, yb, 1 - yb)
    la = [y if i < 80 else None for i, y in enumerate(ya)]
    lb = [y if i < 80 else None for i, y in enumerate(yb)]
    (result,) = compare_files([_run_file(tmp_path / "a.jsonl", list(fa), labels=la),
                               _run_file(tmp_path / "b.jsonl", list(fb), labels=lb)], resamples=200)
    h = result.metrics[0].human
    assert h.labelled == 80 and h.low < h.estimate < h.high
    assert h.low <= (yb - ya).mean() <= h.high


def test_ppi_study_plumbing(tmp_path):
    """The study reads the committed per-item dumps of all six families and writes its files."""
    from benchmarks.ppi_study import FAMILIES, main

    out = tmp_path / "study.json"
    result = main(["--draws", "20", "--calibration-draws", "5", "--sims", "5", "--output", str(out)])
    assert [f["family"] for f in result["families"]] == list(FAMILIES)
    for fam in result["families"]:
        assert [c["n"] for c in fam["ppi"]] == [50, 100, 200]
        assert all(0.0 <= c["ppi++"]["coverage"] <= 1.0 and c["ppi++"]["mean_width"] > 0 for c in fam["ppi"])
    assert "PPI++ coverage" in out.with_suffix(".md").read_text()


def test_score_refuses_a_calibration_file_it_cannot_use(tmp_path):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "labelled_answers.jsonl"
    bad = tmp_path / "cal.json"
    for text, message in (("{}", "not a calibration file"),
                          (json.dumps({"format": "localeval-calibration/1", "date": "d", "data": "x", "judge": None,
                                       "weights_hash": None, "folds": 5, "seed": 0, "metrics": [],
                                       "thresholds": {"faithfulnes": 0.5}}), "unknown threshold 'faithfulnes'")):
        bad.write_text(text)
        result = runner.invoke(app, ["score", str(example), "-m", "faithfulness", "--calibration", str(bad)])
        assert result.exit_code == 2 and message in result.output, result.output


def test_calibrate_judges_each_pair_once_across_its_thresholds(tmp_path, tiny_judge, monkeypatch):
    """Without a verdict file, the grid's runs (one per threshold, each clearing the session's
    memory per chunk) read one another's verdicts from a temporary file, removed afterwards;
    with one, a second calibration judges nothing."""
    import tempfile
    from pathlib import Path

    from localeval.calibrate import GRID, calibrate
    from localeval.judge.nli import NLIJudge

    example = Path(__file__).resolve().parents[1] / "examples" / "labelled_answers.jsonl"
    judged: list[tuple] = []
    model_scores = NLIJudge.score_distinct

    def counted(self, pairs, task, **kwargs):
        judged.extend((task, *p) for p in pairs)
        return model_scores(self, pairs, task, **kwargs)

    monkeypatch.setattr(NLIJudge, "score_distinct", counted)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the temporary file goes
    first = calibrate(example, ["faithfulness"], model=tiny_judge, grid=GRID)
    assert judged and len(set(judged)) == len(judged)
    assert not list(tmp_path.iterdir())  # the temporary verdict file is gone
    verdicts = tmp_path / "verdicts.sqlite"
    again = calibrate(example, ["faithfulness"], model=tiny_judge, cache=verdicts)
    assert len(judged) == 2 * len(set(judged))  # the second run filled its file
    judged.clear()
    third = calibrate(example, ["faithfulness"], model=tiny_judge, cache=verdicts)
    assert not judged  # read from the file
    assert first.thresholds == again.thresholds == third.thresholds and first.metrics[0].n == 42


def test_reports_show_intervals_labels_and_significance(tmp_path):
    from localeval.reports import build_report

    rng = np.random.default_rng(12)
    y = (rng.random(120) < 0.5).astype(float)
    fa = _run_file(tmp_path / "a.jsonl", list(np.where(rng.random(120) < 0.8, y, 1 - y)),
                   labels=[v if i < 40 else None for i, v in enumerate(y)])
    fb = _run_file(tmp_path / "b.jsonl", [0.0] * 120)
    single = build_report([fa])
    assert 'id="intervals"' in single and "human, prediction-powered" in single
    pair = build_report([fa, fb])
    assert 'id="significance"' in pair and "<td>worse</td>" in pair
    assert 'id="significance"' in build_report([fa, fb, fb])
