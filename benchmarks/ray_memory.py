"""Driver memory of the Ray engine against the number of input rows: flat, because Ray Data
reads the file itself and the driver receives one scored chunk at a time.

Workload (synthetic, deterministic): a JSON Lines file of N rows, each with a question, an
answer, a reference, three retrieved chunks of ~60 words and their IDs (~1.6 kB a row), scored
with the ID-based ``retrieval`` metric (no judge: what is measured is the pipeline, not the
model). Each size runs in a fresh driver process (`--child`), on a local Ray instance, with
the output written to a JSON Lines file as ``localeval score`` does.

Measured per size: the driver's resident memory after Ray has started and localeval is
imported (baseline), its peak while the run reads, scores and writes every row (sampled every
50 ms, and ``ru_maxrss``), and the growth between them. Run:
``python benchmarks/ray_memory.py [--rows 2000,10000,20000] [--chunk-size 256]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.files import command_line, write_results  # noqa: E402

WORDS = ("river bridge harbour museum library station tower garden market theatre council archive "
         "engineer painter chemist author mayor pilot sailor built opened closed founded restored moved "
         "north south east west old new small large first last").split()


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def write_input(path: Path, rows: int, seed: int = 7) -> int:
    """``rows`` synthetic rows as JSON Lines; returns the file size in bytes."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(rows):
            ids = rng.sample(range(50), 3)
            handle.write(json.dumps({
                "id": f"r{i}", "user_input": _text(rng, 8) + "?", "response": _text(rng, 25),
                "reference": _text(rng, 25), "retrieved_contexts": [_text(rng, 60) for _ in ids],
                "retrieved_context_ids": [f"d{k}" for k in ids],
                "reference_context_ids": [f"d{k}" for k in rng.sample(range(50), 2)],
            }) + "\n")
    return path.stat().st_size


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def child(path: Path, chunk_size: int, actors: int | None) -> dict:
    """One run in this (fresh) driver process: baseline and peak RSS, seconds."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    from localeval.runner.evaluate import score_dataset

    ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
    baseline = _rss_mb()
    peak = baseline
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.05):
            peak = max(peak, _rss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "scored.jsonl"
        summary = score_dataset(str(path), ["retrieval"], str(out), engine="ray", chunk_size=chunk_size,
                                ray_actors=actors, show_progress=False)
        written = sum(1 for _ in open(out, encoding="utf-8"))
    seconds = time.perf_counter() - start
    stop.set()
    sampler.join()
    peak = max(peak, _rss_mb())
    ray.shutdown()
    return {"rows_scored": summary.rows, "rows_written": written, "seconds": round(seconds, 1),
            "baseline_rss_mb": round(baseline, 1), "peak_rss_mb": round(peak, 1),
            "growth_mb": round(peak - baseline, 1),
            "ru_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="2000,10000,20000", help="comma-separated input sizes")
    parser.add_argument("--chunk-size", type=int, default=256)
    parser.add_argument("--actors", type=int, default=None)
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/ray_memory.json")
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.chunk_size, args.actors)))
        return 0

    from benchmarks.lib.machine import describe_machine

    sizes = [int(n) for n in args.rows.split(",") if n.strip()]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"rows{n}.jsonl"
            size = write_input(path, n)
            command = [sys.executable, str(Path(__file__).resolve()), "--child", str(path),
                       "--chunk-size", str(args.chunk_size)] + (["--actors", str(args.actors)] if args.actors else [])
            done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT)
            if done.returncode != 0:
                raise RuntimeError(f"the {n}-row run failed:\n{done.stderr[-3000:]}")
            run = {"rows": n, "input_mb": round(size / 2**20, 1), **json.loads(done.stdout.strip().splitlines()[-1])}
            if run["rows_written"] != n or run["rows_scored"] != n:
                raise RuntimeError(f"{n} rows in, {run['rows_written']} written: a row was lost")
            runs.append(run)
            print(run, flush=True)

    machine = describe_machine()
    lines = ["| rows | input MB | seconds | driver RSS after start, MB | driver peak RSS, MB | growth, MB |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['rows']} | {r['input_mb']} | {r['seconds']} | {r['baseline_rss_mb']} | {r['peak_rss_mb']} | "
              f"{r['growth_mb']} |" for r in runs]
    table = "\n".join(lines)
    print(table)
    result = {"machine": machine, "metric": "retrieval", "chunk_size": args.chunk_size, "actors": args.actors,
              "workload": "synthetic JSON Lines, 3 chunks of ~60 words per row", "runs": runs}
    write_results(args.output, result,
        f"# Ray engine: driver memory against input rows\n\n"
        f"Measured {machine['date_utc']} on {machine['cpu']} ({machine['cpu_cores']} cores, shared with other "
        f"work), ray {_ray_version()}. Command: `{command_line('python benchmarks/ray_memory.py', argv)}`.\n\n"
        "Each size in a fresh driver on a local Ray instance, scored with `retrieval` (ID-based, no judge) "
        "and written to JSON Lines. Ray Data reads the file in a worker (localeval's readers); the driver "
        "receives one scored chunk at a time. RSS sampled every 50 ms; growth = peak minus the RSS once Ray "
        "has started. Rows/s are not the point here (actor start-up dominates at these sizes).\n\n"
        f"{table}\n")
    return 0


def _ray_version() -> str:
    import ray

    return ray.__version__


if __name__ == "__main__":
    raise SystemExit(main())
