"""The judge alone on its device: what a batch costs, by batch size and copy mode, idle or
beside busy cores.

    python benchmarks/studies/judge_gpu.py [--device cuda] [--rows 200] [--batch-sizes 128,256,512] [--busy 15]

On one H200 with 15 workers the judge process spent ~140 us per pair on a full machine (75 us
on a short run) while the GPU's arithmetic ran at ~10 TFLOP/s (benchmarks/results/gpu_session,
run 2). This study replays the judge requests a run makes (`bulk_speed`'s rows, each request
tokenized up front as a worker sends it) through `NLIJudge.score_distinct` and separates:

* **the model alone**: the batches padded and on the device beforehand, only the forward
  passes timed (the device's work and the kernel launches);
* **the judge process's whole path**: padding, the copy to the device, the forward passes and
  the read-back, with the copy from ordinary memory (`pinned` off: the copy waits for the
  batches queued before it) and from page-locked memory without waiting (`pinned` on);
* **the same beside busy cores**: ``--busy N`` processes spinning on the CPU, as N workers
  keep a machine's cores busy, which slows the one thread that launches the judge's kernels;
* **the requests merged**: every request of a task joined into one stream before batching, the
  model alone and the judge's path. The judge serves each worker's request alone, so that a
  verdict's last bits never depend on another worker's pairs; a request is often smaller than
  a batch (run 4: 24 pairs on average), and a forward pass costs about the same for 24 pairs as
  for 128, so this is what batching across workers would gain, and the merged path's difference
  from the request-by-request probabilities what it would cost in exactness;
* **requests with gaps** (``--gap-ms G``, at the first batch size): each request synchronized
  and timed alone, back to back and then G ms apart, as one worker's text work leaves the device idle between its
  requests. Run 4's one-worker profile spent 4x the judge time per row of its 15-worker profile
  on the same requests; a device that slows down when idle would show it here.

Every configuration's probabilities are compared with the first of the same batch size
(copy modes must agree bit for bit). Results: ``benchmarks/results/judge_gpu.json`` / ``.md``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, publish, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402
from benchmarks.studies.judge_time import capture_pairs  # noqa: E402


def _sync(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _spin(stop) -> None:  # a busy core, as a worker keeps one
    while not stop.is_set():
        sum(range(1000))


class Busy:
    """``n`` processes spinning on the CPU for the duration of a ``with`` block."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.stop = mp.get_context("fork").Event()
        self.procs: list = []

    def __enter__(self) -> Busy:
        ctx = mp.get_context("fork")
        self.procs = [ctx.Process(target=_spin, args=(self.stop,), daemon=True) for _ in range(self.n)]
        for proc in self.procs:
            proc.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()


def requests_of(judge, captured: list[tuple[list, str]]) -> list[tuple[list, str, list]]:
    """Each captured call as a worker sends it: the pairs, the task and their token ids."""
    return [(pairs, task, judge.encode(pairs, task)) for pairs, task in captured if pairs]


def _one(judge, task: str):
    """The judge that reads ``task`` (a pair of judges routes each task to one of them)."""
    return judge.for_task(task) if hasattr(judge, "for_task") else judge


def _pin(judge, requests, pinned: bool) -> None:
    for _, task, _ in requests:
        _one(judge, task).pinned = pinned


def merged(judge, requests):
    """The requests of each task joined into one, in order (a task's pairs go to one judge)."""
    tasks: dict[str, list] = {}
    for pairs, task, _ in requests:
        tasks.setdefault(task, []).extend(pairs)
    return [(pairs, task, judge.encode(pairs, task)) for task, pairs in tasks.items()]


def replay(judge, requests, batch: int, pinned: bool, repeats: int, gap_s: float | None = None):
    """Seconds (best of ``repeats``) to judge every request through the judge's own path, and
    the probabilities of the last repeat, request by request. With ``gap_s``, each request is
    synchronized and timed alone after a pause of ``gap_s`` (the pauses not counted)."""
    from localeval.judge.nli import ScoringState

    _pin(judge, requests, pinned)
    best, probs = float("inf"), []
    for _ in range(repeats):
        _sync(judge.device)
        start, paused = time.perf_counter(), 0.0
        probs = []
        for pairs, task, encoded in requests:
            if gap_s is not None:
                _sync(judge.device)
                rest = time.perf_counter()
                time.sleep(gap_s)
                paused += time.perf_counter() - rest
            probs.append(judge.score_distinct(pairs, task, batch_size=batch, state=ScoringState(), encoded=encoded))
        _sync(judge.device)
        best = min(best, time.perf_counter() - start - paused)
    return best, probs


