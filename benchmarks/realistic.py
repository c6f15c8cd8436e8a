"""Scores on hand-written realistic rows against a person's labels, before and after a change.

Rows: ``benchmarks/data/realistic_rows.jsonl`` (written for this project, labels per row; see
``benchmarks/data/README.md``). Metrics: faithfulness, context recall, factual correctness
(f1), each "before" and "after" one option of `COMPARED` (``--compare``): ``pieced`` (the
default: before, claims judged whole; after, a claim no single unit supports is judged by its
atomic parts) or ``check_contexts`` (factual correctness only: before, the reference alone
judges the response; after, the retrieved contexts judge what the reference does not state).
Reported, each as a share of rows with n and a binomial standard error:

* faithfulness right: score 1.0 exactly when the row is labelled ``faithful``;
* context recall 1.0 on rows whose reference the contexts hold (``reference_in_contexts``),
  and on the facts-split-across-chunks rows among them;
* factual correctness >= 0.6 on correct answers (``answer_correct``) and <= 0.5 on answers
  stating something false (``states_false``);
* rows/s and judge pairs per row of each metric, before and after, in this process.

Run: ``python benchmarks/realistic.py [--data FILE] [--compare pieced] [--output benchmarks/results/realistic.json]``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

DATA = REPO_ROOT / "benchmarks/data/realistic_rows.jsonl"
METRICS = ("faithfulness", "context_recall", "factual_correctness")
VARIANTS = (("before", False), ("after", True))
COMPARED = {"pieced": METRICS, "check_contexts": ("factual_correctness",)}
"""Each option ``--compare`` can set off (before) and on (after), and the metrics that take it."""


def load_rows(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def as_sample(row: dict) -> dict:
    return {"user_input": row["question"], "retrieved_contexts": row["retrieved_contexts"],
            "response": row["response"], "reference": row["reference"]}


def share(hits: list[bool]) -> dict:
    """Share of True with n and the binomial standard error."""
    n = len(hits)
    if not n:  # a set without rows of this kind: no figure (None, never NaN)
        return {"share": None, "n": 0, "se": None}
    p = sum(hits) / n
    return {"share": round(p, 3), "n": n, "se": round(math.sqrt(p * (1 - p) / n), 3)}


def _cell(figure: dict) -> str:
    if figure["share"] is None:
        return "— (n=0)"
    return f"{figure['share']:.3f} ± {figure['se']:.3f} (n={figure['n']})"


def score_rows(rows: list[dict], option: str, on: bool, judge) -> tuple[dict[str, list], dict[str, dict]]:
    """Per metric (``option`` set to ``on`` where it takes it): its results on every row, and
    its speed (rows/s, judge pairs per row)."""
    from localeval.judge.session import JudgeSession
    from localeval.metrics import get_metric
    from localeval.options import RunOptions

    results, speed = {}, {}
    samples = [as_sample(r) for r in rows]
    for name in METRICS:
        metric = get_metric(name, model=judge, **({option: on} if name in COMPARED[option] else {}))
        start = time.perf_counter()
        with JudgeSession(RunOptions(model=judge)) as session:
            results[name] = metric.score_many(samples, session=session)
        seconds = time.perf_counter() - start
        speed[name] = {"rows_per_s": round(len(rows) / seconds, 2),
                       "judge_pairs_per_row": round(session.counters.pairs_judged / len(rows), 2)}
    return results, speed


def must_show(rows: list[dict], results: dict[str, list]) -> dict[str, dict]:
    """The figures the issue asks for, from one variant's results."""
    labels = [r["labels"] for r in rows]
    faith = [res.score for res in results["faithfulness"]]
    recall = [res.score for res in results["context_recall"]]
    fc = [res.score for res in results["factual_correctness"]]
    held = [i for i, lab in enumerate(labels) if lab["reference_in_contexts"] and recall[i] is not None]
    split = [i for i in held if rows[i]["kind"] == "split"]
    correct = [i for i, lab in enumerate(labels) if lab["answer_correct"] and fc[i] is not None]
    false = [i for i, lab in enumerate(labels) if lab["states_false"] and fc[i] is not None]
    scored = [i for i in range(len(rows)) if faith[i] is not None]
    return {
        "faithfulness right (1.0 exactly when faithful)": share([(faith[i] == 1.0) == labels[i]["faithful"] for i in scored]),
        "context recall 1.0 where the contexts hold the reference": share([recall[i] == 1.0 for i in held]),
        "  of which facts split across sentences or chunks": share([recall[i] == 1.0 for i in split]),
        "factual correctness >= 0.6 on correct answers": share([fc[i] >= 0.6 for i in correct]),
        "factual correctness <= 0.5 on answers stating something false": share([fc[i] <= 0.5 for i in false]),
    }


