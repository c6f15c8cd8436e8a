"""Judges side by side, each at its own development-chosen threshold.

    python -m benchmarks.judge_compare NAME=RESULT.json:SCORES.json [NAME=...] -o results/judges.md

Each argument is one `judge_eval.py` run: its result file and its ``--dump-scores`` file. The
stored threshold of a judge is not used (a judge trained elsewhere stores the one its trainer
chose on held-out pairs); every binary figure is recomputed from the dumped scores at the
threshold the run *chose* on the development families (``threshold.chosen``; relevance sets:
the judge's relevance threshold), so every judge is read the way the metrics would use it
after `judge_eval.py --write-threshold`. Balanced accuracy carries its standard error,
``0.5 * sqrt(TPR(1-TPR)/n_pos + TNR(1-TNR)/n_neg)``; AUROC needs no threshold.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.files import read_data, write_results  # noqa: E402
from benchmarks.lib.metrics import auroc, auroc_statistic, paired_bootstrap_se  # noqa: E402

SECTION_TITLES = {"held_out": "held-out", "eval_only": "eval-only", "meta_eval": "dev (meta-eval)"}


def ba_and_se(labels: np.ndarray, scores: np.ndarray, t: float) -> tuple[float, float]:
    pos, neg = labels == 1, labels == 0
    if not pos.any() or not neg.any():
        return float("nan"), float("nan")
    tpr = float((scores[pos] >= t).mean())
    tnr = float((scores[neg] < t).mean())
    se = 0.5 * np.sqrt(tpr * (1 - tpr) / pos.sum() + tnr * (1 - tnr) / neg.sum())
    return (tpr + tnr) / 2, float(se)


def judge_figures(result: dict, dump: dict) -> dict:
    t_entail = float(result["threshold"]["chosen"])
    t_rel = float(result["thresholds_used"]["relevance"])
    sets = {}
    for name, s in dump["sets"].items():
        y = np.asarray(s["labels"], int)
        m = np.asarray(s["model"], float)
        t = t_rel if s["kind"] == "relevance" else t_entail
        ba, se = ba_and_se(y, m, t)
        sets[name] = {"section": s["section"], "kind": s["kind"], "n": len(y), "ba": ba, "se": se,
                      "auroc": auroc(y, m), "floor_auroc": auroc(y, np.asarray(s["overlap"], float))}
    speed = result.get("speed") or {}
    return {
        "model": result["model"]["name"], "sha256": result["model"]["weights_sha256"],
        "threshold": t_entail, "dev_mean_ba": result["threshold"]["chosen_dev_balanced_accuracy"],
        "pairs_per_second": (speed.get("cpu") or {}).get("pairs_per_second"),
        "short_pairs_per_second": (speed.get("cpu_short") or {}).get("pairs_per_second"),
        # Speed is only comparable between runs on an equally idle machine: the load is shown.
        "load_average_1min": (speed.get("cpu") or {}).get("load_average_1min"),
        "sets": sets,
    }


def _mean(figs: dict, section: str, kind: str | None = None, exclude: tuple[str, ...] = ()) -> float:
    values = [f["ba"] for n, f in figs["sets"].items()
              if f["section"] == section and (kind is None or (f["kind"] == "relevance") == (kind == "relevance"))
              and not n.startswith(exclude) and np.isfinite(f["ba"])]
    return float(np.mean(values)) if values else float("nan")


def _percent(value: float) -> str:
    """A mean in %, or "-" where a run scored no set of that section (``--sections``)."""
    return f"{100 * value:.1f}" if np.isfinite(value) else "-"


def markdown(judges: dict[str, dict]) -> str:
    names = list(judges)
    head = "| set | n | " + " | ".join(f"{n} BA" for n in names) + " | " + " | ".join(f"{n} AUROC" for n in names) + " | floor AUROC |"
    lines = ["# Judges compared, each at its own development-chosen threshold", "",
             "BA in % +- standard error; AUROC in %. Summary rows are unweighted means over sets.", "",
             "| summary | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    summary = {
        "dev-chosen entailment threshold": lambda f: f"{f['threshold']:.4f}",
        "dev families mean BA (WiCE article, SummaC, BEGIN)": lambda f: f"{100 * f['dev_mean_ba']:.1f}",
        "held-out NLI mean BA": lambda f: _percent(_mean(f, 'held_out', 'nli')),
        "held-out relevance mean BA": lambda f: _percent(_mean(f, 'held_out', 'relevance')),
        "eval-only mean BA (ANLI excluded)": lambda f: _percent(_mean(f, 'eval_only', exclude=('anli',))),
        "CPU pairs/s (realistic / short; 1-min load average)":
            lambda f: (f"{f['pairs_per_second']} / {f['short_pairs_per_second']} ({f['load_average_1min']})"
                       if f["pairs_per_second"] is not None else "-"),  # a run with --no-speed
    }
    for label, fn in summary.items():
        lines.append(f"| {label} | " + " | ".join(fn(judges[n]) for n in names) + " |")
    first = judges[names[0]]["sets"]
    for section, title in SECTION_TITLES.items():
        if not any(f["section"] == section for f in first.values()):
            continue  # a section the runs did not score (--sections)
        lines += ["", f"## {title}", "", head, "|---|---|" + "---|" * (2 * len(names) + 1)]
        for s, f in first.items():
            if f["section"] != section:
                continue
            row = [s, str(f["n"])]
            row += [f"{100 * judges[n]['sets'][s]['ba']:.1f} +- {100 * judges[n]['sets'][s]['se']:.1f}"
                    if s in judges[n]["sets"] else "-" for n in names]
            row += [f"{100 * judges[n]['sets'][s]['auroc']:.1f}" if s in judges[n]["sets"] else "-" for n in names]
            row.append(f"{100 * f['floor_auroc']:.1f}")
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def auroc_differences(dumps: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """Per judge after the first, per set both scored on the same items (the same labels in the
    same order): its AUROC minus the first judge's, with the paired bootstrap standard error (the
    adoption rule of a trained judge: not lower beyond one standard error on any family)."""
    names = list(dumps)
    first = dumps[names[0]]["sets"]
    out: dict[str, dict[str, dict]] = {}
    for name in names[1:]:
        out[name] = {}
        for set_name, s in dumps[name]["sets"].items():
            base = first.get(set_name)
            if base is None or base["labels"] != s["labels"]:
                continue
            y = np.asarray(s["labels"], int)
            diff = auroc(y, np.asarray(s["model"], float)) - auroc(y, np.asarray(base["model"], float))
            se = paired_bootstrap_se(y, base["model"], s["model"], {"auroc": auroc_statistic})["auroc"]
            out[name][set_name] = {"n": len(y), "difference": diff, "se": se,
                                   "lower_beyond_se": bool(se is not None and diff < -se)}
    return out


def differences_markdown(first: str, diffs: dict[str, dict[str, dict]]) -> str:
    lines = []
    for name, sets in diffs.items():
        lines += ["", f"## AUROC of {name} minus {first} (paired bootstrap SE)", "",
                  "| set | n | difference | SE | lower beyond one SE |", "|---|---|---|---|---|"]
        for set_name, d in sets.items():
            se = "-" if d["se"] is None else f"{100 * d['se']:.1f}"
            lines.append(f"| {set_name} | {d['n']} | {100 * d['difference']:+.1f} | {se} | "
                         f"{'**yes**' if d['lower_beyond_se'] else 'no'} |")
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="NAME=RESULT.json:SCORES.json")
    p.add_argument("-o", "--output", type=Path, default=REPO_ROOT / "benchmarks/results/judges.md")
    args = p.parse_args(argv)
    judges, dumps = {}, {}
    for spec in args.runs:
        name, _, files = spec.partition("=")
        result_file, _, dump_file = files.partition(":")
        dumps[name] = read_data(Path(dump_file))
        judges[name] = judge_figures(read_data(Path(result_file)), dumps[name])
    diffs = auroc_differences(dumps)
    report = markdown(judges) + differences_markdown(next(iter(judges)), diffs)
    print(report)
    write_results(args.output.with_suffix(".json"), {"judges": judges, "auroc_differences": diffs}, report)
    return judges


if __name__ == "__main__":
    main()
