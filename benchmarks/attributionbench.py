"""AttributionBench dev through the product: faithfulness AUROC against the word-overlap floor.

    python benchmarks/attributionbench.py [--limit 0] [--output benchmarks/results/agreement_attributionbench.json]

The sixth development family (1,088 human-labelled claims from generative-search answers, each
against the references it cites; ``meta-eval/attributionbench/``), scored as the agreement
harness scores the other families (`benchmarks.agreement.attribution.score_binary_set`: the
claim as a one-sentence response, its references as the contexts, the shipped faithfulness
metric with every check, the item's statistic its lowest claim probability) beside word
overlap (the lowest share of a claim's content words found in the references). AUROC of
each, with bootstrap standard errors and the paired standard error of the margin, overall and
per source dataset. ``benchmarks/ppi_signals.py`` judges a 400-claim sample of the same file
without the checks, for the verdict studies; this is the product's figure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402
from benchmarks.lib.metrics import auroc, auroc_statistic, paired_bootstrap_se  # noqa: E402
from benchmarks.lib.readers import read_attributionbench  # noqa: E402
from benchmarks.ppi_signals import DATA  # noqa: E402


def _se(labels: np.ndarray, scores: np.ndarray, draws: int = 1000, seed: int = 13) -> float:
    rng = np.random.default_rng(seed)
    values = [auroc_statistic(scores[ix], labels[ix]) for ix in
              (rng.integers(0, len(labels), len(labels)) for _ in range(draws))]
    return float(np.std([v for v in values if v is not None]))


def figures(labels: np.ndarray, judged: np.ndarray, overlap: np.ndarray) -> dict:
    margin_se = paired_bootstrap_se(labels, overlap, judged, {"auroc": auroc_statistic})["auroc"]
    ours, floor = auroc(labels, judged), auroc(labels, overlap)
    return {"n": int(len(labels)), "positives": int(labels.sum()), "auroc": round(ours, 4),
            "auroc_se": round(_se(labels, judged), 4), "overlap_auroc": round(floor, 4),
            "overlap_se": round(_se(labels, overlap), 4), "margin": round(ours - floor, 4),
            "margin_se": round(margin_se, 4) if margin_se is not None else None}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=0, help="claims kept, class-balanced and seeded (0: all)")
    add_judge(parser)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/agreement_attributionbench.json")
    args = parser.parse_args(argv)

    from benchmarks.agreement.attribution import score_binary_set
    from benchmarks.agreement.scoring import Harness, build_metrics
    from localeval.judge import get_judge

    items = read_attributionbench(args.data, args.limit or None)
    judge = get_judge(args.model)
    harness = Harness(judge, build_metrics(judge))
    rows = [{"response": it["text"], "retrieved_contexts": it["contexts"]} for it in items]
    labels = [it["label"] for it in items]
    start = time.perf_counter()
    scored = score_binary_set(harness, "attributionbench", "attributionbench", "faithfulness", rows, labels,
                              [str(x) for x in labels], len(items), claims_from="response")
    seconds = time.perf_counter() - start
    y, judged, overlap = scored.labels, scored.stat, scored.overlap
    by_source = {}
    for source in sorted({it["set"] for it in items}):
        ix = np.array([it["set"] == source for it in items])
        if 0 < y[ix].sum() < ix.sum():
            by_source[source] = figures(y[ix], judged[ix], overlap[ix])
    result = {"machine": describe_machine(), "command": command_line("python benchmarks/attributionbench.py", argv),
              "judge": judge.name, "seconds": round(seconds, 1), "unscored": scored.unscored,
              "overall": figures(y, judged, overlap), "by_source": by_source}
    publish(args.output, result, render(result))
    return 0


def render(r: dict) -> str:
    m = r["machine"]
    lines = [
        "# AttributionBench dev: faithfulness against word overlap",
        "",
        f"Measured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores), judge `{r['judge']}`, {r['seconds']} s. "
        f"Command: `{r['command']}`. Items the metric left unscored (counted as unsupported): {r['unscored']}.",
        "",
        "| set | n (attributable) | faithfulness AUROC | word overlap AUROC | margin (paired SE) |",
        "|---|---|---|---|---|",
    ]
    for name, f in [("all", r["overall"]), *r["by_source"].items()]:
        lines.append(f"| {name} | {f['n']} ({f['positives']}) | {f['auroc']:.3f} ± {f['auroc_se']:.3f} | "
                     f"{f['overlap_auroc']:.3f} ± {f['overlap_se']:.3f} | {f['margin']:+.3f} ± {f['margin_se']:.3f} |")
    lines += ["", "AUROC of the item's lowest claim probability (faithfulness) and of its lowest word-overlap share; "
              "standard errors from 1,000 bootstrap draws of the items.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
