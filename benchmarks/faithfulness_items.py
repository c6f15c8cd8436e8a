"""Faithfulness item by item on the development families, and what a code change moved.

    python benchmarks/faithfulness_items.py [--model PATH] [--data-dir DIR] [--limit N]
        [--before FILE] [--scored FILE] [--output FILE]

The agreement harness (`benchmarks.agreement`) scores every metric on every family, about
70 minutes on 2 CPU cores. A change to how claims are judged (a contrast rule, a check, what
the judge reads) moves faithfulness first, and that alone takes about a quarter of the time:
this script scores `Faithfulness` on the harness's attribution sets (WiCE dev against the
whole cited article, SummaC's four subsets, BEGIN dev, AttributionBench dev) and FRANK
validation, the same items at the same caps (`benchmarks.agreement.run.CAPS`), and keeps each
item's score as the harness reads it (its weakest claim's probability) beside the word-overlap
floor (`benchmarks.lib.overlap`).

Report per set: n, AUROC of faithfulness and of word overlap, and the margin over overlap with
its paired bootstrap standard error. With ``--before`` (an earlier run's JSON, e.g. from a
`git worktree` of the older commit): per set, the items whose score changed and the AUROC
difference with its paired bootstrap standard error -- a difference inside one or two standard
errors is not a result. ``--scored`` reports a finished run's scores again without a judge
call (two trees scored side by side, then compared).

Results: ``benchmarks/results/faithfulness_items.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, publish, read_data  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402
from benchmarks.lib.metrics import auroc, auroc_statistic, paired_bootstrap_se  # noqa: E402

CHANGED = 1e-9
"""Two scores of one item further apart than this count as changed (floating-point noise aside)."""


def score_sets(judge, data: Path, limit: int | None) -> dict[str, dict]:
    """Per set, each item's label, faithfulness score (weakest claim) and word-overlap floor."""
    from benchmarks.agreement import attribution, frank
    from benchmarks.agreement.run import CAPS, _cap
    from benchmarks.agreement.scoring import Harness, build_metrics

    harness = Harness(judge, build_metrics(judge, None))
    caps = {name: _cap(name, limit) for name in CAPS}
    sets = attribution.score_attribution_sets(harness, data, caps, metrics=("faithfulness",))
    sets.append(frank.score_frank(harness, data, caps["frank/valid"])[0])
    return {s.name: {"family": s.family, "labels": s.labels.tolist(), "stat": s.stat.tolist(),
                     "overlap": s.overlap.tolist()} for s in sets}


def _auroc(labels: np.ndarray, scores: np.ndarray) -> float | None:
    value = auroc(labels, scores)
    return None if np.isnan(value) else value


def figures(sets: dict[str, dict]) -> dict[str, dict]:
    """Per set: n, AUROC of faithfulness and of overlap, and the margin with its paired SE."""
    out = {}
    for name, s in sets.items():
        y, stat, overlap = (np.asarray(s[k], float) for k in ("labels", "stat", "overlap"))
        ours, floor = _auroc(y, stat), _auroc(y, overlap)
        margin = None if ours is None or floor is None else ours - floor
        se = paired_bootstrap_se(y, overlap, stat, {"auroc": auroc_statistic})["auroc"] if margin is not None else None
        out[name] = {"n": len(y), "positives": int(y.sum()), "auroc": ours, "overlap_auroc": floor,
                     "margin": margin, "margin_se": se}
    return out


def changes(before: dict[str, dict], after: dict[str, dict]) -> dict[str, dict]:
    """Per set scored in both runs on the same items (same labels in the same order): the items
    whose score changed and the AUROC difference (after - before) with its paired bootstrap SE.
    A set whose items differ (another cap, another ``--limit``) is reported as not comparable."""
    out = {}
    for name, s in after.items():
        old = before.get(name)
        if old is None:
            continue
        if old["labels"] != s["labels"]:
            out[name] = {"comparable": False}
            continue
        y, a, b = np.asarray(s["labels"], float), np.asarray(old["stat"], float), np.asarray(s["stat"], float)
        moved = np.flatnonzero(np.abs(a - b) > CHANGED)
        ours, theirs = _auroc(y, b), _auroc(y, a)
        diff = None if ours is None or theirs is None else ours - theirs
        se = paired_bootstrap_se(y, a, b, {"auroc": auroc_statistic})["auroc"] if diff is not None else None
        out[name] = {"comparable": True, "changed": len(moved), "items": moved.tolist(), "before_auroc": theirs,
                     "after_auroc": ours, "difference": diff, "se": se}
    return out


