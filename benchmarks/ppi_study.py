"""How far to trust localeval's numbers: prediction-powered estimates, calibrated thresholds and
bootstrap intervals, measured on the six development families.

    python benchmarks/ppi_study.py [--draws 1000] [--output benchmarks/results/ppi_study.json]

Data: each item's judge probabilities per claim and word-overlap scores, dumped by earlier runs
(no judge call here): WiCE dev (all 349 items, ``judge_scores.json.xz`` from
``judge_eval.py --dump-scores``), SummaC, BEGIN, FRANK and RAGBench (the agreement harness's
samples, ``verdict_signals.json.xz`` from ``verdict.py --features``) and AttributionBench (a
class-balanced sample of 400, ``ppi_signals_attributionbench.json`` from ``ppi_signals.py``).
An item's judge score is what faithfulness gives it with the judge alone: the share of its
claims whose probability reaches the shipped threshold (``faithfulness`` in the judge's
config.json); its human label is 0/1 (RAGBench: GPT-4 adherence, not humans).

1. **Prediction-powered intervals.** For n = 50, 100, 200 labelled items drawn at random (without
   replacement; ``--draws`` draws each, seeded), the rest unlabelled: does the 95 % PPI++
   interval (`localeval.stats.ppi`) cover the family's human mean (the mean label over all its
   items), and how wide is it beside the labels-only interval over the same draw? Plain PPI
   (lambda = 1) and the judge's own mean are shown for reference. Coverage SE:
   sqrt(c (1 - c) / draws).
2. **Calibrated thresholds.** On each draw's n labelled items the threshold is chosen
   (`localeval.stats.calibration.best_threshold`, balanced accuracy, the grid of
   `localeval calibrate`) and applied to the family's other items: out-of-sample BA beside the
   shipped threshold's on the same items and word overlap (each claim's share of content words
   found in the evidence) thresholded the same way. Mean over draws, ± the SD over draws.
3. **Bootstrap intervals of a plain mean.** Coverage of the 95 % percentile bootstrap interval
   (`localeval.stats.intervals.bootstrap_mean`, 1,000 resamples) of data with a known mean,
   by simulation.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.files import command_line, read_data, write_results  # noqa: E402
from localeval.stats.calibration import balanced_accuracy, best_threshold  # noqa: E402
from localeval.stats.intervals import bootstrap_mean  # noqa: E402
from localeval.stats.ppi import classical_mean, ppi_mean  # noqa: E402

RESULTS = REPO_ROOT / "benchmarks" / "results"
FAMILIES = ("wice", "summac", "begin", "frank", "ragbench", "attributionbench")
LABELS = (50, 100, 200)
GRID = tuple(round(0.05 * k, 2) for k in range(1, 20))


class Family:
    """Per item: label, judge probability of each claim, word overlap of each claim."""

    def __init__(self, name: str, labels: list[int], probs: list[list[float]], overlaps: list[list[float]]) -> None:
        keep = [i for i, p in enumerate(probs) if p]  # an item with no claim has no score
        self.name = name
        self.dropped = len(labels) - len(keep)
        self.y = np.array([labels[i] for i in keep], dtype=float)
        self.probs = [np.array(probs[i]) for i in keep]
        self.overlaps = [np.array(overlaps[i]) for i in keep]

    def scores(self, threshold: float, overlap: bool = False) -> np.ndarray:
        """Each item's share of claims at or above ``threshold``."""
        parts = self.overlaps if overlap else self.probs
        return np.array([float(np.mean(p >= threshold)) for p in parts])

    def grid(self, overlap: bool = False) -> np.ndarray:
        return np.stack([self.scores(t, overlap) for t in GRID])


