"""Resident memory of a long local run against the rows it has scored: flat, because rows are
read, scored and written one chunk at a time and the session forgets each chunk's verdicts
and memos.

Workload: the bulk benchmark's synthetic rows (`benchmarks.bulk_speed.make_rows`: a question,
an answer, a reference and five ~120-word chunks a row), written as a JSON Lines file and
scored by `localeval.score_dataset` -- what ``localeval score`` runs -- with the shipped judge
on CPU, the output streamed to a JSON Lines file and, by default, a verdict cache file (the
bulk user's setting). The run is in a fresh process (``--child``), so the curve starts from an
empty heap.

Sampled every second: the process's resident memory (``/proc``, through psutil) and the rows
written so far. Reported: RSS after the judge is loaded (before the first row), at every
tenth of the run, its peak, and the growth from the first tenth to the end (a leak would grow
with the rows; a flat curve does not). Run:
``python benchmarks/memory_curve.py [--rows 20000] [--metrics context_recall]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

LIMIT_MB = 1536.0  # the ceiling the scoring core is held to (1.5 GB)


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _lines(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def child(rows: int, metrics: list[str], chunk_size: int, precision: str | None, cache: bool,
          model: str | None = None) -> dict:
    """One run in this (fresh) process: the RSS curve against rows written."""
    from benchmarks.bulk_speed import make_rows
    from localeval.runner.evaluate import score_dataset
    from localeval.judge import get_judge

    with tempfile.TemporaryDirectory() as tmp:
        source, output = Path(tmp) / "rows.jsonl", Path(tmp) / "scored.jsonl"
        with open(source, "w", encoding="utf-8") as handle:
            for row in make_rows(rows):
                handle.write(json.dumps(row) + "\n")
        judge = get_judge(model, precision=precision)
        loaded = _rss_mb()
        samples: list[tuple[float, int, float]] = []  # (seconds, rows written, RSS MB)
        stop = threading.Event()
        start = time.perf_counter()

        def sample() -> None:
            while not stop.wait(1.0):
                samples.append((time.perf_counter() - start, _lines(output), _rss_mb()))

        watcher = threading.Thread(target=sample, daemon=True)
        watcher.start()
        try:
            summary = score_dataset(str(source), metrics, str(output), model=judge, chunk_size=chunk_size,
                                    cache=str(Path(tmp) / "verdicts.sqlite") if cache else None,
                                    show_progress=False)
        finally:
            stop.set()
            watcher.join()
        seconds = time.perf_counter() - start
        samples.append((seconds, _lines(output), _rss_mb()))
        return {"rows": rows, "rows_scored": summary.rows, "seconds": round(seconds, 1),
                "rss_after_load_mb": round(loaded, 1), "samples": [(round(t, 1), n, round(m, 1)) for t, n, m in samples]}


def curve(run: dict, points: int = 10) -> list[dict]:
    """RSS at each ``1/points`` of the rows (the first sample at or past it)."""
    out = []
    for k in range(1, points + 1):
        wanted = run["rows"] * k // points
        hit = next((s for s in run["samples"] if s[1] >= wanted), run["samples"][-1])
        out.append({"rows_written": hit[1], "seconds": hit[0], "rss_mb": hit[2]})
    return out


def thinned(samples: list, keep: int = 200) -> list:
    """At most ``keep`` samples, evenly spaced, the last and the peak always among them (the
    result file stays small; the curve's shape is kept)."""
    if len(samples) <= keep:
        return samples
    step = len(samples) / keep
    picked = {int(i * step) for i in range(keep)} | {len(samples) - 1,
                                                     max(range(len(samples)), key=lambda i: samples[i][2])}
    return [samples[i] for i in sorted(picked)]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--metrics", default="context_recall", help="comma-separated metric names")
    parser.add_argument("--chunk-size", type=int, default=None, help="default: the runner's")
    parser.add_argument("--precision", default="bf16")
    add_judge(parser)
    parser.add_argument("--no-cache", action="store_true", help="no verdict cache file")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/memory_curve.json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rows < 10:
        parser.error("--rows must be at least 10")
    from localeval.options import DEFAULT_CHUNK_SIZE

    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    if args.child:
        print(json.dumps(child(args.rows, metrics, chunk_size, args.precision, not args.no_cache, args.model)))
        return 0
    cmd = [sys.executable, __file__, "--child", "--rows", str(args.rows), "--metrics", ",".join(metrics),
           "--chunk-size", str(chunk_size), "--precision", args.precision] + (["--no-cache"] if args.no_cache else []) \
        + (["--model", args.model] if args.model else [])
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    if done.returncode != 0:
        print(done.stderr[-4000:], file=sys.stderr)
        return done.returncode
    run = json.loads(done.stdout.strip().splitlines()[-1])
    points = curve(run)
    first = points[0]["rss_mb"]
    peak = max(s[2] for s in run["samples"])
    result = {
        "machine": describe_machine(),
        "command": command_line("benchmarks/memory_curve.py", argv),
        "metrics": metrics, "chunk_size": chunk_size, "precision": args.precision, "cache_file": not args.no_cache,
        **{k: run[k] for k in ("rows", "rows_scored", "seconds", "rss_after_load_mb")},
        "rows_per_s": round(run["rows"] / run["seconds"], 2),
        "curve": points,
        "peak_rss_mb": peak,
        "growth_first_tenth_to_end_mb": round(points[-1]["rss_mb"] - first, 1),
        "within_limit": peak <= LIMIT_MB,
        "samples": thinned(run["samples"]),
    }
    lines = [
        "# Memory of a long local run against rows scored",
        "",
        f"Measured {result['machine']['date_utc']} on {result['machine']['cpu']} ({result['machine']['cpu_cores']} cores), "
        f"torch {result['machine']['torch']}, GPU: none. Command: `{result['command']}`.",
        "",
        f"{run['rows']} synthetic rows (`benchmarks.bulk_speed.make_rows`), metrics {', '.join(metrics)}, chunk size "
        f"{chunk_size}, judge in {args.precision} on CPU, verdict cache file: {'yes' if result['cache_file'] else 'no'}; "
        f"scored by `score_dataset` (what `localeval score` runs) in a fresh process, output streamed to JSON Lines. "
        f"{run['seconds']} s ({result['rows_per_s']} rows/s). RSS sampled every second.",
        "",
        "| rows written | seconds | RSS (MB) |",
        "|---:|---:|---:|",
        f"| 0 (judge loaded) | 0 | {run['rss_after_load_mb']} |",
        *(f"| {p['rows_written']} | {p['seconds']} | {p['rss_mb']} |" for p in points),
        "",
        f"Peak RSS {peak} MB (limit {LIMIT_MB:.0f} MB: {'within' if result['within_limit'] else 'OVER'}); growth from "
        f"the first tenth of the rows to the end: {result['growth_first_tenth_to_end_mb']:+} MB.",
    ]
    write_results(args.output, result, "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
