"""Where does word overlap beat the judge on FRANK? AUROC per error category.

    python benchmarks/studies/frank_errors.py [--features benchmarks/results/verdict_signals.json.xz] [--data-dir DIR]

FRANK (Pagnoni et al., 2021) annotates each summary sentence with error categories: predicate
(RelE), entity (EntE), circumstance (CircE), coreference (CorefE), discourse link (LinkE),
out-of-article (OutE), grammatical (GramE) and other errors. A summary's column for a category
is below 1.0 when one of its sentences has that error. For each category, the summaries with
that error are the negatives and the fully factual summaries (Factuality = 1) the positives;
each scorer ranks them by its item score as faithfulness sees it (the weakest claim):

* judge: the claim's highest P(entailment) over its units (``p_best``, contrast rules on);
* word overlap: the share of the claim's content words found in the article (`benchmarks.lib.overlap`).

Both come from a signals file of `benchmarks/verdict.py` (no judge call here); the difference's
standard error is a paired bootstrap over summaries (1,000 resamples). A summary can hold several
categories, so the rows are not disjoint.

Results: ``benchmarks/results/frank_errors.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import add_data_dir  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, publish, read_data  # noqa: E402
from benchmarks.lib.metrics import auroc, paired_bootstrap_se  # noqa: E402

CATEGORIES = ("EntE", "RelE", "CircE", "OutE", "CorefE", "LinkE", "GramE", "Other")


def item_scores(features: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(judge, overlap) per item: the weakest claim's (an item without claims counts as 1.0)."""
    judge = [min((c["signals"]["p_best"] for c in f["claims"]), default=1.0) for f in features]
    overlap = [min((c["overlap"] for c in f["claims"]), default=1.0) for f in features]
    return np.asarray(judge), np.asarray(overlap)


def by_category(rows: list[dict], judge: np.ndarray, overlap: np.ndarray) -> list[dict]:
    good = np.array([float(r["Factuality"]) >= 1.0 for r in rows])
    out = []
    for cat in CATEGORIES:
        bad = np.array([float(r[cat]) < 1.0 for r in rows])
        keep = good | bad
        y = good[keep].astype(float)
        a, b = judge[keep], overlap[keep]
        se = paired_bootstrap_se(y, b, a, {"auroc": lambda s, g: auroc(g.astype(int), s) if 0 < g.sum() < len(g) else None})
        out.append({"category": cat, "n_with_error": int(bad.sum()), "n_factual": int(good.sum()),
                    "judge_auroc": round(100 * auroc(y.astype(int), a), 1),
                    "overlap_auroc": round(100 * auroc(y.astype(int), b), 1),
                    "difference_se": round(100 * se["auroc"], 1) if se["auroc"] is not None else None})
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--features", type=Path, default=REPO_ROOT / "benchmarks/results/verdict_signals.json.xz")
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/frank_errors.json")
    args = p.parse_args(argv)

    from benchmarks.agreement.frank import load_frank

    signals = read_data(args.features)
    features = signals["frank"]
    # The signals file lists FRANK's items in load_frank's order (every item: --all-items frank).
    rows, _ = load_frank(args.data_dir, None)
    labels = [int(float(r["Factuality"]) >= 1.0) for r in rows]
    if len(rows) != len(features) or labels != [f["label"] for f in features]:
        raise SystemExit("the signals file's FRANK items are not load_frank's (run verdict.py with --all-items frank)")
    judge, overlap = item_scores(features)
    table = by_category(rows, judge, overlap)
    result = {"command": command_line("python benchmarks/studies/frank_errors.py", argv),
              "features": portable_path(args.features), "n": len(rows), "categories": table}
    lines = ["# FRANK: the judge and word overlap per error category (AUROC, %)", "",
             f"Command: `{result['command']}`. Signals: `{result['features']}` (no judge call here). "
             f"n = {len(rows)} FRANK validation summaries; positives = the fully factual ones; negatives = those "
             "with an error of the category (a summary can have several). Item score = its weakest claim's. "
             "SE: paired bootstrap of the difference over summaries.", "",
             "| category | summaries with the error | judge AUROC | overlap AUROC | judge - overlap | SE |",
             "|---|---|---|---|---|---|"]
    for r in table:
        diff = round(r["judge_auroc"] - r["overlap_auroc"], 1)
        lines.append(f"| {r['category']} | {r['n_with_error']} | {r['judge_auroc']} | {r['overlap_auroc']} | "
                     f"{diff:+.1f} | {r['difference_se']} |")
    markdown = "\n".join(lines) + "\n"
    publish(args.output, result, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
