"""The time a row spends outside the judge, this code against a copy of earlier code, in turns.

    git worktree add ../before <commit>      # or: git archive <commit> | tar -x -C DIR
    python benchmarks/text_side.py --base ../before [--rows 100] [--rounds 3] [--breakdown]
        [--metrics context_recall] [--output benchmarks/results/text_side.json]

A change to the text side (splitting, windows, parses, contrast rules) should cut the time
around the judge without changing a score. On a shared machine two runs minutes apart differ
by more than such a change, so both codes run here in turns, each round one fresh process of
each, on the same `bulk_speed` rows in the same number format: per code, the median of its
rounds of milliseconds per row in all, inside the judge (tokenizing, padding, the model), and
outside it, with the session's stages (`localeval.runner.profile`), and whether its scores
are identical to the base's (they must be for a change that only makes the text side faster).
Each process scores a few other rows first, so loading the judge and spaCy is not timed.

``--breakdown`` then runs each code once more under py-spy (a sampling profiler in its own
process: a tracing profiler slows the text side's many small functions several-fold, and a
sampling thread inside the process only sees the stack when the GIL is let go, so it misses
pure-Python loops) and splits the timed call's wall time into parts: the judge's model, its
tokenizing, spaCy, reading parses, language detection, sentence splitting, token counts,
windows, the contrast rules, the rest (`BUCKETS`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bulk_speed import PROFILE_SEED, make_rows  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

# Run in a fresh process whose `localeval` is the tree under test (its folder first on the path).
_CHILD = """
import json, sys, time
from localeval import evaluate
from localeval.judge.session import JudgeSession
from localeval.options import RunOptions

rows_file, metrics, dtype, batch = sys.argv[1], sys.argv[2].split(","), sys.argv[3], int(sys.argv[4])
rows = [json.loads(line) for line in open(rows_file, encoding="utf-8")]
warm, timed = rows[:5], rows[5:]
with JudgeSession(RunOptions(batch_size=batch, dtype=dtype)) as session:
    evaluate(warm, metrics, session=session, show_progress=False)
start = time.perf_counter()
with JudgeSession(RunOptions(batch_size=batch, dtype=dtype)) as session:
    result = evaluate(timed, metrics, session=session, show_progress=False)  # the timed call
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "stages": session.timings.seconds,
                  "scores": [[row.results[m].score for m in metrics] for row in result.rows]}))
"""


_TIMED_LINE = next(i for i, line in enumerate(_CHILD.splitlines(), 1) if "# the timed call" in line)


def run_once(tree: Path, rows_file: Path, metrics: list[str], dtype: str, batch: int,
             spy: Path | None = None) -> dict:
    """One fresh process of the code in ``tree``; with ``spy``, under py-spy, its raw stacks
    written there."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-c", _CHILD, str(rows_file), ",".join(metrics), dtype, str(batch)]
    if spy is not None:
        command = ["py-spy", "record", "--rate", str(SPY_RATE), "--format", "raw", "--output", str(spy), "--", *command]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the run in {tree.name} failed:\n{done.stderr[-3000:]}")
    return json.loads(next(line for line in reversed(done.stdout.splitlines()) if line.startswith("{")))


SPY_RATE = 200
"""py-spy's samples per second in ``--breakdown`` runs."""

BUCKETS: list[tuple[str, tuple[str, ...]]] = [
    ("judge: the model", ("judge/nli.py:NLIJudge._forward",)),
    ("judge: tokenizing, padding, cache", ("judge/session.py:JudgeSession.predict",)),
    ("spaCy's pipeline (parse, tags, lemmas)", ("spacy/language.py:Language.pipe", "spacy/language.py:Language.__call__")),
    ("reading parses (facts, roles, tags)", ("text/roles.py:_parsed",)),
    ("atomic parts' rules", ("text/atoms.py:_parts_of", "text/atoms.py:parse_claims")),
    ("language detection", ("text/language.py:_detect",)),
    ("sentence splitting (Punkt)", ("text/sentences.py:split_sentences",)),
    ("token counts for windows", ("judge/spans.py:span_counter", "judge/nli.py:NLIJudge.count_tokens")),
    ("windows and units", ("evidence/attribution.py:_units",)),
    ("contrast rules without a parse", ("text/contrast_rules.py:contrast_many", "text/contrast_rules.py:contrast",
                                        "text/contrast_rules.py:confirmation")),
]
"""Where a sampled stack's time goes: the first part one of whose functions is on the stack
(the judge first, spaCy's own work before what reads its parses); the rest is "other"."""

