"""AUROC of faithfulness / context recall on development families, claims judged whole vs pieced.

The agreement harness's binary families (WiCE dev articles through faithfulness and context
recall, SummaC's subsets and BEGIN dev through faithfulness, FRANK valid through faithfulness),
each cut to ``--cap`` class-balanced items (seeded, as the harness samples), scored twice in
one process with the same judge: ``pieced=False`` (before) and the default (after: a claim no
single unit supports is judged again by single sentences and by its atomic parts). The
statistic is the harness's: the lowest claim probability of an item. Reported per family:
AUROC before and after, the paired bootstrap standard error of the difference, and word
overlap's AUROC on the same items (the floor).

Run: ``python benchmarks/pieced_agreement.py [--cap 40]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_data_dir  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_dir(parser, sub="meta-eval")
    parser.add_argument("--cap", type=int, default=40, help="items per set (class-balanced sample)")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/pieced_agreement.json")
    args = parser.parse_args(argv)

    from benchmarks.agreement.attribution import load_attribution_sets, score_binary_set
    from benchmarks.agreement.frank import load_frank
    from benchmarks.agreement.scoring import Harness
    from benchmarks.lib.metrics import auroc, auroc_statistic, paired_bootstrap_se
    from localeval.judge import get_judge
    from localeval.metrics import ContextRecall, Faithfulness

    judge = get_judge(None)
    harnesses = {label: Harness(judge, {"faithfulness": Faithfulness(judge, exhaustive=True, pieced=pieced),
                                        "context_recall": ContextRecall(judge, exhaustive=True, pieced=pieced)})
                 for label, pieced in (("before", False), ("after", True))}
    tasks = []  # (family, metric, rows, labels, claims_from)
    caps = {name: args.cap for name in ("wice/dev-article", "begin/dev")} | {
        f"summac/{s}": max(args.cap // 2, 10) for s in ("cogensumm", "xsumfaith", "polytope", "factcc")}
    for family, name, task in load_attribution_sets(args.data_dir, caps):
        labels = [it.label for it in task.items]
        for metric in ("faithfulness", "context_recall") if family == "wice" else ("faithfulness",):
            field = "response" if metric == "faithfulness" else "reference"
            rows = [{field: " ".join(it.claims), "retrieved_contexts": it.contexts} for it in task.items]
            tasks.append((family, name, metric, rows, labels, field))
    frank_rows, _ = load_frank(args.data_dir, args.cap)
    tasks.append(("frank", "frank/valid", "faithfulness",
                  [{"response": r["summary"], "retrieved_contexts": [r["article"]]} for r in frank_rows],
                  [int(r["Factuality"] >= 1.0) for r in frank_rows], "response"))

    # Pooled per family and metric (SummaC's four subsets are one family).
    pooled: dict[tuple[str, str], dict[str, list]] = {}
    for family, name, metric, rows, labels, field in tasks:
        entry = pooled.setdefault((family, metric), {"labels": [], "before": [], "after": [], "overlap": []})
        entry["labels"] += labels
        for label, harness in harnesses.items():
            scored = score_binary_set(harness, name, family, metric, rows, labels, [str(x) for x in labels],
                                      len(rows), field)
            entry[label] += list(scored.stat)
            if label == "before":
                entry["overlap"] += list(scored.overlap)
        print(f"{name} {metric}: done", file=sys.stderr, flush=True)

    results, lines = [], ["| family | metric | n | AUROC before | AUROC after | after - before (± SE) | "
                          "word overlap AUROC | after - overlap (± SE) |", "|---|---|---|---|---|---|---|---|"]
    for (family, metric), e in pooled.items():
        y = np.asarray(e["labels"])
        b, a, o = (np.asarray(e[k], float) for k in ("before", "after", "overlap"))
        se_pieced = paired_bootstrap_se(y, b, a, {"auroc": auroc_statistic})["auroc"]
        se_floor = paired_bootstrap_se(y, o, a, {"auroc": auroc_statistic})["auroc"]
        row = {"family": family, "metric": metric, "n": int(len(y)), "auroc_before": auroc(y, b),
               "auroc_after": auroc(y, a), "se_difference": se_pieced, "auroc_overlap": auroc(y, o),
               "se_margin_over_overlap": se_floor}
        results.append(row)
        lines.append(f"| {family} | {metric} | {row['n']} | {row['auroc_before']:.3f} | {row['auroc_after']:.3f} | "
                     f"{row['auroc_after'] - row['auroc_before']:+.3f} ± {se_pieced:.3f} | {row['auroc_overlap']:.3f} | "
                     f"{row['auroc_after'] - row['auroc_overlap']:+.3f} ± {se_floor:.3f} |")
    table = "\n".join(lines)
    print(table)
    m = describe_machine()
    command = command_line("python benchmarks/pieced_agreement.py", argv)
    write_results(args.output, {"machine": m, "cap": args.cap, "families": results},
                  f"# Pieced support on the development families (a sample)\n\nMeasured {m['date_utc']} on {m['cpu']} "
                  f"({m['cpu_cores']} cores). Command: `{command}`. Each set cut to a class-balanced seeded sample "
                  f"({args.cap} items; SummaC {max(args.cap // 2, 10)} per subset); statistic: an item's lowest claim "
                  "probability, at exhaustive attribution, as in the agreement harness. Before: `pieced=False`; "
                  "after: the default. SE: paired bootstrap (1000 draws).\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
