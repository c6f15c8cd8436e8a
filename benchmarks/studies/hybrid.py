"""Judge + word overlap: does a blend of the two beat each of them alone?

    python benchmarks/judge_eval.py --dump-scores benchmarks/results/judge_scores.json.xz
    python -m benchmarks.studies.hybrid benchmarks/results/judge_scores.json.xz

The word-overlap floor beats the small judge on long documents (WiCE articles, SummEval), while
the judge wins on short pairs. A claim's blended score is

    alpha * P(entailment) + (1 - alpha) * overlap(claim, evidence)

taken per claim before the item's min over claims, exactly where the judge's probability sits.
``alpha`` and the decision threshold are chosen together on the same development families as the
judge's own threshold (benchmarks/judge_eval.py: WiCE, SummaC, BEGIN dev). Two checks keep the
choice honest: every evaluation-only and held-out set is out of sample, and each development
family is also scored with alpha and threshold chosen on the other two families only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from benchmarks.lib.files import command_line, publish, read_data
from benchmarks.judge_eval import REPO_ROOT, THRESHOLD_DEV
from benchmarks.lib.metrics import auroc, balanced_accuracy, macro_best_threshold

ALPHAS = tuple(round(a, 2) for a in np.linspace(0.0, 1.0, 21))


def blended(entry: dict, alpha: float) -> np.ndarray:
    """Item scores of one set at ``alpha`` (1 = the judge alone, 0 = overlap alone)."""
    if entry.get("claims"):
        return np.asarray(
            [min(alpha * m + (1 - alpha) * o for m, o in claims) for claims in entry["claims"]]
        )
    return alpha * np.asarray(entry["model"]) + (1 - alpha) * np.asarray(entry["overlap"])


def families_of(sets: dict[str, dict], families: dict[str, list[str]]) -> dict[str, list[str]]:
    return {f: [n for n in names if n in sets] for f, names in families.items() if any(n in sets for n in names)}


def choose(
    sets: dict[str, dict], families: dict[str, list[str]], alphas: tuple[float, ...] = ALPHAS
) -> tuple[float, float, float]:
    """(alpha, threshold, mean dev balanced accuracy) maximising the families' mean balanced
    accuracy; ties go to the larger alpha (the judge)."""
    best: tuple[float, float, float] | None = None
    for alpha in alphas:
        pooled = [
            (
                np.concatenate([np.asarray(sets[n]["labels"]) for n in names]),
                np.concatenate([blended(sets[n], alpha) for n in names]),
            )
            for names in families.values()
        ]
        t, ba = macro_best_threshold(pooled)
        if best is None or ba >= best[2] - 1e-12:
            best = (alpha, t, ba)
    if best is None:
        raise ValueError("no development family was scored")
    return best


def _figures(entry: dict, alpha: float, t: float) -> dict:
    y = np.asarray(entry["labels"])
    s = blended(entry, alpha)
    return {"balanced_accuracy": balanced_accuracy(y, s, t), "auroc": auroc(y, s)}


def study(scores: dict) -> dict:
    sets = {n: e for n, e in scores["sets"].items() if e["kind"] != "relevance"}
    fams = families_of(sets, THRESHOLD_DEV)
    dev_names = {n for names in fams.values() for n in names}
    choices = {
        "judge": (1.0, *choose(sets, fams, (1.0,))[1:]),
        "overlap": (0.0, *choose(sets, fams, (0.0,))[1:]),
        "blend": choose(sets, fams),
    }
    rows = []
    for name, entry in sets.items():
        row = {"set": name, "section": entry["section"], "n": len(entry["labels"]),
               "n_positive": int(np.sum(entry["labels"])), "in_sample": name in dev_names}
        for label, (alpha, t, _) in choices.items():
            row[label] = _figures(entry, alpha, t)
        rows.append(row)
    # Leave one family out: alpha and threshold from the other families, judged on this one.
    held_out_families = []
    for family, names in fams.items():
        others = {f: v for f, v in fams.items() if f != family}
        if not others:
            continue
        picks = {
            "judge": choose(sets, others, (1.0,)),
            "overlap": choose(sets, others, (0.0,)),
            "blend": choose(sets, others),
        }
        labels = np.concatenate([np.asarray(sets[n]["labels"]) for n in names])
        entry = {"family": family, "alpha_blend": picks["blend"][0]}
        for label, (alpha, t, _) in picks.items():
            s = np.concatenate([blended(sets[n], alpha) for n in names])
            entry[label] = balanced_accuracy(labels, s, t)
        held_out_families.append(entry)
    return {
        "judge": scores.get("judge"),
        "dev_families": list(fams),
        "choices": {k: {"alpha": a, "threshold": round(t, 4), "dev_balanced_accuracy": ba}
                    for k, (a, t, ba) in choices.items()},
        "rows": rows,
        "leave_one_family_out": held_out_families,
    }


def _pct(v: float | None) -> str:
    return "-" if v is None or not np.isfinite(v) else f"{100 * v:.1f}"


def _auc(v: float | None) -> str:
    return "-" if v is None or not np.isfinite(v) else f"{v:.3f}"


def markdown(result: dict, command: str) -> str:
    c = result["choices"]
    lines = [
        f"# Judge + word overlap: {result['judge']}",
        "",
        f"- command: `{command}`",
        "- blend = alpha * P(entailment) + (1 - alpha) * overlap, per claim, before the item's min",
        "- alpha and threshold chosen together on: " + "; ".join(result["dev_families"]),
        "",
        "| scorer | alpha | threshold | mean dev BA |",
        "|---|---|---|---|",
    ]
    for k, v in c.items():
        lines.append(f"| {k} | {v['alpha']} | {v['threshold']} | {_pct(v['dev_balanced_accuracy'])} |")
    lines += [
        "",
        "## Every set (BA at the chosen threshold; AUROC)",
        "",
        "`dev` marks the sets the choice was made on (in-sample); all others are out of sample.",
        "",
        "| set | n (pos) | judge BA | overlap BA | blend BA | judge AUROC | overlap AUROC | blend AUROC |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        name = r["set"] + (" (dev)" if r["in_sample"] else "")
        lines.append(
            f"| {name} | {r['n']} ({r['n_positive']}) | {_pct(r['judge']['balanced_accuracy'])} | "
            f"{_pct(r['overlap']['balanced_accuracy'])} | {_pct(r['blend']['balanced_accuracy'])} | "
            f"{_auc(r['judge']['auroc'])} | {_auc(r['overlap']['auroc'])} | {_auc(r['blend']['auroc'])} |"
        )
    out = [r for r in result["rows"] if not r["in_sample"] and r["judge"]["balanced_accuracy"] is not None
           and np.isfinite(r["judge"]["balanced_accuracy"])]
    wins = sum(r["blend"]["balanced_accuracy"] > r["judge"]["balanced_accuracy"] for r in out)
    lines += [
        "",
        f"Out of sample the blend beats the judge alone on {wins} of {len(out)} sets (balanced accuracy at the "
        "chosen thresholds).",
    ]
    lines += [
        "",
        "## Leave one development family out",
        "",
        "alpha and threshold chosen on the other families; balanced accuracy on this one.",
        "",
        "| family | blend alpha | judge BA | overlap BA | blend BA |",
        "|---|---|---|---|---|",
    ]
    for r in result["leave_one_family_out"]:
        lines.append(f"| {r['family']} | {r['alpha_blend']} | {_pct(r['judge'])} | "
                     f"{_pct(r['overlap'])} | {_pct(r['blend'])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scores", type=Path, help="file written by judge_eval.py --dump-scores")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/hybrid.json")
    args = p.parse_args(argv)
    result = study(read_data(args.scores))
    report = markdown(result, command_line("python -m benchmarks.studies.hybrid", argv))
    publish(args.output, result, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