def _pct(value: float | None, sign: bool = False) -> str:
    return "-" if value is None else f"{100 * value:{'+' if sign else ''}.1f}"


def markdown(result: dict) -> str:
    lines = ["# Faithfulness item by item: the development families against the word-overlap floor", "",
             f"Judge: `{result['model']}` (sha256 {result['weights_sha256'][:12]}). Machine: "
             f"{result['machine'].get('cpu', '?')}, {result['machine'].get('cpu_cores', '?')} cores, "
             f"{result['machine'].get('date_utc', '')}; {result['seconds']:.0f} s. Command: `{result['command']}`"
             + (f"; reported by `{result['reported_by']}`." if "reported_by" in result else "."), "",
             "Item score = its weakest claim's probability, as the agreement harness reads faithfulness; the "
             "same items at the same caps. AUROC in %; margin = ours - overlap, +- one paired bootstrap SE "
             "(1,000 resamples).", "",
             "| set | n (pos) | faithfulness AUROC | overlap AUROC | margin |", "|---|---|---|---|---|"]
    for name, f in result["figures"].items():
        se = "" if f["margin_se"] is None else f" +- {_pct(f['margin_se'])}"
        lines.append(f"| {name} | {f['n']} ({f['positives']}) | {_pct(f['auroc'])} | {_pct(f['overlap_auroc'])} | "
                     f"{_pct(f['margin'], True)}{se} |")
    if "changes" in result:
        lines += ["", f"Against `{result['before']}` (same items): AUROC after - before, +- one paired bootstrap SE.",
                  "", "| set | items changed | before | after | difference |", "|---|---|---|---|---|"]
        for name, c in result["changes"].items():
            if not c["comparable"]:
                lines.append(f"| {name} | other items: not compared | | | |")
                continue
            se = "" if c["se"] is None else f" +- {_pct(c['se'])}"
            lines.append(f"| {name} | {c['changed']} | {_pct(c['before_auroc'])} | {_pct(c['after_auroc'])} | "
                         f"{_pct(c['difference'], True)}{se} |")
    return "\n".join(lines) + "\n"


def _run_file(parser: argparse.ArgumentParser, flag: str, path: Path) -> dict:
    """A results file of this script (its ``sets``), or the parser's error naming the flag."""
    try:
        run = read_data(path)
    except (OSError, ValueError) as e:
        parser.error(f"{flag} {path}: {e}")
    if not isinstance(run, dict) or not isinstance(run.get("sets"), dict):
        parser.error(f"{flag} {path}: no per-set scores ('sets'): not a run of this script")
    return run


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_judge(p)
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--limit", type=int, default=None, help="at most N items per set (plumbing runs)")
    p.add_argument("--before", type=Path, default=None, help="an earlier run's JSON to compare against")
    p.add_argument("--scored", type=Path, default=None,
                   help="a run's JSON whose scores to report (no judge call): e.g. compared with --before "
                        "once both runs are done")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/faithfulness_items.json")
    args = p.parse_args(argv)
    if args.limit is not None and args.limit < 2:
        p.error("--limit: at least 2 items per set (an AUROC needs both labels)")
    # Read first: a file that is no run of this script fails before the judge is loaded, not after the run.
    before = _run_file(p, "--before", args.before) if args.before else None
    scored = _run_file(p, "--scored", args.scored) if args.scored else None

    command = command_line("python benchmarks/faithfulness_items.py", argv)
    if args.scored is not None:
        result = {k: v for k, v in scored.items() if k not in ("before", "changes", "reported_by")}
        result["reported_by"] = command
        sets = result["sets"]
    else:
        from localeval.judge import NLIJudge

        judge = NLIJudge(args.model, device="cpu")
        start = time.perf_counter()
        sets = score_sets(judge, args.data_dir, args.limit)
        result = {"command": command, "model": judge.name, "weights_sha256": weights_sha256(judge.path),
                  "machine": describe_machine(), "seconds": time.perf_counter() - start, "limit": args.limit,
                  "figures": figures(sets), "sets": sets}
    if before is not None:
        result["before"] = portable_path(args.before)
        result["changes"] = changes(before["sets"], sets)
    publish(args.output, result, markdown(result))
    return result


if __name__ == "__main__":
    main()