def _claims_detail(result) -> list[dict]:
    claims = getattr(result, "claims", None) or getattr(result, "response_claims", [])
    return [{"text": c.text, "attributed": c.attributed, "pieced": c.pieced,
             "failed_parts": c.failed_parts, "parts": [p.text for p in c.parts or []]} for c in claims]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--compare", choices=sorted(COMPARED), default="pieced",
                        help="the option set off (before) and on (after)")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/realistic.json")
    args = parser.parse_args(argv)

    from localeval.judge import get_judge

    rows = load_rows(args.data)
    judge = get_judge(None)
    figures, speeds, per_row = {}, {}, [{"id": r["id"], "kind": r["kind"], "labels": r["labels"]} for r in rows]
    for label, on in VARIANTS:
        results, speeds[label] = score_rows(rows, args.compare, on, judge)
        figures[label] = must_show(rows, results)
        for k, row in enumerate(per_row):
            row[label] = {name: results[name][k].score for name in METRICS}
            if on:
                row["faithfulness_claims"] = _claims_detail(results["faithfulness"][k])
                row["factual_correctness_response_claims"] = _claims_detail(results["factual_correctness"][k])
        print(f"{label}: " + json.dumps(figures[label]), file=sys.stderr, flush=True)

    lines = ["| figure | before | after |", "|---|---|---|"]
    for key in figures["after"]:
        b, a = figures["before"][key], figures["after"][key]
        lines.append(f"| {key} | {_cell(b)} | {_cell(a)} |")
    lines += ["", "| metric | rows/s before | rows/s after | judge pairs/row before | after |", "|---|---|---|---|---|"]
    for name in METRICS:
        b, a = speeds["before"][name], speeds["after"][name]
        lines.append(f"| {name} | {b['rows_per_s']} | {a['rows_per_s']} | {b['judge_pairs_per_row']} | {a['judge_pairs_per_row']} |")
    lines += ["", "Rows each figure reads wrong (after):", ""]
    wrong = _wrong_rows(per_row)
    lines += [f"- {k}: {', '.join(v) or 'none'}" for k, v in wrong.items()]
    table = "\n".join(lines)
    print(table)
    m = describe_machine()
    command = command_line("python benchmarks/realistic.py", argv)
    write_results(args.output, {"machine": m, "rows": len(rows), "figures": figures, "speed": speeds,
                                "wrong_after": wrong, "per_row": per_row},
                  f"# Realistic rows: scores against a person's labels\n\nMeasured {m['date_utc']} on {m['cpu']} "
                  f"({m['cpu_cores']} cores), torch {m['torch']}. Command: `{command}`. {len(rows)} hand-written "
                  f"rows (benchmarks/data/README.md); {DESCRIBED[args.compare]} Shares ± binomial standard "
                  "error.\n\n" + table + "\n")
    return 0


DESCRIBED = {
    "pieced": "before: claims judged whole (`pieced=False`), after: the default (a claim no single unit supports "
              "is judged by its atomic parts, and faithfulness and factual correctness count parts).",
    "check_contexts": "before: factual correctness judged by the reference alone (`check_contexts=False`), after: "
                      "the default (a response claim the reference does not support is judged against the "
                      "retrieved contexts: supported there it counts, supported nowhere it caps the score at 0.5); "
                      "faithfulness and context recall are the same in both.",
}


def _wrong_rows(per_row: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"faithfulness": [], "context recall": [], "factual correctness (correct)": [],
                                 "factual correctness (false)": []}
    for r in per_row:
        lab, s = r["labels"], r["after"]
        if s["faithfulness"] is not None and (s["faithfulness"] == 1.0) != lab["faithful"]:
            out["faithfulness"].append(f"{r['id']} ({r['kind']}, {s['faithfulness']:.2f})")
        if lab["reference_in_contexts"] and s["context_recall"] is not None and s["context_recall"] != 1.0:
            out["context recall"].append(f"{r['id']} ({r['kind']}, {s['context_recall']:.2f})")
        fc = s["factual_correctness"]
        if fc is not None and lab["answer_correct"] and fc < 0.6:
            out["factual correctness (correct)"].append(f"{r['id']} ({fc:.2f})")
        if fc is not None and lab["states_false"] and fc > 0.5:
            out["factual correctness (false)"].append(f"{r['id']} ({fc:.2f})")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