def load_families() -> list[Family]:
    out = []
    wice = read_data(RESULTS / "judge_scores.json.xz")["sets"]["wice/dev-article"]
    out.append(Family("wice", wice["labels"], [[c[0] for c in item] for item in wice["claims"]],
                      [[c[1] for c in item] for item in wice["claims"]]))
    signals = read_data(RESULTS / "verdict_signals.json.xz")
    signals.update(read_data(RESULTS / "ppi_signals_attributionbench.json"))
    for name in FAMILIES[1:]:
        items = signals[name]
        out.append(Family(name, [int(r["label"]) for r in items],
                          [[c["signals"]["p_best"] for c in r["claims"]] for r in items],
                          [[c["overlap"] for c in r["claims"]] for r in items]))
    return out


def shipped_threshold() -> float:
    config = json.loads((REPO_ROOT / "models" / "localeval-judge-minilm-l6" / "config.json").read_text())
    return float(config["localeval"]["thresholds"]["faithfulness"])


def _cover(low: float, high: float, truth: float) -> bool:
    return low <= truth <= high


def ppi_section(fam: Family, f: np.ndarray, n: int, draws: int, rng: np.random.Generator) -> dict:
    truth = float(fam.y.mean())
    hits = {"ppi++": 0, "ppi": 0, "labels": 0}
    widths: dict[str, list[float]] = {k: [] for k in hits}
    lams = []
    for _ in range(draws):
        mask = np.zeros(fam.y.size, dtype=bool)
        mask[rng.choice(fam.y.size, size=n, replace=False)] = True
        est = {"ppi++": ppi_mean(fam.y[mask], f[mask], f[~mask]), "ppi": ppi_mean(fam.y[mask], f[mask], f[~mask], lam=1.0),
               "labels": classical_mean(fam.y[mask])}
        for key, e in est.items():
            assert e is not None
            hits[key] += _cover(e.low, e.high, truth)
            widths[key].append(e.high - e.low)
        lams.append(est["ppi++"].lam)
    out = {"n": n, "unlabelled": int(fam.y.size - n), "draws": draws}
    for key in hits:
        c = hits[key] / draws
        out[key] = {"coverage": c, "coverage_se": math.sqrt(c * (1 - c) / draws),
                    "mean_width": float(np.mean(widths[key])), "width_se": float(np.std(widths[key]) / math.sqrt(draws))}
    out["width_ratio_ppi++_vs_labels"] = out["ppi++"]["mean_width"] / out["labels"]["mean_width"]
    out["mean_lambda"] = float(np.mean(lams))
    return out


def calibration_section(fam: Family, judge_grid: np.ndarray, overlap_grid: np.ndarray, shipped: np.ndarray,
                        n: int, draws: int, rng: np.random.Generator) -> dict:
    figures: dict[str, list[float]] = {"calibrated": [], "shipped": [], "overlap": []}
    chosen = []
    for _ in range(draws):
        mask = np.zeros(fam.y.size, dtype=bool)
        mask[rng.choice(fam.y.size, size=n, replace=False)] = True
        if len(set(fam.y[mask])) < 2 or len(set(fam.y[~mask])) < 2:
            continue
        k = best_threshold(judge_grid[:, mask], fam.y[mask], "ba")
        o = best_threshold(overlap_grid[:, mask], fam.y[mask], "ba")
        chosen.append(GRID[k])
        rest = fam.y[~mask]
        figures["calibrated"].append(balanced_accuracy(rest, judge_grid[k, ~mask] >= 0.5).value)
        figures["shipped"].append(balanced_accuracy(rest, shipped[~mask] >= 0.5).value)
        figures["overlap"].append(balanced_accuracy(rest, overlap_grid[o, ~mask] >= 0.5).value)
    used = len(figures["calibrated"])
    out: dict = {"n": n, "draws": used}
    for key, values in figures.items():
        out[key] = {"ba": float(np.mean(values)), "sd_over_draws": float(np.std(values)),
                    "se_of_mean": float(np.std(values) / math.sqrt(max(used, 1)))}
    out["calibrated_minus_shipped"] = out["calibrated"]["ba"] - out["shipped"]["ba"]
    out["threshold_median"] = float(np.median(chosen)) if chosen else None
    out["threshold_iqr"] = [float(np.quantile(chosen, 0.25)), float(np.quantile(chosen, 0.75))] if chosen else None
    return out