_FRAME = re.compile(r"^(?P<name>.*) \((?P<path>.*?):\d+\)$")


def _frame(text: str) -> str:
    """py-spy's ``"name (path/to/file.py:line)"`` as ``"to/file.py:name"`` (no machine's path)."""
    match = _FRAME.match(text)
    if match is None:
        return text
    return "/".join(match["path"].replace("\\", "/").rsplit("/", 2)[-2:]) + ":" + match["name"]


def breakdown(spy: Path, seconds: float, rows: int) -> dict[str, float]:
    """ms per row per part, from py-spy's raw stacks of one run: the samples of the timed call
    (the warm-up left out), scaled to its wall time."""
    counts = {name: 0 for name, _ in BUCKETS} | {"other": 0}
    timed = f"(<string>:{_TIMED_LINE})"
    for line in spy.read_text(encoding="utf-8").splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if not frames or not frames[0].endswith(timed):
            continue
        names = {_frame(f) for f in frames}
        part = next((name for name, functions in BUCKETS if not names.isdisjoint(functions)), "other")
        counts[part] += int(n)
    total = sum(counts.values()) or 1
    return {name: round(1000 * seconds * n / total / rows, 2) for name, n in counts.items()}


def summary(runs: list[dict], rows: int, base_scores: list | None) -> dict:
    """Medians over rounds, in ms per row."""
    def ms(values: list[float]) -> float:
        return round(1000 * statistics.median(values) / rows, 2)

    total = [r["seconds"] for r in runs]
    judge = [r["stages"]["judge"] for r in runs]
    stages = {name: ms([r["stages"].get(name, 0.0) for r in runs]) for name in runs[0]["stages"]}
    return {"total_ms": ms(total), "judge_ms": ms(judge), "outside_ms": ms([t - j for t, j in zip(total, judge)]),
            "outside_share": round(statistics.median((t - j) / t for t, j in zip(total, judge)), 3),
            "stages_ms": stages, "rounds_total_ms": [round(1000 * t / rows, 2) for t in total],
            "same_scores_as_base": None if base_scores is None else all(r["scores"] == base_scores for r in runs)}


