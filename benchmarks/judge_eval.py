"""Benchmark a localeval judge: held-out, evaluation-only and meta-evaluation sets, speed.

    python benchmarks/judge_eval.py [--model NAME_OR_PATH] [--limit N] [--data-dir DIR]
                                    [--output benchmarks/results/judge_eval.json] [--write-threshold]

Writes the JSON results, a markdown report beside it (same name, ``.md``) and prints the
report. See benchmarks/README.md for what every figure means and how the threshold is chosen.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: make `benchmarks` and `localeval` importable
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib import readers  # noqa: E402
from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, write_data, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402
from benchmarks.lib.metrics import macro_best_threshold  # noqa: E402
from benchmarks.lib.report import markdown_report  # noqa: E402
from benchmarks.lib.scoring import TaskScores, score_attribution_task, score_pair_task, summarize  # noqa: E402
from benchmarks.lib.speed import measure_throughput, realistic_pairs  # noqa: E402

SECTIONS = ("held_out", "eval_only", "meta_eval")

# Development data for the entailment threshold: three families of claim-vs-context
# attribution, scored through `attribute` exactly as the metrics score claims. Each family
# weighs the same in the choice, whatever its size.
THRESHOLD_DEV = {
    "WiCE dev (claim vs whole cited article)": ["wice/dev-article"],
    "SummaC validation (factcc, polytope, summeval, xsumfaith pooled)": [
        f"summac/{s}" for s in readers.SUMMAC_SUBSETS
    ],
    "BEGIN dev (wow, topicalchat, cmu-dog)": ["begin/dev"],
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_judge(p)
    add_data_dir(p, sub=None)
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/judge_eval.json")
    p.add_argument("--limit", type=int, default=None, help="at most N items per set (quick runs)")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: CUDA when available)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {SECTIONS}")
    p.add_argument("--sets", default=None, help="comma-separated set names (or name prefixes) to score, e.g. anli,wice")
    p.add_argument(
        "--granularity", default="both", choices=["both", "window", "sentence"],
        help="units the attribution sets are judged on (localeval.evidence.attribution)",
    )
    p.add_argument("--unit-sentences", type=int, default=None,
                   help="sentences per short unit (default: the attribution default)")
    p.add_argument(
        "--dump-scores", type=Path, default=None,
        help="also write every item's judge and overlap scores (per claim for attribution sets) "
        "to this JSON file, for offline studies such as benchmarks/studies/hybrid.py",
    )
    p.add_argument("--max-units", type=int, default=None,
                   help="attribution sets: judge each claim against at most N units, chosen by word overlap "
                   "(localeval.evidence.attribution max_units); 0: every unit; default: the metrics' default")
    p.add_argument("--no-speed", action="store_true", help="skip the throughput measurement")
    p.add_argument(
        "--write-threshold", action="store_true",
        help="store the chosen entailment threshold in the model's config.json (full runs only)",
    )
    args = p.parse_args(argv)
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        p.error(f"unknown section(s) {sorted(unknown)}")
    args.sets = [x.strip() for x in args.sets.split(",") if x.strip()] if args.sets else None
    if args.write_threshold and (args.limit is not None or args.sets or "meta_eval" not in args.sections):
        p.error("--write-threshold needs a full run: no --limit or --sets, and the meta_eval section")
    return args


def choose_threshold(scored: dict[str, TaskScores], attr: str) -> tuple[float, float, list[str]] | None:
    """Threshold maximising the mean balanced accuracy of the THRESHOLD_DEV families."""
    families, used = [], []
    for family, names in THRESHOLD_DEV.items():
        present = [scored[n] for n in names if n in scored]
        if not present:
            continue
        labels = np.concatenate([s.labels for s in present])
        values = np.concatenate([getattr(s, attr) for s in present])
        families.append((labels, values))
        used.append(family)
    if not families:
        return None
    t, ba = macro_best_threshold(families)
    return t, ba, used


def _load_tasks(args: argparse.Namespace, data: Path, model_dir: Path, notes: list[str]) -> tuple[list, list]:
    pair_tasks: list[readers.PairTask] = []
    attribution_tasks: list[readers.AttributionTask] = []
    if "held_out" in args.sections:
        from benchmarks.lib.heldout import load_held_out

        held, note = load_held_out(data, args.limit, model_dir)
        pair_tasks += held
        if note:
            notes.append(note)
    if "eval_only" in args.sections:
        pair_tasks += readers.load_eval_only(data, args.limit)
    if "meta_eval" in args.sections:
        attribution, sick = readers.load_meta_eval(data, args.limit)
        attribution_tasks += attribution
        pair_tasks += sick
    if args.sets:
        def wanted(task) -> bool:
            return any(task.name.startswith(prefix) for prefix in args.sets)

        pair_tasks = [t for t in pair_tasks if wanted(t)]
        attribution_tasks = [t for t in attribution_tasks if wanted(t)]
    return pair_tasks, attribution_tasks


def _speed(args: argparse.Namespace, judge, data: Path, load_seconds: float) -> dict:
    import torch

    from localeval.judge.nli import NLIJudge

    speed: dict = {"load_seconds": round(load_seconds, 2)}
    if args.no_speed:
        return speed
    cpu_judge = judge if judge.device.type == "cpu" else NLIJudge(judge.path, device="cpu")
    pairs = realistic_pairs(data, cpu_judge, 256)
    speed["cpu"] = measure_throughput(cpu_judge, pairs, batch_size=32)
    # The CPU target is in short pairs (one sentence each side): SICK test pairs.
    short = list(dict.fromkeys(readers.read_sick(data, None).pairs))[:256]
    speed["cpu_short"] = measure_throughput(cpu_judge, short, batch_size=32)
    if torch.cuda.is_available():
        gpu_judge = judge if judge.device.type == "cuda" else NLIJudge(judge.path, device="cuda")
        many = realistic_pairs(data, gpu_judge, 4096)
        speed["gpu"] = measure_throughput(gpu_judge, many, batch_size=32, repeats=3)
        speed["gpu_batch_128"] = measure_throughput(gpu_judge, many, batch_size=128, repeats=3)
    return speed


def _decide_thresholds(args: argparse.Namespace, judge, scored: dict[str, TaskScores], notes: list[str]) -> dict:
    """Choose the model's and the floor's thresholds on the dev families; store the model's if asked."""
    config_before = float(judge.thresholds["entailment"])
    chosen = choose_threshold(scored, "model")
    overlap_chosen = choose_threshold(scored, "overlap")
    written = False
    if chosen is None:
        notes.append("no threshold development set was scored: the stored threshold is used as is")
        t_model, t_ba, families = config_before, float("nan"), []
    else:
        t_model, t_ba, families = chosen
        t_model = round(t_model, 4)  # the value config.json will hold, used for every @t figure
        if args.write_threshold:
            from localeval.training.export import store_thresholds

            store_thresholds(judge.path, {"entailment": t_model})
            written = True
        elif abs(t_model - config_before) > 1e-4:
            notes.append(
                f"@t columns use the threshold stored in config.json ({config_before:.4f}); the procedure "
                f"here chose {t_model:.4f} (rerun with --write-threshold to store it)"
            )
    return {
        "procedure": (
            "entailment threshold maximising the unweighted mean of balanced accuracy over "
            "the development families (each family's items pooled): " + "; ".join(families)
            + ". Candidates are midpoints between consecutive distinct scores; a score >= t is 'supported'."
            if families else "not chosen: no development set was scored in this run"
        ),
        "dev_families": families,
        "chosen": t_model,
        "chosen_dev_balanced_accuracy": t_ba,
        "config_before": config_before,
        "written": written,
        "overlap_chosen": round(overlap_chosen[0], 4) if overlap_chosen else 0.5,
    }


