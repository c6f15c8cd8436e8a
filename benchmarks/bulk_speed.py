"""Bulk scoring speed: the dataset runner against a naive per-row loop, and a cached re-run.

Workload (synthetic, deterministic, built from the sentence templates below): per row, 5
retrieved chunks of ~120 words, a 3-sentence reference (two sentences taken from the chunks,
one not), a 2-sentence answer. Metrics: context recall, chunk recall, context relevance.

Measured in one run, so the ratios compare like with like:

* runner: `localeval.evaluate` over N rows (rows/s, judge pairs/s, judge FLOP/s), per size;
* naive: ``metric.score(row)`` row by row, metric by metric, over the first M rows, against the
  runner on the same M rows;
* cached re-run: the same `evaluate` call again with the SQLite verdict cache filled (verdicts
  and text analyses), in this process and in a new one.

Peak RSS is the process maximum (``ru_maxrss``). Run:
``python benchmarks/bulk_speed.py [--rows 200[,1000,...]] [--naive-rows 40] [--device cpu]
[--precision bf16] [--profile]``. ``--profile`` adds ms per row by stage (read, split, parse,
plan, judge, metric, write: the session's public timers) and judge pairs per row (its
counters), on as many rows as the first size, rows of their own that no earlier run of the
process scored, without a cache and re-run with a filled cache file. On the GPU machine: ``--rows 1000,10000,100000 --device cuda``; judge
FLOP/s are reported against the H100's dense bf16 peak there.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402
from localeval.options import DEFAULT_BLOCK_SIZE  # noqa: E402

METRICS = ["context_recall", "chunk_recall", "context_relevance"]

PEOPLE = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie", "Nikola Tesla", "Rosalind Franklin"]
PLACES = ["London", "Paris", "Vienna", "Boston", "Geneva", "Lisbon", "Oslo", "Kyoto"]
THINGS = ["the observatory", "the library", "the bridge", "the museum", "the power station", "the harbour"]
TEMPLATES = [
    "{p} visited {t} in {c} in {y}.",
    "The construction of {t} in {c} was completed in {y}.",
    "In {y}, {p} gave a lecture about {t} to an audience in {c}.",
    "{t} in {c} attracted more than {n} visitors in {y}.",
    "Engineers in {c} repaired {t} after a storm in {y}.",
    "{p} wrote a letter from {c} describing {t}.",
    "The city council of {c} voted to expand {t} in {y}.",
    "Local newspapers in {c} reported on {t} for {n} days.",
]


def _sentence(rng: random.Random) -> str:
    text = rng.choice(TEMPLATES).format(
        p=rng.choice(PEOPLE), t=rng.choice(THINGS), c=rng.choice(PLACES), y=rng.randint(1850, 2020), n=rng.randint(2, 900) * 100
    )
    return text[0].upper() + text[1:]


PROFILE_SEED = 29
"""Seed of the rows ``--profile`` scores: not the rows the speed runs scored."""


def make_rows(n: int, seed: int = 13) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        chunks = [" ".join(_sentence(rng) for _ in range(10)) for _ in range(5)]  # ~120 words each
        picked = [rng.choice(chunks[0].split(". ")), rng.choice(chunks[2].split(". "))]
        reference = " ".join(s.rstrip(".") + "." for s in picked) + " " + _sentence(rng)
        answer = picked[0].rstrip(".") + ". " + _sentence(rng)
        question = f"What happened at {rng.choice(THINGS)} in {rng.choice(PLACES)}?"
        rows.append({"id": i, "user_input": question, "reference": reference, "response": answer, "retrieved_contexts": chunks})
    return rows


class Measured:
    """One timed `evaluate` call and what its session's public counters and timers say the
    judge did: pairs sent to the model, seconds inside the model call (tokenizing, padding,
    forward passes; the results are copied to the host, so a GPU's work is finished), FLOPs
    from the tokens of those pairs."""

    def __init__(self, seconds: float, session, judge, scores: list[list] | None = None) -> None:
        from benchmarks.lib.flops import encoder_flops_from_sums

        cfg = judge.model.config
        self.seconds = seconds
        self.scores = scores or []
        """Each row's score per metric (``None``: unscored), in input order."""
        self.pairs = session.counters.pairs_judged
        self.judge_seconds = session.timings.seconds["judge"]
        self.flops = encoder_flops_from_sums(session.counters.tokens_judged, session.counters.tokens_judged_squared,
                                             layers=cfg.num_hidden_layers, hidden=cfg.hidden_size,
                                             intermediate=cfg.intermediate_size)

    @property
    def pairs_per_s(self) -> float:
        return self.pairs / max(self.judge_seconds, 1e-9)

    @property
    def flop_per_s(self) -> float:
        return self.flops / max(self.judge_seconds, 1e-9)


def measured(rows: list[dict], metrics: list[str], judge, batch: int, cache: Path | None = None,
             workers: int = 1, block: int = DEFAULT_BLOCK_SIZE) -> Measured:
    """`evaluate` over ``rows`` in a `JudgeSession` of our own (opening and closing it, cache
    file included, is timed with the run, as in a plain ``evaluate`` call), the text side in
    ``workers`` processes, ``block`` rows to a block (what one worker scores at a time)."""
    from localeval import evaluate
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions

    start = time.perf_counter()
    with JudgeSession(RunOptions(model=judge, batch_size=batch, cache=cache, block_size=block)) as session:
        result = evaluate(rows, metrics, session=session, show_progress=False, workers=workers)
    seconds = time.perf_counter() - start
    # `evaluate` keys each row's results by metric name, whether given a name or a metric object.
    names = [m if isinstance(m, str) else m.name for m in metrics]
    scores = [[row.results[m].score for m in names] for row in result.rows]
    return Measured(seconds, session, judge, scores)


def worker_runs(rows: list[dict], judge, batch: int, counts: list[int], block: int = DEFAULT_BLOCK_SIZE) -> list[dict]:
    """The three metrics and context recall alone with each worker count: rows/s, the share of
    the wall time the judge was busy, and the largest score difference from one worker (0.0:
    identical; fp32 verdicts do not depend on their batch, bf16 ones by ~1e-3)."""
    out = []
    for metrics, label in ((METRICS, "three metrics"), (["context_recall"], "context_recall")):
        base: list[list] | None = None
        for workers in counts:
            meas = measured(rows, metrics, judge, batch, workers=workers, block=block)
            base = base if base is not None else meas.scores
            diffs = [abs(a - b) for ra, rb in zip(base, meas.scores) for a, b in zip(ra, rb)
                     if a is not None and b is not None]
            same_unscored = all((a is None) == (b is None) for ra, rb in zip(base, meas.scores) for a, b in zip(ra, rb))
            out.append({"metrics": label, "workers": workers, "rows": len(rows), "seconds": round(meas.seconds, 1),
                        "rows_per_s": round(len(rows) / meas.seconds, 2),
                        "judge_busy_share": round(meas.judge_seconds / meas.seconds, 3),
                        "judge_pairs": meas.pairs,
                        "max_abs_score_diff_vs_first": round(max(diffs, default=0.0), 6),
                        "identical_to_first": same_unscored and meas.scores == base})
            print(f"{label}, {workers} workers: {out[-1]['rows_per_s']} rows/s, judge busy "
                  f"{out[-1]['judge_busy_share']}", file=sys.stderr, flush=True)
    return out


def _workers_table(runs: list[dict]) -> str:
    lines = ["| metrics | workers | rows | rows/s | judge busy share | judge pairs | identical to 1 worker | max score diff |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['metrics']} | {r['workers']} | {r['rows']} | {r['rows_per_s']} | {r['judge_busy_share']} | "
                     f"{r['judge_pairs']} | {'yes' if r['identical_to_first'] else 'no'} | {r['max_abs_score_diff_vs_first']} |")
    return "Text side in worker processes, one judge process (`--workers`):\n\n" + "\n".join(lines)


def profile_run(rows: list[dict], judge, batch: int, cache: Path | None = None, workers: int = 1,
                block: int = DEFAULT_BLOCK_SIZE) -> dict:
    """One run of `score_dataset` (what ``localeval score`` runs) from a JSON Lines file to
    one, in a session of our own, profiled as ``localeval score --profile`` profiles it
    (`localeval.runner.profile.stage_profile`): ms per row per stage, judge pairs per row."""
    import json

    from benchmarks.lib.flops import encoder_flops_from_sums
    from localeval.judge.session import JudgeSession
    from localeval.options import RunOptions
    from localeval.runner.evaluate import score_dataset
    from localeval.runner.profile import stage_profile

    options = RunOptions(model=judge, batch_size=batch, cache=cache, block_size=block)
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "rows.jsonl", Path(tmp) / "scored.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in rows))
        start = time.perf_counter()
        with JudgeSession(options) as session:
            score_dataset(source, METRICS, target, session=session, show_progress=False, workers=workers)
        seconds = time.perf_counter() - start
    profile = stage_profile(session, seconds, len(rows))
    counters = session.counters
    cfg = judge.model.config
    flops = encoder_flops_from_sums(counters.tokens_judged, counters.tokens_judged_squared,
                                    layers=cfg.num_hidden_layers, hidden=cfg.hidden_size,
                                    intermediate=cfg.intermediate_size)
    judge_s = session.timings.seconds["judge"]
    return {"rows": profile.rows, "cached": cache is not None, "workers": workers, "seconds": round(seconds, 2),
            "ms_per_row": profile.ms_per_row,
            "judge_tflop_per_s": round(flops / judge_s / 1e12, 3) if judge_s else 0.0,
            "non_judge_ms_per_row": profile.non_judge_ms_per_row,
            "judge_pairs_per_row": profile.judge_pairs_per_row,
            "pairs_requested_per_row": profile.pairs_requested_per_row,
            "cache_hits_per_row": profile.cache_hits_per_row,
            "analyses_loaded": session.analyses.loaded, "analyses_saved": session.analyses.saved}


def _profile_table(profiles: list[dict]) -> str:
    from localeval.judge.session import STAGES

    head = ["run", *STAGES, "other", "non-judge", "judge pairs/row", "pairs asked/row"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for p in profiles:
        ms = p["ms_per_row"]
        name = f"{p['rows']} rows, " + ("cache file, filled" if p["cached"] else "no cache") \
            + (f", {p['workers']} workers" if p.get("workers", 1) > 1 else "")
        lines.append(f"| {name} | " + " | ".join(str(ms[s]) for s in (*STAGES, "other"))
                     + f" | {p['non_judge_ms_per_row']} | {p['judge_pairs_per_row']} | {p['pairs_requested_per_row']} |")
    return "ms per row by stage (the session's timers):\n\n" + "\n".join(lines)


_RERUN = """
import json, sys, time
sys.path.insert(0, {root!r})
from benchmarks.bulk_speed import METRICS, make_rows
from localeval import evaluate
from localeval.judge import get_judge
judge = get_judge({model!r}, device={device!r}, precision={precision!r})
rows = make_rows({n})
start = time.perf_counter()
evaluate(rows, METRICS, model=judge, batch_size={batch}, cache={cache!r}, show_progress=False)
print(json.dumps(time.perf_counter() - start))
"""


def rerun_in_new_process(n: int, cache: Path, args: argparse.Namespace, batch: int) -> float:
    """Seconds of `evaluate` over the first ``n`` rows with the filled ``cache``, in a fresh
    Python process (the judge's loading is not counted)."""
    import json
    import subprocess

    code = _RERUN.format(root=str(REPO_ROOT), model=args.model, device=args.device, precision=args.precision,
                         n=n, batch=batch, cache=str(cache))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _sizes(text: str) -> list[int]:
    sizes = [int(x) for x in text.split(",") if x.strip()]
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("--rows takes positive row counts, e.g. 1000,10000")
    return sizes


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=_sizes, default=[200], help="row counts to run, comma-separated (e.g. 1000,10000,100000)")
    parser.add_argument("--naive-rows", type=int, default=40)
    add_judge(parser)
    parser.add_argument("--device", default=None)
    parser.add_argument("--precision", default=None, help="judge number format (auto, fp32, bf16, fp16)")
    parser.add_argument("--batch-size", type=int, default=None, help="judge batch (default: the runner's: 32 CPU, 128 CUDA)")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/bulk_speed.json")
    parser.add_argument("--pieced-compare", action="store_true",
                        help="only compare the claim metrics with and without support pieced together from "
                             "atomic parts (localeval.metrics.pieced), on the first size; writes bulk_speed_pieced.*")
    parser.add_argument("--profile", action="store_true",
                        help="also time each stage per row (read, split, parse, plan, judge, metric, write) "
                             "on the first size, without and with a filled cache file")
    parser.add_argument("--workers", type=_sizes, default=None,
                        help="also compare these worker counts (e.g. 1,2) on the first size: three metrics and "
                             "context recall alone, rows/s, judge busy share, scores against the first count")
    parser.add_argument("--block-size", type=int, default=DEFAULT_BLOCK_SIZE,
                        help="rows to a block in the --workers runs and profiles (a worker scores a block at a "
                             "time: with many workers, a smaller block keeps them all busy)")
    parser.add_argument("--only-workers", action="store_true", help="run the --workers comparison (and --profile) only")
    args = parser.parse_args(argv)

    from localeval.judge import get_judge
    from localeval.metrics import get_metric

    if args.only_workers:
        return _only_workers(args, argv)

    start = time.perf_counter()
    judge = get_judge(args.model, device=args.device, precision=args.precision)
    load_s = time.perf_counter() - start
    on_gpu = judge.device.type == "cuda"
    batch = args.batch_size or (128 if on_gpu else 32)

    if args.pieced_compare:
        return pieced_compare(make_rows(args.rows[0]), judge, batch, args, argv)

    runs = []
    for n in args.rows:
        meas = measured(make_rows(n), METRICS, judge, batch)
        run = {"rows": n, "seconds": round(meas.seconds, 1), "rows_per_s": round(n / meas.seconds, 2),
               "judge_pairs": meas.pairs, "judge_seconds": round(meas.judge_seconds, 1),
               "judge_pairs_per_s": round(meas.pairs_per_s, 1),
               "judge_share_of_time": round(meas.judge_seconds / meas.seconds, 3),
               "judge_tflop_per_s": round(meas.flop_per_s / 1e12, 3),
               "peak_rss_mb_so_far": _peak_rss_mb()}
        if on_gpu:
            from benchmarks.lib.flops import H100_DENSE_BF16_PEAK

            run["share_of_h100_peak"] = round(meas.flop_per_s / H100_DENSE_BF16_PEAK, 4)
        runs.append(run)
        print(f"{n} rows: {run['rows_per_s']} rows/s, {run['judge_pairs_per_s']} judge pairs/s", file=sys.stderr, flush=True)

    first = make_rows(args.rows[0])
    # Each metric alone on the first size: the targets are per metric (context recall's).
    per_metric = []
    for name in METRICS:
        meas = measured(first, [name], judge, batch)
        per_metric.append({"metric": name, "rows": len(first), "seconds": round(meas.seconds, 1),
                           "rows_per_s": round(len(first) / meas.seconds, 2),
                           "judge_pairs_per_row": round(meas.pairs / len(first), 1),
                           "judge_pairs_per_s": round(meas.pairs_per_s, 1)})
        print(f"{name} alone: {per_metric[-1]['rows_per_s']} rows/s", file=sys.stderr, flush=True)

    # Naive loop: one row, one metric at a time, on the first rows.
    metrics = [get_metric(name, model=judge, batch_size=batch) for name in METRICS]
    start = time.perf_counter()
    for row in first[: args.naive_rows]:
        for metric in metrics:
            metric.score(row)
    naive_s = time.perf_counter() - start
    runner_same_s = measured(first[: args.naive_rows], METRICS, judge, batch).seconds

    # Cached re-run of the first size.
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "verdicts.sqlite"
        first_cached_s = measured(first, METRICS, judge, batch, cache).seconds
        # Each run has its own JudgeSession: a re-run keeps nothing but the verdict file, as
        # a new process would.
        rerun_s = measured(first, METRICS, judge, batch, cache).seconds
        # And in a new process for real: module-level memos (content words, detected
        # languages) start empty and NLTK / spaCy's word lists are imported on the way, as
        # they are for a user's second run. Loading the judge is not timed.
        new_process_s = rerun_in_new_process(len(first), cache, args, batch)

    workers = worker_runs(first, judge, batch, args.workers, args.block_size) if args.workers else []
    profiles: list[dict] = []
    if args.profile:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "verdicts.sqlite"
            # Rows of their own, not ``first``: a profile must not depend on what the runs
            # above scored (memos were once process-wide and made it time their hits).
            rows = make_rows(len(first), seed=PROFILE_SEED)
            profiles.append(profile_run(rows, judge, batch))
            profile_run(rows, judge, batch, cache)  # fills the file
            profiles.append(profile_run(rows, judge, batch, cache))
        print(_profile_table(profiles), file=sys.stderr, flush=True)

    naive_rps = args.naive_rows / naive_s
    runner_same_rps = args.naive_rows / runner_same_s
    result = {
        "machine": describe_machine(),
        "device": judge.device.type,
        "dtype": str(judge.dtype).replace("torch.", ""),
        "batch_size": batch,
        "workload": {"metrics": METRICS, "chunks_per_row": 5, "words_per_chunk": "~120",
                     "reference_sentences": 3, "answer_sentences": 2},
        "model_load_s": round(load_s, 2),
        "runs": runs,
        "per_metric": per_metric,
        "naive_loop": {"rows": args.naive_rows, "seconds": round(naive_s, 1), "rows_per_s": round(naive_rps, 2)},
        "runner_same_rows": {"rows": args.naive_rows, "seconds": round(runner_same_s, 1), "rows_per_s": round(runner_same_rps, 2)},
        "runner_vs_naive": round(runner_same_rps / naive_rps, 2),
        "cached": {"rows": args.rows[0], "first_run_s": round(first_cached_s, 1), "rerun_s": round(rerun_s, 2),
                   "speedup": round(first_cached_s / rerun_s, 1),
                   "rerun_new_process_s": round(new_process_s, 2),
                   "speedup_new_process": round(first_cached_s / new_process_s, 1)},
        "peak_rss_mb": _peak_rss_mb(),
    }
    if profiles:
        result["profile"] = profiles
    if workers:
        result["workers"] = workers
    m = result["machine"]
    where = (f"{m['gpu']['name']}" if on_gpu and m["gpu"] else f"{m['cpu']}, {m['torch_threads']} threads")
    lines = [
        "| rows | seconds | rows/s | judge pairs | judge pairs/s | judge share of time | judge TFLOP/s |"
        + (" share of H100 peak |" if on_gpu else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if on_gpu else ""),
    ]
    for r in runs:
        lines.append(f"| {r['rows']} | {r['seconds']} | {r['rows_per_s']} | {r['judge_pairs']} | {r['judge_pairs_per_s']} | "
                     f"{r['judge_share_of_time']} | {r['judge_tflop_per_s']} |" + (f" {r['share_of_h100_peak']} |" if on_gpu else ""))
    lines += [
        "",
        f"Each metric alone ({args.rows[0]} rows):",
        "",
        "| metric | rows/s | judge pairs per row | judge pairs/s |",
        "|---|---|---|---|",
        *(f"| {r['metric']} | {r['rows_per_s']} | {r['judge_pairs_per_row']} | {r['judge_pairs_per_s']} |" for r in per_metric),
        "",
        "| measure | value |",
        "|---|---|",
        f"| device | {judge.device.type}, {result['dtype']}, batch {batch} ({where}) |",
        f"| naive per-row loop: rows/s ({args.naive_rows} rows) | {result['naive_loop']['rows_per_s']} |",
        f"| runner on the same rows: rows/s | {result['runner_same_rows']['rows_per_s']} |",
        f"| runner / naive | {result['runner_vs_naive']}x |",
        f"| cached re-run speed-up ({args.rows[0]} rows) | {result['cached']['speedup']}x ({result['cached']['rerun_s']} s) |",
        f"| cached re-run in a new process | {result['cached']['speedup_new_process']}x "
        f"({result['cached']['rerun_new_process_s']} s) |",
        f"| peak RSS (whole process) | {result['peak_rss_mb']} MB |",
        f"| model load | {result['model_load_s']} s |",
    ]
    if profiles:
        lines += ["", _profile_table(profiles)]
    if workers:
        lines += ["", _workers_table(workers)]
    table = "\n".join(lines)
    print(table)
    command = command_line("python benchmarks/bulk_speed.py", argv)
    write_results(args.output, result,
        f"# Bulk scoring speed\n\nMeasured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores), "
        f"torch {m['torch']}, GPU: {(m['gpu'] or {}).get('name', 'none')}. Command: `{command}`.\n\n"
        "Judge FLOPs are counted on each pair's real length (benchmarks/lib/flops.py); judge seconds are the "
        "time inside the judge's scorer (tokenizing, padding and the model), the rest is splitting, "
        "windowing and the metrics.\n\n"
        f"{table}\n"
    )
    return 0


def _only_workers(args: argparse.Namespace, argv: list[str]) -> int:
    """``--only-workers``: the worker comparison (and, with ``--profile``, a profile per worker
    count) on the first size, nothing else: what a short session on a shared machine can run."""
    from localeval.judge import get_judge

    judge = get_judge(args.model, device=args.device, precision=args.precision)
    batch = args.batch_size or (128 if judge.device.type == "cuda" else 32)
    counts = args.workers or [1, 2]
    rows = make_rows(args.rows[0])
    measured(make_rows(4, seed=5), ["context_recall"], judge, batch)  # warm-up: first batches, lazy imports
    workers = worker_runs(rows, judge, batch, counts, args.block_size)
    profiles = [profile_run(make_rows(args.rows[0], seed=PROFILE_SEED), judge, batch, workers=w, block=args.block_size)
                for w in counts] \
        if args.profile else []
    m = describe_machine()
    result = {"machine": m, "device": judge.device.type, "dtype": str(judge.dtype).replace("torch.", ""),
              "batch_size": batch, "block_size": args.block_size, "workers": workers, "profile": profiles}
    table = _workers_table(workers) + ("\n\n" + _profile_table(profiles) if profiles else "")
    print(table)
    command = command_line("python benchmarks/bulk_speed.py", argv)
    where = (m["gpu"] or {}).get("name") if judge.device.type == "cuda" else f"{m['cpu']} ({m['cpu_cores']} cores)"
    write_results(args.output, result,
                  f"# Bulk scoring speed: worker processes\n\nMeasured {m['date_utc']} on {where}, torch {m['torch']}, "
                  f"{result['dtype']}, judge batch {batch}, block {args.block_size}. Command: `{command}`.\n\n{table}\n")
    return 0


PIECED_METRICS = ("context_recall", "faithfulness", "factual_correctness")


def pieced_compare(rows: list[dict], judge, batch: int, args: argparse.Namespace, argv: list[str]) -> int:
    """Rows/s and judge pairs per row of the claim metrics without ("before") and with ("after")
    support pieced together, on the same rows in one process, alternating twice so that a
    busy machine slows both alike; the faster of the two runs of each is reported."""
    from localeval.metrics import get_metric

    table: dict[str, dict[str, dict]] = {}
    for _ in range(2):
        for name in PIECED_METRICS:
            for label, pieced in (("before", False), ("after", True)):
                metric = get_metric(name, model=judge, batch_size=batch, pieced=pieced)
                meas = measured(rows, [metric], judge, batch)
                run = {"rows_per_s": round(len(rows) / meas.seconds, 2),
                       "judge_pairs_per_row": round(meas.pairs / len(rows), 2)}
                best = table.setdefault(name, {}).get(label)
                if best is None or run["rows_per_s"] > best["rows_per_s"]:
                    table[name][label] = run
    lines = ["| metric | rows/s before | rows/s after | change | judge pairs/row before | after |",
             "|---|---|---|---|---|---|"]
    for name, runs in table.items():
        b, a = runs["before"], runs["after"]
        change = 100 * (a["rows_per_s"] / b["rows_per_s"] - 1)
        lines.append(f"| {name} | {b['rows_per_s']} | {a['rows_per_s']} | {change:+.1f} % | "
                     f"{b['judge_pairs_per_row']} | {a['judge_pairs_per_row']} |")
    text = "\n".join(lines)
    print(text)
    m = describe_machine()
    output = args.output.with_name("bulk_speed_pieced.json")
    command = command_line("python benchmarks/bulk_speed.py", argv)
    write_results(output, {"machine": m, "rows": len(rows), "batch_size": batch, "metrics": table},
                  f"# Claim metrics with and without pieced support\n\nMeasured {m['date_utc']} on {m['cpu']} "
                  f"({m['cpu_cores']} cores), torch {m['torch']}. Command: `{command}`. {len(rows)} rows of the bulk "
                  "workload (this file's module docstring); before: `pieced=False`, after: the default (a claim no "
                  "single unit supports is judged by its atomic parts). Each figure is the faster of two "
                  "alternating runs.\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
