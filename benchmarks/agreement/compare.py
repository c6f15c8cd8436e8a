"""Side by side: agreement of the metrics under two decomposers (one column per decomposer).

    python -m benchmarks.agreement.compare benchmarks/results/agreement.json \
        benchmarks/results/agreement-llm.json [-o benchmarks/results/agreement-decomposers.md]

Only the figures a decomposer can change are compared: claim attribution (faithfulness,
context recall: balanced accuracy out of fold and AUROC), FRANK correlation and the ablation
pairs (question recall splits questions). Context relevance judges sentences of the context
and does not decompose, so it is left out. Both runs must have scored the same samples (same
``--limit-per-set``); the script refuses otherwise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _label(report: dict[str, Any]) -> str:
    command = report.get("command", "")
    return command.split("--decomposer ", 1)[1].split()[0] if "--decomposer " in command else "rule"


def _fmt(value: Any, scale: float = 1.0, digits: int = 1) -> str:
    return "—" if value is None else f"{value * scale:.{digits}f}"


def _rows(report: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    """(section, set, metric) -> the figure shown for it."""
    sections = report["sections"]
    out: dict[tuple[str, str, str], str] = {}
    for row in sections.get("binary", []):
        out[("attribution", row["set"], row["metric"])] = (
            f"BA {_fmt(row.get('ba_cv'), 100)} / AUROC {_fmt(row.get('auroc'), digits=3)} (n={row['n']})"
        )
    for row in sections.get("frank", []):
        if row["metric"].startswith("localeval"):
            out[("frank", "frank", row["metric"])] = (
                f"Pearson {_fmt(row.get('pearson'), digits=3)} / Spearman {_fmt(row.get('spearman'), digits=3)} (n={row['n']})"
            )
    for row in sections.get("ablation", []):
        out[("ablation", row["set"], row["metric"])] = f"{_fmt(row.get('accuracy'), 100)} (n={row['n']})"
    return out


def compare(reports: list[dict[str, Any]]) -> str:
    limits = {r.get("limit_per_set") for r in reports}
    if len(limits) != 1:
        raise ValueError(f"the runs used different samples (--limit-per-set {sorted(map(str, limits))}): not comparable")
    labels = [_label(r) for r in reports]
    tables = [_rows(r) for r in reports]
    keys = sorted({k for t in tables for k in t})
    lines = [
        "# Agreement by decomposer",
        "",
        "Same samples, same judge (`" + reports[0].get("model", "?") + "`); one column per decomposer. "
        "Attribution: balanced accuracy out of fold (CV) and AUROC; ablation: pairwise accuracy. "
        "Runs: " + "; ".join(f"`{r.get('command', '?')}`" for r in reports) + " (times: each run's own file; "
        "runs on a shared CPU are not comparable in time).",
        "",
        "| section | set | metric | " + " | ".join(labels) + " |",
        "|---|---|---|" + "---|" * len(labels),
    ]
    for key in keys:
        lines.append("| " + " | ".join(key) + " | " + " | ".join(t.get(key, "—") for t in tables) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(prog="python -m benchmarks.agreement.compare", description=__doc__.split("\n")[0])
    p.add_argument("runs", type=Path, nargs="+", help="results JSON of `python -m benchmarks.agreement`")
    p.add_argument("-o", "--output", type=Path, default=None, help="markdown file to write (default: print only)")
    args = p.parse_args(argv)
    text = compare([json.loads(path.read_text(encoding="utf-8")) for path in args.runs])
    if args.output is not None:
        args.output.write_text(text, encoding="utf-8")
    print(text, end="")
    return text


if __name__ == "__main__":
    main()