def _table(result: dict) -> str:
    lines = ["| code | total ms/row | judge ms/row | outside ms/row | outside share | split | parse | plan | metric | scores as base |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name in ("base", "this"):
        s = result[name]
        same = "—" if s["same_scores_as_base"] is None else ("yes" if s["same_scores_as_base"] else "**no**")
        st = s["stages_ms"]
        lines.append(f"| {name} | {s['total_ms']} | {s['judge_ms']} | {s['outside_ms']} | {s['outside_share']} | "
                     f"{st.get('split', 0)} | {st.get('parse', 0)} | {st.get('plan', 0)} | {st.get('metric', 0)} | {same} |")
    return "\n".join(lines)


def _parts_table(parts: dict[str, dict[str, float]]) -> str:
    lines = [f"Sampled runs (one more of each code under py-spy, {SPY_RATE} stacks a second, native time counted against "
             "the Python function that called it), ms per row. Each column is one run, its wall time shared out by "
             "samples: the machine's load in that run moves all its parts together, so compare parts within a column "
             "and the columns only where the judge's own row agrees:",
             "", "| part | base | this |", "|---|---|---|"]
    for name in parts["base"]:
        lines.append(f"| {name} | {parts['base'][name]} | {parts['this'][name]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="a folder holding the earlier code (a worktree)")
    parser.add_argument("--rows", type=int, default=100, help="rows timed per run (5 more warm each process up)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--metrics", default="context_recall")
    parser.add_argument("--precision", default="bf16", help="judge number format")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--breakdown", action="store_true",
                        help="then one more run of each code under py-spy (pip install py-spy): ms per row by part")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/text_side.json")
    args = parser.parse_args(argv)
    base = args.base.resolve()
    if not (base / "localeval").is_dir():
        parser.error(f"--base must hold the code (a localeval folder); {args.base} does not")
    if args.breakdown and shutil.which("py-spy") is None:
        parser.error("--breakdown samples the runs with py-spy: pip install py-spy")
    metrics = args.metrics.split(",")
    rows = make_rows(args.rows + 5, seed=PROFILE_SEED)
    machine = describe_machine()
    load_before = os.getloadavg()
    runs: dict[str, list[dict]] = {"base": [], "this": []}
    with tempfile.TemporaryDirectory() as tmp:
        rows_file = Path(tmp) / "rows.jsonl"
        rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        for k in range(args.rounds):
            for name, tree in (("base", base), ("this", REPO_ROOT)):
                runs[name].append(run_once(tree, rows_file, metrics, args.precision, args.batch_size))
                print(f"round {k + 1} {name}: {1000 * runs[name][-1]['seconds'] / args.rows:.1f} ms/row",
                      file=sys.stderr, flush=True)
        parts: dict[str, dict[str, float]] = {}
        for name, tree in (("base", base), ("this", REPO_ROOT)) if args.breakdown else ():
            spy = Path(tmp) / f"{name}.spy"
            parts[name] = breakdown(spy, run_once(tree, rows_file, metrics, args.precision, args.batch_size, spy)["seconds"],
                                    args.rows)
    base_scores = runs["base"][0]["scores"]
    result = {"machine": machine, "command": command_line("python benchmarks/text_side.py", sys.argv[1:] if argv is None else argv),
              "rows": args.rows, "rounds": args.rounds, "metrics": metrics, "precision": args.precision,
              "load_average_before_after": [list(load_before), list(os.getloadavg())],
              "base_consistent": all(r["scores"] == base_scores for r in runs["base"]),
              "base": summary(runs["base"], args.rows, None), "this": summary(runs["this"], args.rows, base_scores)}
    result["outside_ratio"] = round(result["this"]["outside_ms"] / max(result["base"]["outside_ms"], 1e-9), 3)
    result["total_ratio"] = round(result["this"]["total_ms"] / max(result["base"]["total_ms"], 1e-9), 3)
    result["breakdown_ms"] = parts
    table = _table(result) + ("\n\n" + _parts_table(parts) if parts else "")
    print(table)
    markdown = "\n".join([
        "# The time a row spends outside the judge: this code against a base, in turns", "",
        f"Measured {machine['date_utc']} on {machine['cpu']} ({machine['cpu_cores']} cores), torch {machine['torch']}, "
        f"{args.precision}, judge batch {args.batch_size}; {args.rows} `bulk_speed` rows ({', '.join(metrics)}), "
        f"{args.rounds} rounds, each a fresh process of each code in turn; medians of the rounds. Load average (1, 5, 15 "
        f"min) before {[round(x, 2) for x in result['load_average_before_after'][0]]}, after "
        f"{[round(x, 2) for x in result['load_average_before_after'][1]]}. "
        f"Command: `{result['command']}`.", "",
        table, "",
        f"Outside the judge, this / base: **{result['outside_ratio']}**; in all: {result['total_ratio']}. "
        f"Stages in ms per row (`localeval.runner.profile`); the judge's time is the judge stage. "
        f"Rounds in all, base: {result['base']['rounds_total_ms']}; this: {result['this']['rounds_total_ms']}.",
    ])
    write_results(args.output, result, markdown)


if __name__ == "__main__":
    main()
