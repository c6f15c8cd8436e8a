"""Bulk speed of two versions of localeval on the same rows: judge pairs per row and rows/s,
each metric alone and bulk_speed's three metrics together.

An issue that changes how claims are cut or checked must report CPU pairs per row and rows/s
"before and after"; timings on a shared machine only compare within one run, so both trees are
measured here, in turns (before, after, before, after, ...), and each figure is the faster of
its rounds. The earlier tree is checked out with ``git worktree add --detach`` into a temporary
folder; each round runs one fresh Python process per tree with that tree first on its path, so
each scores with its own code (checked: every `localeval` module comes from the tree). The judge's
files come from the installed `localeval_models` package in both; the report says whether
`models/` differs between the two revisions.

Rows: `benchmarks.bulk_speed.make_rows` (5 contexts of ~120 words, a 3-sentence reference, a
2-sentence answer), plus two warm-up rows per process (loading the judge and spaCy is not
timed). Judge pairs are the session's counter; judge ms are the time inside the judge's scorer.

Run: ``python benchmarks/before_after.py --before REV [--after REV] [--rows 60] [--rounds 2]``
(``--after`` defaults to this checkout's working tree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bulk_speed import METRICS, make_rows  # noqa: E402
from benchmarks.lib.files import command_line, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

DEFAULT_GROUPS = ["context_recall", "faithfulness", "factual_correctness", "chunk_recall",
                  "context_relevance", ",".join(METRICS)]
WARM_SEED = 101
"""Seed of the warm-up rows: not among the measured ones."""

# Runs inside each tree's own process: only the public API both trees share (`evaluate`,
# `RunOptions`, the session's counters and timers; the session moved packages once).
CHILD = r"""
import importlib, json, os, sys, time
spec = json.load(open(sys.argv[1]))
import localeval
from localeval import evaluate
from localeval.options import RunOptions
root = os.path.dirname(localeval.__file__)
# Decided by the tree's own files: an import that fails here could be answered by an installed
# copy of localeval (an editable install's finder), which the tree's own evaluate() refuses.
moved = os.path.exists(os.path.join(root, "judge", "session.py"))
JudgeSession = importlib.import_module("localeval.judge.session" if moved else "localeval.backends.session").JudgeSession
out = {"localeval": localeval.__file__, "groups": []}
for group in spec["groups"]:
    metrics = group.split(",")
    with JudgeSession(RunOptions()) as session:
        evaluate(spec["warm"], metrics, session=session, show_progress=False)
    start = time.perf_counter()
    with JudgeSession(RunOptions()) as session:
        result = evaluate(spec["rows"], metrics, session=session, show_progress=False)
    seconds = time.perf_counter() - start
    scores = [row.results[m].score for row in result.rows for m in metrics]
    out["groups"].append({"group": group, "seconds": seconds,
                          "pairs": session.counters.pairs_judged,
                          "judge_seconds": session.timings.seconds["judge"],
                          "scored": sum(s is not None for s in scores)})
out["foreign"] = sorted(n for n, m in list(sys.modules.items()) if (n == "localeval" or n.startswith("localeval."))
                        and getattr(m, "__file__", None) and not os.path.abspath(m.__file__).startswith(root))
print(json.dumps(out))
"""


def _rev(tree: Path, rev: str = "HEAD") -> str:
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", rev], check=True,
                          capture_output=True, text=True).stdout.strip()


def _models_differ(before: str, after: str | None) -> bool:
    """Whether the judge registry folder differs between the two revisions (the working tree for
    ``after=None``)."""
    revs = [before] if after is None else [before, after]
    done = subprocess.run(["git", "-C", str(REPO_ROOT), "diff", "--quiet", *revs, "--", "models"])
    return done.returncode != 0


def _measure(tree: Path, spec_file: Path) -> dict:
    """One process scoring every group with ``tree``'s own localeval."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(spec_file)], cwd=tree, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"scoring with the tree at {tree.name} failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(out["localeval"]).resolve().is_relative_to(tree.resolve()) or out["foreign"]:
        raise RuntimeError(f"the process imported localeval from outside the tree at {tree.name}: "
                           f"{out['localeval']}, {out['foreign'][:5]}")
    return out