def bootstrap_section(sims: int, seed: int) -> list[dict]:
    """Coverage of the bootstrap interval of a mean, on data whose mean is known."""
    rng = np.random.default_rng(seed)
    kinds = {
        # Scores piled at both ends, like a claim metric's fractions: Beta(0.5, 0.5), mean 0.5.
        "beta(0.5,0.5)": (lambda size: rng.beta(0.5, 0.5, size), 0.5),
        "bernoulli(0.85)": (lambda size: (rng.random(size) < 0.85).astype(float), 0.85),
        # Point masses at 0 and 1 with a uniform middle: P(0)=0.2, P(1)=0.5, U(0,1) 0.3; mean 0.65.
        "0/1 + uniform middle": (lambda size: np.where((u := rng.random(size)) < 0.2, 0.0,
                                                       np.where(u < 0.7, 1.0, rng.random(size))), 0.65),
    }
    out = []
    for name, (draw, mean) in kinds.items():
        for n in (20, 50, 200, 1000):
            hits, widths = 0, []
            for s in range(sims):
                iv = bootstrap_mean(draw(n), seed=s)
                assert iv is not None
                hits += iv.low <= mean <= iv.high
                widths.append(iv.high - iv.low)
            c = hits / sims
            out.append({"data": name, "n": n, "sims": sims, "coverage": c, "coverage_se": math.sqrt(c * (1 - c) / sims),
                        "mean_width": float(np.mean(widths))})
    return out