def model_alone(judge, requests, batch: int, repeats: int) -> tuple[float, int]:
    """Seconds (best of ``repeats``) of the forward passes alone, the batches padded and on the
    device beforehand (sorted by length, as the judge batches them), and the batch count."""
    import torch

    from localeval.judge.nli import to_device

    batches = []
    for _, task, encoded in requests:
        one = _one(judge, task)
        columns = one._task_columns(task)
        for packed in encoded:
            lengths = packed.lengths()
            order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
            for start in range(0, len(order), batch):
                batches.append((one, to_device(one.pad_batch(packed, order[start:start + batch]), one.device), columns))
    best = float("inf")
    with torch.inference_mode():
        for _ in range(repeats):
            _sync(judge.device)
            start = time.perf_counter()
            for one, features, columns in batches:
                one.format.probabilities(one.format.logits(one.model, features), columns)
            _sync(judge.device)
            best = min(best, time.perf_counter() - start)
    return best, len(batches)


def _same(a: list, b: list) -> float:
    import numpy as np

    return max((float(np.abs(x - y).max()) for x, y in zip(a, b) if x.size), default=0.0)


def _by_task(requests, probs: list) -> list:
    """Request-by-request probabilities joined per task, in the order `merged` joins them."""
    import numpy as np

    tasks: dict[str, list] = {}
    for (_, task, _), p in zip(requests, probs):
        tasks.setdefault(task, []).append(p)
    return [np.concatenate(parts) for parts in tasks.values()]


def _run(batch: int, path: str, pinned: bool | None, busy: int, batches: int, seconds: float, pairs: int,
         diff: float | None) -> dict:
    return {"batch_size": batch, "path": path, "pinned": pinned, "busy_cores": busy, "batches": batches,
            "seconds": round(seconds, 4), "pairs_per_s": round(pairs / seconds, 1),
            "us_per_batch": round(seconds / batches * 1e6, 1), "max_diff_vs_unpinned": diff}


def _done(runs: list[dict], save: Callable[[list[dict]], None] | None) -> None:
    r = runs[-1]
    copy = "" if r["pinned"] is None else f", pinned {r['pinned']}"
    print(f"batch {r['batch_size']}, {r['path']}{copy}, busy {r['busy_cores']}: {r['pairs_per_s']} pairs/s, "
          f"{r['us_per_batch']} us per batch", flush=True)
    if save:
        save(runs)


