"""The attribution prefilter (``max_units``): agreement and time, side by side.

    python benchmarks/judge_eval.py --sections meta_eval --sets wice,summac,begin --max-units 12 \\
        --no-speed --output benchmarks/results/prefilter/units-12.json
    python -m benchmarks.studies.prefilter all=benchmarks/results/prefilter/units-all.json \\
        6=benchmarks/results/judge_eval.json 12=benchmarks/results/prefilter/units-12.json

Each argument is ``LABEL=FILE``, a judge_eval result of the same judge (the script refuses
files of different weights). For every attribution set present in all of them: AUROC, the
set's oracle balanced accuracy (threshold-free comparisons: the stored threshold was chosen
for one setting only) and the seconds the set took; plus each run's mean development balanced
accuracy at the threshold that run would choose. Times come from separate runs on a shared
machine: compare them as rough ratios.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.lib.files import REPO_ROOT, command_line, publish


def _load(spec: str) -> tuple[str, dict]:
    label, sep, path = spec.partition("=")
    if not sep or not label or not path:
        raise SystemExit(f"expected LABEL=FILE, got {spec!r}")
    return label, json.loads(Path(path).read_text(encoding="utf-8"))


def compare(runs: list[tuple[str, dict]]) -> dict:
    weights = {r["model"]["weights_sha256"] for _, r in runs}
    if len(weights) != 1:
        raise SystemExit("the runs are of different judges (weights differ): nothing to compare")
    sets = [row["set"] for row in runs[0][1]["rows"] if row["kind"] == "attribution"]
    by_run = {label: {row["set"]: row for row in r["rows"]} for label, r in runs}
    sets = [s for s in sets if all(s in rows for rows in by_run.values())]
    table = []
    for s in sets:
        entry = {"set": s, "n": by_run[runs[0][0]][s]["n"]}
        for label, _ in runs:
            row = by_run[label][s]
            entry[label] = {"auroc": row["model"]["auroc"], "balanced_accuracy_oracle": row["model"]["balanced_accuracy_oracle"],
                            "seconds": row["seconds"]}
        table.append(entry)
    return {
        "model": runs[0][1]["model"]["name"],
        "weights_sha256": weights.pop(),
        "runs": {label: {"command": r["command"], "machine": r["machine"],
                         "dev_threshold": r["threshold"]["chosen"],
                         "dev_balanced_accuracy": r["threshold"]["chosen_dev_balanced_accuracy"]} for label, r in runs},
        "sets": table,
    }


def markdown(result: dict, command: str) -> str:
    labels = list(result["runs"])
    lines = [
        f"# Attribution prefilter (max_units): {result['model']}",
        "",
        f"- command: `{command}`",
        "- each label is the number of units judged per claim (`all`: every unit); the runs:",
        *(f"  - `{k}`: `{v['command']}` ({v['machine']['date_utc']}, {v['machine']['cpu']})" for k, v in result["runs"].items()),
        "",
        "| units per claim | mean dev BA at the run's own threshold | that threshold |",
        "|---|---|---|",
        *(f"| {k} | {100 * v['dev_balanced_accuracy']:.1f} | {v['dev_threshold']} |" for k, v in result["runs"].items()),
        "",
        "| set | n | " + " | ".join(f"AUROC {k}" for k in labels) + " | "
        + " | ".join(f"oracle BA {k}" for k in labels) + " | " + " | ".join(f"s {k}" for k in labels) + " |",
        "|---|---|" + "---|" * (3 * len(labels)),
    ]
    for e in result["sets"]:
        lines.append(
            f"| {e['set']} | {e['n']} | " + " | ".join(f"{e[k]['auroc']:.3f}" for k in labels) + " | "
            + " | ".join(f"{100 * e[k]['balanced_accuracy_oracle']:.1f}" for k in labels) + " | "
            + " | ".join(f"{e[k]['seconds']}" for k in labels) + " |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="LABEL=FILE, judge_eval results of one judge")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/prefilter.json")
    args = p.parse_args(argv)
    result = compare([_load(spec) for spec in args.runs])
    report = markdown(result, command_line("python -m benchmarks.studies.prefilter", argv))
    publish(args.output, result, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