def markdown(result: dict) -> str:
    lines = ["# How far to trust a number: PPI++, calibration, bootstrap (development families)", "",
             f"Command: `{result['command']}`  ", f"Machine: {result['machine']}  ",
             f"Shipped faithfulness threshold: {result['shipped_threshold']}; {result['draws']} draws per cell (seed {result['seed']}); "
             f"{result['seconds']:.0f} s.", "",
             "## 1. Coverage of the 95 % interval of the family's human mean (n labelled, rest unlabelled)", "",
             "| family | items | human mean | judge mean | n | PPI++ coverage | labels-only coverage | plain PPI coverage | PPI++ width | labels-only width | width ratio | mean lambda |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for fam in result["families"]:
        for cell in fam["ppi"]:
            lines.append(
                f"| {fam['family']} | {fam['items']} | {fam['human_mean']:.3f} | {fam['judge_mean']:.3f} | {cell['n']} | "
                f"{100 * cell['ppi++']['coverage']:.1f} ± {100 * cell['ppi++']['coverage_se']:.1f} | "
                f"{100 * cell['labels']['coverage']:.1f} ± {100 * cell['labels']['coverage_se']:.1f} | "
                f"{100 * cell['ppi']['coverage']:.1f} ± {100 * cell['ppi']['coverage_se']:.1f} | "
                f"{cell['ppi++']['mean_width']:.3f} | {cell['labels']['mean_width']:.3f} | "
                f"{cell['width_ratio_ppi++_vs_labels']:.2f} | {cell['mean_lambda']:.2f} |")
    lines += ["", f"Coverage >= 93 % at 100 and 200 labels on every family: **{result['coverage_met']}**. "
              "Labelled items are drawn without replacement from a family of a few hundred, so with 200 labels "
              "the intervals (which assume an endless population) over-cover the family's own mean: read the "
              "50- and 100-label rows, and RAGBench (1,927 items), as the honest test. Widths are the mean over "
              "draws (SE under 0.001).", "",
              "## 2. Balanced accuracy on the family's unlabelled items (threshold chosen on the n labelled)", "",
              "| family | n | calibrated judge | shipped threshold | word overlap, calibrated | calibrated - shipped | chosen threshold, median [IQR] |",
              "|---|---|---|---|---|---|---|"]
    for fam in result["families"]:
        for cell in fam["calibration"]:
            iqr = cell["threshold_iqr"] or [math.nan, math.nan]
            lines.append(
                f"| {fam['family']} | {cell['n']} | {100 * cell['calibrated']['ba']:.1f} ± {100 * cell['calibrated']['se_of_mean']:.1f} "
                f"(sd {100 * cell['calibrated']['sd_over_draws']:.1f}) | {100 * cell['shipped']['ba']:.1f} ± {100 * cell['shipped']['se_of_mean']:.1f} | "
                f"{100 * cell['overlap']['ba']:.1f} ± {100 * cell['overlap']['se_of_mean']:.1f} | {100 * cell['calibrated_minus_shipped']:+.1f} | "
                f"{cell['threshold_median']:.2f} [{iqr[0]:.2f}, {iqr[1]:.2f}] |")
    lines += ["", "± is the standard error of the mean over draws (the draws share items, so it understates the "
              "uncertainty of a single team's figure: that is the sd in brackets).", "",
              "## 3. Coverage of the 95 % bootstrap interval of a plain mean (known mean, simulated)", "",
              "| data | n | coverage | mean width |", "|---|---|---|---|"]
    for row in result["bootstrap"]:
        lines.append(f"| {row['data']} | {row['n']} | {100 * row['coverage']:.1f} ± {100 * row['coverage_se']:.1f} "
                     f"({row['sims']} sims) | {row['mean_width']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--draws", type=int, default=1000, help="labelled draws per family and n (default 1000)")
    p.add_argument("--calibration-draws", type=int, default=300, help="draws for the calibration section (default 300)")
    p.add_argument("--sims", type=int, default=500, help="simulations per bootstrap cell (default 500)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", type=Path, default=RESULTS / "ppi_study.json")
    p.add_argument("--markdown-only", action="store_true", help="rewrite the .md from an existing --output JSON")
    args = p.parse_args(argv)
    if args.markdown_only:
        result = json.loads(args.output.read_text())
        args.output.with_suffix(".md").write_text(markdown(result), encoding="utf-8")
        return result
    from benchmarks.lib.machine import describe_machine

    start = time.perf_counter()
    shipped_t = shipped_threshold()
    families = []
    for k, fam in enumerate(load_families()):
        f = fam.scores(shipped_t)
        rng = np.random.default_rng([args.seed, k])
        ppi = [ppi_section(fam, f, n, args.draws, rng) for n in LABELS if n < fam.y.size]
        judge_grid, overlap_grid = fam.grid(), fam.grid(overlap=True)
        cal = [calibration_section(fam, judge_grid, overlap_grid, f, n, args.calibration_draws, rng)
               for n in LABELS if n < fam.y.size]
        families.append({"family": fam.name, "items": int(fam.y.size), "items_without_claims": fam.dropped,
                         "human_mean": float(fam.y.mean()), "judge_mean": float(f.mean()), "ppi": ppi, "calibration": cal})
        print(f"{fam.name}: {fam.y.size} items, {time.perf_counter() - start:.0f} s", flush=True)
    boot = bootstrap_section(args.sims, args.seed)
    met = all(cell["ppi++"]["coverage"] >= 0.93 for fam in families for cell in fam["ppi"] if cell["n"] >= 100)
    machine = describe_machine()
    result = {
        "command": command_line("python benchmarks/ppi_study.py", sys.argv[1:] if argv is None else argv),
        "machine": f"{machine['cpu']}, {machine['cpu_cores']} cores, Python {machine['python']}",
        "seed": args.seed, "draws": args.draws, "calibration_draws": args.calibration_draws,
        "shipped_threshold": shipped_t, "grid": list(GRID), "families": families, "bootstrap": boot,
        "coverage_met": met, "seconds": time.perf_counter() - start,
    }
    report = markdown(result)
    print(report)
    write_results(args.output, result, report)
    return result


if __name__ == "__main__":
    main()