def measure(judge, requests, batch_sizes: list[int], busy: int, repeats: int,
            save: Callable[[list[dict]], None] | None = None, gap_ms: float = 0.0) -> list[dict]:
    """Every configuration, one after another; ``save`` gets the runs so far after each, so a
    study stopped by its time limit (a device call's step) still leaves what it measured."""
    pairs = sum(len(p) for p, _, _ in requests)
    cuda = judge.device.type == "cuda"
    modes = [False, True] if cuda else [False]
    joined = merged(judge, requests)
    runs = []
    for batch in batch_sizes:
        replay(judge, requests, batch, False, 1)  # warm: the device's first batches of this size
        seconds, batches = model_alone(judge, requests, batch, repeats)
        runs.append(_run(batch, "model alone", None, 0, batches, seconds, pairs, None))
        _done(runs, save)
        reference = None
        for spinning in sorted({0, busy}):
            for pinned in modes:
                with Busy(spinning):
                    seconds, probs = replay(judge, requests, batch, pinned, repeats)
                reference = reference if reference is not None else probs
                runs.append(_run(batch, "judge process", pinned, spinning, batches, seconds, pairs,
                                 _same(probs, reference)))
                _done(runs, save)
        # Batching across requests: its speed, and how far its verdicts move from the ones each
        # request gets alone (the difference is against those, not against another copy mode).
        seconds, fewer = model_alone(judge, joined, batch, repeats)
        runs.append(_run(batch, "model alone, requests merged", None, 0, fewer, seconds, pairs, None))
        _done(runs, save)
        seconds, probs = replay(judge, joined, batch, cuda, repeats)
        runs.append(_run(batch, "judge process, requests merged", cuda, 0, fewer, seconds, pairs,
                         _same(probs, _by_task(requests, reference))))
        _done(runs, save)
        # Gaps at the first batch size only: the pauses are real time on a device's clock.
        for gap in ((0.0, gap_ms / 1000) if gap_ms > 0 and batch == batch_sizes[0] else ()):
            seconds, probs = replay(judge, requests, batch, cuda, repeats, gap_s=gap)
            runs.append(_run(batch, f"judge process, requests {gap * 1000:g} ms apart", cuda, 0, batches, seconds,
                             pairs, _same(probs, reference)))
            _done(runs, save)
    _pin(judge, requests, cuda)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_judge(parser, help="judge folder (default: the shipped judge)")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when there is one)")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--metrics", default="context_recall,chunk_recall,context_relevance")
    parser.add_argument("--batch-sizes", default="128,256,512")
    parser.add_argument("--busy", type=int, default=0, help="CPU-spinning processes beside the judge (0: none)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--gap-ms", type=float, default=0.0,
                        help="also time each request alone, back to back and this many ms apart, at the "
                             "first batch size (0: not)")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/judge_gpu.json")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)

    import torch

    from benchmarks.bulk_speed import PROFILE_SEED, make_rows
    from localeval.judge import get_judge

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    judge = get_judge(args.model, device=device, precision=args.precision)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    requests = requests_of(judge, capture_pairs(make_rows(args.rows, seed=PROFILE_SEED), metrics, judge))
    sizes = [int(b) for b in args.batch_sizes.split(",") if b.strip()]
    tokens = sum(sum(p.lengths()) for _, _, enc in requests for p in enc)
    pairs = sum(len(p) for p, _, _ in requests)
    result = {"machine": describe_machine(), "command": command_line("python benchmarks/studies/judge_gpu.py", argv),
              "device": str(judge.device), "dtype": str(next(judge.model.parameters()).dtype).replace("torch.", ""),
              "metrics": metrics, "rows": args.rows, "requests": len(requests), "pairs": pairs,
              "tokens_per_pair": round(tokens / max(1, pairs), 1), "torch_threads": torch.get_num_threads(),
              "complete": False, "runs": []}

    def save(runs: list[dict]) -> None:
        write_results(args.output, {**result, "runs": runs}, render({**result, "runs": runs}))

    result["runs"] = measure(judge, requests, sizes, args.busy, args.repeats, save, gap_ms=args.gap_ms)
    result["complete"] = True
    publish(args.output, result, render(result))
    return 0


def render(r: dict) -> str:
    m = r["machine"]
    where = m["gpu"]["name"] if r["device"].startswith("cuda") and m.get("gpu") else f"{m['cpu']} ({m['cpu_cores']} cores)"
    lines = [
        "# The judge alone on its device",
        "",
        f"Measured {m['date_utc']} on {where}, torch {m['torch']}, {r['dtype']}, {r['torch_threads']} torch threads. "
        f"Command: `{r['command']}`.",
        "",
        f"The judge requests of {r['rows']} `bulk_speed` rows scored by {', '.join(r['metrics'])}: {r['requests']} "
        f"requests, {r['pairs']} pairs, {r['tokens_per_pair']} tokens per pair, each request tokenized beforehand "
        "(as a worker sends it). Best of the repeats.",
        "",
        "| batch | path | pinned copy | busy cores | batches | pairs/s | us per batch | max diff vs first |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for x in r["runs"]:
        pinned = "-" if x["pinned"] is None else ("yes" if x["pinned"] else "no")
        diff = "-" if x["max_diff_vs_unpinned"] is None else x["max_diff_vs_unpinned"]
        lines.append(f"| {x['batch_size']} | {x['path']} | {pinned} | {x['busy_cores']} | {x['batches']} | "
                     f"{x['pairs_per_s']} | {x['us_per_batch']} | {diff} |")
    if not r.get("complete", True):
        lines += ["", f"**Stopped before the end** (its time limit): {len(r['runs'])} configurations measured."]
    lines += ["", "\"model alone\": forward passes on batches padded and moved beforehand; \"judge process\": "
              "`score_distinct` with the workers' token ids (padding, copy, model, read-back); \"requests "
              "merged\": each task's requests joined into one before batching (the difference is against the "
              "requests judged one by one); \"ms apart\": each request synchronized and timed alone, the "
              "pauses not counted.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
