"""Judges side by side on the held-out pairs of a prepared training file.

    python benchmarks/studies/heldout_judges.py --prepared FILE NAME=JUDGE_DIR [NAME=...] [--max-lengths 192,256] --output FILE

A training run reports held-out figures for the judge it exports only (``heldout_eval.json``);
the adoption rule of a trained judge (issue 35: held-out NLI balanced accuracy >= 0.87) needs
the judge it would replace read on the same pairs, by the same code, at the same window. This
study reads the held-out pairs of a ``python -m localeval.training --prepared FILE`` file (the
data a GPU session trained on: ``benchmarks/gpu_session.sh pack``), scores them with each judge
at each window, and reports the trainer's own figures (``localeval.training.evaluate``:
thresholds chosen on the pooled held-out pairs, balanced accuracy per source and pooled).

Results: ``--output`` (JSON) and the markdown beside it; a GPU session's trained judge is read
into ``benchmarks/results/gpu_session/runN/heldout_judges.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import lzma
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.files import command_line, portable_path, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402


def heldout_pairs(prepared_file: Path, limit: int | None = None) -> tuple[list, dict]:
    """The held-out pairs of a prepared file (under the key its header names: this study reads
    whatever recipe made it) and that recipe."""
    from localeval.training import prepared

    with lzma.open(prepared_file, "rt", encoding="utf-8") as fh:
        header = json.loads(fh.readline())
    _, heldout, _ = prepared.read_prepared(prepared_file, header["key"])
    if limit:
        heldout = heldout[::max(1, len(heldout) // limit)][:limit]
    return heldout, header.get("recipe", {})


def score(judge_dir: Path, heldout: list, max_length: int) -> dict:
    import torch

    from localeval.training.evaluate import evaluate, predict
    from localeval.training.model import load_for_training

    model, tokenizer = load_for_training(judge_dir)
    start = time.perf_counter()
    nli, rel = predict(model, tokenizer, heldout, max_length, torch.device("cpu"))
    report = evaluate(heldout, nli, rel)
    return {**report, "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("judges", nargs="+", help="NAME=JUDGE_DIR, the first one the reference")
    parser.add_argument("--prepared", type=Path, required=True, help="a prepared training-data file")
    parser.add_argument("--max-lengths", default="192,256", help="windows to read each judge at")
    parser.add_argument("--limit", type=int, default=None, help="at most N held-out pairs, spread (plumbing runs)")
    parser.add_argument("--output", type=Path, required=True,
                        help="result file (.json, the .md beside it): a GPU session's go in results/gpu_session/runN/")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    judges = {}
    for item in args.judges:
        name, sep, folder = item.partition("=")
        if not sep or not Path(folder, "config.json").is_file():
            parser.error(f"{item!r}: expected NAME=JUDGE_DIR, a folder with a config.json")
        judges[name] = Path(folder)
    lengths = [int(x) for x in args.max_lengths.split(",") if x.strip()]
    heldout, recipe = heldout_pairs(args.prepared, args.limit)
    runs = []
    for length in lengths:
        for name, folder in judges.items():
            report = score(folder, heldout, length)
            runs.append({"judge": name, "max_length": length, **report})
            print(f"{name} at {length} tokens: NLI BA {report['pooled']['nli_balanced_accuracy']}, "
                  f"relevance BA {report['pooled']['relevance_balanced_accuracy']} ({report['seconds']} s)", flush=True)
    # NAME=FOLDER arguments named portably too (command_line sees only whole absolute paths).
    recorded = [f"{n}={portable_path(judges[n])}" if a in args.judges and (n := a.partition("=")[0]) in judges else a
                for a in argv]
    result = {"machine": describe_machine(), "command": command_line("python benchmarks/studies/heldout_judges.py", recorded),
              "prepared": args.prepared.name, "recipe": recipe, "pairs": len(heldout),
              "judges": {k: portable_path(v) for k, v in judges.items()}, "runs": runs}
    publish(args.output, result, render(result))
    return 0


def render(r: dict) -> str:
    m = r["machine"]
    runs = r["runs"]
    sources = sorted({s for x in runs for s in x["per_source"]})
    heads = [f"{x['judge']} @{x['max_length']}" for x in runs]
    lines = [
        "# Judges on the held-out pairs of a prepared training file",
        "",
        f"Measured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores), torch {m['torch']}. "
        f"Command: `{r['command']}`.",
        "",
        f"{r['pairs']} held-out pairs of `{r['prepared']}` (recipe: `{json.dumps(r['recipe'], sort_keys=True)}`). "
        "Balanced accuracy per source at the thresholds each judge's scores choose on the pooled pairs "
        "(the trainer's own report, `localeval.training.evaluate`); @N = the window in tokens.",
        "",
        "| source | n | " + " | ".join(heads) + " |",
        "|---|---|" + "---|" * len(heads),
    ]
    for s in sources:
        n = next(x["per_source"][s]["n"] for x in runs if s in x["per_source"])
        cells = [f"{x['per_source'][s]['balanced_accuracy_at_threshold']:.3f}" if s in x["per_source"] else "-"
                 for x in runs]
        lines.append(f"| {s} | {n} | " + " | ".join(cells) + " |")
    for key, label in (("nli_balanced_accuracy", "pooled NLI"), ("relevance_balanced_accuracy", "pooled relevance")):
        n = runs[0]["pooled"]["n_nli" if key.startswith("nli") else "n_relevance"]
        lines.append(f"| **{label}** | {n} | " + " | ".join(f"**{x['pooled'][key]:.3f}**" for x in runs) + " |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