def _best(rounds: list[dict], group: str, rows: int) -> dict:
    """The faster round of ``group``; pairs are the same in every round (checked)."""
    runs = [g for r in rounds for g in r["groups"] if g["group"] == group]
    if len({g["pairs"] for g in runs}) != 1:
        raise RuntimeError(f"{group}: judge pairs differ between rounds of one tree: {[g['pairs'] for g in runs]}")
    best = min(runs, key=lambda g: g["seconds"])
    return {"rows_per_s": round(rows / best["seconds"], 2), "pairs_per_row": round(best["pairs"] / rows, 2),
            "judge_ms_per_row": round(1000 * best["judge_seconds"] / rows, 1),
            "outside_ms_per_row": round(1000 * (best["seconds"] - best["judge_seconds"]) / rows, 1),
            "scored": best["scored"], "round_seconds": [round(g["seconds"], 2) for g in runs]}


def _table(result: dict) -> str:
    b, a = result["before"], result["after"]
    lines = [f"# Bulk speed before and after ({b['rev']} → {a['rev']})", "",
             f"Measured {result['machine']['date_utc']} on {result['machine']['cpu']} "
             f"({result['machine']['cpu_cores']} cores), torch {result['machine']['torch']}. "
             f"Command: `{result['command']}`. {result['rows']} rows of `benchmarks/bulk_speed.py`'s workload, "
             f"the trees in turns ({result['rounds']} rounds each, the faster round shown); each tree scores "
             f"with its own code, the metrics' defaults; `models/` {'differs' if result['models_differ'] else 'is the same'} "
             "in the two revisions.", "",
             "| metrics | pairs/row before | after | rows/s before | after | change | judge ms/row before | after | "
             "outside the judge ms/row before | after |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for group in result["groups"]:
        x, y = b["groups"][group], a["groups"][group]
        change = 100 * (y["rows_per_s"] / x["rows_per_s"] - 1)
        label = "three metrics (bulk_speed's)" if "," in group else group
        lines.append(f"| {label} | {x['pairs_per_row']} | {y['pairs_per_row']} | {x['rows_per_s']} | "
                     f"{y['rows_per_s']} | {change:+.1f} % | {x['judge_ms_per_row']} | {y['judge_ms_per_row']} | "
                     f"{x['outside_ms_per_row']} | {y['outside_ms_per_row']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="git revision of the earlier tree")
    parser.add_argument("--after", default=None, help="git revision of the later tree (default: this working tree)")
    parser.add_argument("--rows", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--groups", default=";".join(DEFAULT_GROUPS),
                        help="';'-separated metric groups, each a comma-separated list")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/before_after.json")
    args = parser.parse_args(argv)
    if args.rows < 1 or args.rounds < 1:
        parser.error("--rows and --rounds must be at least 1")
    groups = [g for g in args.groups.split(";") if g]
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for side, rev in (("before", args.before), ("after", args.after)):
            if rev is None:
                trees[side] = REPO_ROOT
                continue
            path = Path(tmp) / side
            subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
            trees[side] = path
        try:
            spec_file = Path(tmp) / "spec.json"
            spec_file.write_text(json.dumps({"groups": groups, "warm": make_rows(2, seed=WARM_SEED),
                                             "rows": make_rows(args.rows)}))
            rounds: dict[str, list[dict]] = {"before": [], "after": []}
            for i in range(args.rounds):
                for side in ("before", "after"):
                    rounds[side].append(_measure(trees[side], spec_file))
                    print(f"round {i + 1}, {side}: done", file=sys.stderr, flush=True)
            result = {"machine": describe_machine(), "command": command_line("python benchmarks/before_after.py",
                                                                            sys.argv[1:] if argv is None else argv),
                      "rows": args.rows, "rounds": args.rounds, "groups": groups,
                      "models_differ": _models_differ(args.before, args.after)}
            for side in ("before", "after"):
                rev = args.before if side == "before" else (args.after or "HEAD")
                label = _rev(REPO_ROOT, rev) + ("" if side == "before" or args.after else " (working tree)")
                result[side] = {"rev": label, "groups": {g: _best(rounds[side], g, args.rows) for g in groups}}
        finally:
            for side, path in trees.items():
                if path != REPO_ROOT:
                    subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(path)], check=False)
    publish(args.output, result, _table(result))


if __name__ == "__main__":
    main()
