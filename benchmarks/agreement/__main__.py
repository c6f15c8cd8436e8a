"""``python -m benchmarks.agreement``: score the meta-eval sets, print and write the table."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchmarks.lib.cli import add_data_dir, add_judge
from benchmarks.lib.files import portable_path

REPO_ROOT = Path(__file__).resolve().parents[2]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.agreement", description=__doc__)
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--limit-per-set", type=int, default=None, help="cap every set at N items (quick runs)")
    p.add_argument("--output", type=Path, default=None,
                   help="JSON results; the markdown table is written beside it (.md) (default: "
                        "benchmarks/results/agreement.json, agreement-llm.json with an LLM decomposer)")
    add_judge(p)
    p.add_argument("--decomposer", default="rule",
                   help="claims and sub-questions: rule (default) or a local instruction model (folder or .gguf); "
                        "an LLM run writes agreement-llm.json unless --output is given, beside the rules' table")
    p.add_argument("--write-thresholds", action="store_true",
                   help="store the chosen per-metric thresholds in the judge's config.json (full runs only)")
    args = p.parse_args(argv)
    if args.write_thresholds and args.limit_per_set is not None:
        p.error("--write-thresholds needs a full run: thresholds are not chosen on a --limit-per-set sample")
    llm = args.decomposer.strip().lower() not in ("rule", "rules")
    if args.write_thresholds and llm:
        p.error("--write-thresholds goes with the default decomposer: the stored thresholds serve the rules")
    if args.output is None:
        args.output = REPO_ROOT / "benchmarks/results" / ("agreement-llm.json" if llm else "agreement.json")
    if not args.data_dir.is_dir():
        p.error(f"no meta-eval folder at {args.data_dir} (use --data-dir)")
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    from localeval.judge import get_judge

    from benchmarks.agreement.run import TUNED, run_agreement
    from localeval.training.export import store_thresholds

    from benchmarks.lib.files import finite, write_results
    from benchmarks.agreement.table import build_sections, markdown
    from benchmarks.lib.machine import describe_machine, weights_sha256

    start = time.perf_counter()
    from localeval.llm import resolve_decomposer

    judge = get_judge(args.model)
    decomposer = resolve_decomposer(args.decomposer, judge=judge)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    state = run_agreement(args.data_dir, limit=args.limit_per_set, judge=judge, decomposer=decomposer, log=log)
    chosen = {k: state["choice"][k]["threshold"] for k in TUNED}
    if args.write_thresholds:
        store_thresholds(judge.path, chosen)
        final = chosen
    else:
        final = {k: state["choice"][k]["stored_before"] for k in TUNED}
    sections = build_sections(state, final)
    command = "python -m benchmarks.agreement" + (f" --limit-per-set {args.limit_per_set}" if args.limit_per_set else "")
    command += f" --decomposer {Path(args.decomposer).name}" if decomposer is not None else ""
    command += " --write-thresholds" if args.write_thresholds else ""
    report = {
        "command": command,
        "model": judge.name,
        "weights_sha256": weights_sha256(judge.path),
        "machine": describe_machine(),
        "elapsed_s": round(time.perf_counter() - start, 1),
        "timings_s": state["timings"],
        "limit_per_set": args.limit_per_set,
        "thresholds": {
            "written": args.write_thresholds,
            "final": final,
            "choices": {k: {kk: vv for kk, vv in v.items() if kk not in ("oof", "oof_scores")} | (
                {"floor": {kk: vv for kk, vv in v["floor"].items() if kk != "oof"}} if "floor" in v else {})
                for k, v in state["choice"].items()},
        },
        "floors": {
            "relevance_overlap_cv": state["floor_rel"]["cv"],
            "utilization_overlap_cv": state["floor_util"]["cv"],
        },
        "sections": sections,
    }
    report = finite(report)
    text = markdown(report)
    write_results(args.output, report, text)
    print(text)
    log(f"wrote {portable_path(args.output)} and {portable_path(args.output.with_suffix('.md'))}")
    return report


if __name__ == "__main__":
    main()