def dump_scores(path: Path, scored: dict[str, TaskScores], judge_name: str) -> None:
    sets = {
        name: {
            "section": s.section,
            "kind": s.kind,
            "labels": s.labels.tolist(),
            "model": s.model.tolist(),
            "overlap": s.overlap.tolist(),
            "claims": s.claims,
        }
        for name, s in scored.items()
    }
    write_data(path, {"judge": judge_name, "sets": sets})


def run(args: argparse.Namespace, argv: list[str]) -> dict:
    from localeval.judge.nli import NLIJudge

    wall = time.perf_counter()
    data = args.data_dir.resolve()
    notes: list[str] = []
    machine = describe_machine()

    start = time.perf_counter()
    judge = NLIJudge(args.model, device=args.device, batch_size=args.batch_size)
    load_seconds = time.perf_counter() - start

    pair_tasks, attribution_tasks = _load_tasks(args, data, judge.path, notes)
    scored: dict[str, TaskScores] = {}
    for task in pair_tasks + attribution_tasks:
        if getattr(task, "kind", None) == "relevance" and not judge.has_relevance_head:
            notes.append(f"{task.name} skipped: {judge.name} has no relevance head")
            continue
        print(f"scoring {task.name} ...", file=sys.stderr, flush=True)
        if isinstance(task, readers.AttributionTask):
            scored[task.name] = score_attribution_task(
                judge, task, args.batch_size, args.granularity, args.unit_sentences, args.max_units
            )
        else:
            scored[task.name] = score_pair_task(judge, task, args.batch_size)
        print(f"  {scored[task.name].seconds:.1f} s", file=sys.stderr, flush=True)

    if args.dump_scores:
        dump_scores(args.dump_scores, scored, judge.name)
    threshold_info = _decide_thresholds(args, judge, scored, notes)
    thresholds = {
        "entailment": threshold_info["chosen"] if threshold_info["written"] else threshold_info["config_before"],
        "relevance": float(judge.thresholds["relevance"]),
    }
    t_overlap = threshold_info["overlap_chosen"]
    rows = [summarize(scored[name], thresholds, t_overlap) for name in scored]
    speed = _speed(args, judge, data, load_seconds)
    return {
        "command": command_line("python benchmarks/judge_eval.py", argv),
        "machine": machine,
        "device": judge.device.type,
        "model": {
            "name": judge.name,
            "path": portable_path(judge.path),
            "weights_sha256": weights_sha256(judge.path),
            "max_length": judge.max_length,
            "labels": judge.layout.nli_labels,
        },
        "data_dir": portable_path(data),
        "limit": args.limit,
        "seed": readers.SEED,
        "threshold": threshold_info,
        "thresholds_used": thresholds,
        "rows": rows,
        "speed": speed,
        "notes": notes,
        "wall_seconds": round(time.perf_counter() - wall, 1),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    warnings.filterwarnings("ignore", message=".*exceed the judge.*")  # counted per set instead
    result = run(args, argv)
    report = markdown_report(result)
    write_results(args.output, result, report)
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
