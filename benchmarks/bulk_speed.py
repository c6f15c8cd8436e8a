"""Bulk scoring speed: the dataset runner against a naive per-row loop, and a cached re-run.

Workload (synthetic, deterministic, built from the sentence templates below): per row, 5
retrieved chunks of ~120 words, a 3-sentence reference (two sentences taken from the chunks,
one not), a 2-sentence answer. Metrics: context recall, chunk recall, context relevance.

Measured in one run, so the ratios compare like with like:

* runner: `localeval.evaluate` over N rows (rows/s, judge pairs/s);
* naive: ``metric.score(row)`` row by row, metric by metric, over the first M rows;
* cached re-run: the same `evaluate` call again with the SQLite verdict cache filled.

Peak RSS is the process maximum (``ru_maxrss``). Run:
``python benchmarks/bulk_speed.py [--rows 200] [--naive-rows 40] [--device cpu]``.
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

from benchmarks.files import write_results  # noqa: E402
from benchmarks.machine import describe_machine  # noqa: E402

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


def _count_pairs(judge) -> list[int]:
    """Counts the unique pairs the judge's model actually scores (wraps its private scorer)."""
    counter = [0]
    original = judge._score_unique

    def counting(pairs, *args, **kwargs):
        counter[0] += len(pairs)
        return original(pairs, *args, **kwargs)

    judge._score_unique = counting
    return counter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--naive-rows", type=int, default=40)
    parser.add_argument("--device", default=None)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/bulk_speed.json")
    args = parser.parse_args(argv)

    from localeval import evaluate
    from localeval.backends import get_judge
    from localeval.metrics import get_metric

    start = time.perf_counter()
    judge = get_judge(None, device=args.device)
    load_s = time.perf_counter() - start
    pairs = _count_pairs(judge)
    rows = make_rows(args.rows)

    # Runner over all rows.
    start = time.perf_counter()
    evaluate(rows, METRICS, model=judge, show_progress=False)
    runner_s = time.perf_counter() - start
    runner_pairs = pairs[0]

    # Naive loop: one row, one metric at a time, on the first rows.
    metrics = [get_metric(name, model=judge) for name in METRICS]
    pairs[0] = 0
    start = time.perf_counter()
    for row in rows[: args.naive_rows]:
        for metric in metrics:
            metric.score(row)
    naive_s = time.perf_counter() - start

    # Cached re-run.
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "verdicts.sqlite"
        start = time.perf_counter()
        evaluate(rows, METRICS, model=judge, cache=cache, show_progress=False)
        first_cached_s = time.perf_counter() - start
        start = time.perf_counter()
        evaluate(rows, METRICS, model=judge, cache=cache, show_progress=False)
        rerun_s = time.perf_counter() - start

    runner_rps = args.rows / runner_s
    naive_rps = args.naive_rows / naive_s
    result = {
        "machine": describe_machine(),
        "device": judge.device.type,
        "workload": {"rows": args.rows, "naive_rows": args.naive_rows, "metrics": METRICS,
                     "chunks_per_row": 5, "words_per_chunk": "~120", "reference_sentences": 3, "answer_sentences": 2},
        "model_load_s": round(load_s, 2),
        "runner": {"seconds": round(runner_s, 1), "rows_per_s": round(runner_rps, 2),
                   "judge_pairs": runner_pairs, "judge_pairs_per_s": round(runner_pairs / runner_s, 1)},
        "naive_loop": {"seconds": round(naive_s, 1), "rows_per_s": round(naive_rps, 2)},
        "runner_vs_naive": round(runner_rps / naive_rps, 2),
        "cached": {"first_run_s": round(first_cached_s, 1), "rerun_s": round(rerun_s, 2),
                   "speedup": round(first_cached_s / rerun_s, 1)},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    table = "\n".join([
        "| measure | value |",
        "|---|---|",
        f"| device | {result['device']} ({result['machine']['cpu']}, {result['machine']['torch_threads']} threads) |",
        f"| runner: rows/s ({args.rows} rows, 3 metrics) | {result['runner']['rows_per_s']} |",
        f"| runner: judge pairs/s | {result['runner']['judge_pairs_per_s']} ({runner_pairs} unique pairs) |",
        f"| naive per-row loop: rows/s ({args.naive_rows} rows) | {result['naive_loop']['rows_per_s']} |",
        f"| runner / naive | {result['runner_vs_naive']}x |",
        f"| cached re-run speed-up | {result['cached']['speedup']}x ({result['cached']['rerun_s']} s) |",
        f"| peak RSS | {result['peak_rss_mb']} MB |",
        f"| model load | {result['model_load_s']} s |",
    ])
    print(table)
    write_results(args.output, result,
        f"# Bulk scoring speed\n\nMeasured {result['machine']['date_utc']} on {result['machine']['cpu']} "
        f"({result['machine']['cpu_cores']} cores), torch {result['machine']['torch']}, "
        f"GPU: {result['machine']['gpu'] or 'none'}. Command: `python benchmarks/bulk_speed.py "
        f"--rows {args.rows} --naive-rows {args.naive_rows}`.\n\n{table}\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
