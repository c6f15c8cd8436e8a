"""Long contexts: time and memory of scoring one row whose context has 10k to 100k words.

What localeval promises (docs/guarantees.md): a long context is read in full, in sentence-
aligned windows, with memory bounded and time linear in its length. This measures it: one
row, context recall, the default judge on the CPU. The context is built from the sentence
templates of `bulk_speed` up to the word count; the reference has three claims, one stated
near the start of the context, one near its end (so a truncating reader would miss it) and one
stated nowhere, so the expected score is 2/3.

Each size runs in a fresh process (``--same-process`` for a quick check), which first scores
a short row (model, tokenizer, Punkt and spaCy loaded and warm), then the long one:

* seconds: wall time of `localeval.evaluate` on the long row;
* s per 1k words: seconds / (words / 1000); flat across sizes means linear time;
* RSS growth: peak RSS while scoring minus RSS before it (``ru_maxrss``; in one process for
  all sizes the peak of an earlier size can hide a smaller growth);
* judge pairs: unique (window or sentence, claim) pairs the model scored.

Run: ``python benchmarks/long_context.py [--sizes 10000,25000,50000,100000] [--device cpu]``;
results go to ``benchmarks/results/long_context.{json,md}``.

``--relevance`` measures context relevance (sentence level) on realistic passages instead:
RAGBench validation rows (real retrieved documents, from ``$LOCALEVAL_DATA_DIR/meta-eval``)
whose contexts hold about 600 judge tokens together (``--tokens``, +-100), every row scored
with the screen (`localeval.evidence.candidates.relevance_screen`, the default) and without it
(``screen=False``: every sentence judged). Seconds per row are wall time of `evaluate` on those
rows, batched (all rows in one call) and one row per call, the best of ``--repeats`` runs
alternating the two settings (the machine may be shared: the best run is the least disturbed),
each with a fresh in-memory verdict memo. Also the sentences per row, the share the screen
decided, and whether the two settings agree on every relevant sentence. Results go to
``benchmarks/results/long_context_relevance.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bulk_speed import _sentence  # noqa: E402
from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402

DEFAULT_SIZES = (10_000, 25_000, 50_000, 100_000)
FIRST = "The observatory in Reykjavik was opened by the physicist Lise Meitner in 1931."
LAST = "The lighthouse in Valparaiso was painted green by the engineer Hedy Lamarr in 1952."
ABSENT = "The aquarium in Tallinn was closed by the mayor for repairs in 1977."


def make_row(words: int, seed: int = 7) -> dict:
    """A row whose context has ``words`` words (give or take a sentence)."""
    rng = random.Random(seed)
    sentences = [FIRST]
    count = len(FIRST.split()) + len(LAST.split())
    while count < words:
        sentence = _sentence(rng)
        sentences.append(sentence)
        count += len(sentence.split())
    sentences.append(LAST)
    return {
        "user_input": "Which buildings were opened, painted or closed, and by whom?",
        "reference": f"{FIRST} {LAST} {ABSENT}",
        "retrieved_contexts": [" ".join(sentences)],
    }


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _current_rss_mb() -> float:
    try:  # resident set now (not the peak): /proc/self/statm, in pages
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return _rss_mb()


def measure(words: int, model: str | None, device: str) -> dict:
    """Score one row of ``words`` context words in this process; return the figures."""
    from localeval.judge import get_judge
    from localeval.judge.session import JudgeSession
    from localeval.metrics import ContextRecall

    judge = get_judge(model, device=device)
    metric = ContextRecall(judge)
    with JudgeSession() as warm:  # warm-up: loads, kernels
        metric.score_many([make_row(200, seed=1)], session=warm)

    row = make_row(words)
    before = _current_rss_mb()
    start = time.perf_counter()
    # A fresh session, as a new run has: its counters say how many pairs reached the model.
    with JudgeSession() as session:
        result = metric.score_many([row], session=session)[0]
    seconds = time.perf_counter() - start
    pairs = [session.counters.pairs_judged]
    n_words = len(row["retrieved_contexts"][0].split())
    return {
        "words": n_words,
        "characters": len(row["retrieved_contexts"][0]),
        "seconds": round(seconds, 2),
        "s_per_1k_words": round(seconds / (n_words / 1000), 3),
        "rss_growth_mb": round(max(_rss_mb() - before, 0.0), 1),
        "judge_pairs": pairs[0],
        "score": result.score,
        "attributed": [c.attributed for c in result.claims],
        "judge": judge.name,
        "device": judge.device.type,
        "weights_sha256": weights_sha256(judge.path),
    }


def relevance_rows(data: Path, tokens: int, n: int, count_tokens) -> list[dict]:
    """Up to ``n`` RAGBench validation rows whose contexts hold ``tokens`` +-100 judge tokens."""
    from benchmarks.agreement import ragbench

    picked = []
    for subset in ragbench.SUBSETS:
        rows, _ = ragbench.load_ragbench(data, {subset: None})[subset]
        for r in sorted(rows, key=lambda r: r.id):
            if abs(sum(count_tokens(c) for c in r.contexts) - tokens) <= 100:
                picked.append(r.sample())
    # Spread over the subsets, deterministically: every k-th row of the pooled list.
    step = max(1, len(picked) // n)
    return picked[::step][:n]


def measure_relevance(data: Path, tokens: int, n: int, repeats: int, model: str | None, device: str) -> dict:
    from localeval import evaluate
    from localeval.judge import get_judge
    from localeval.metrics import ContextRelevance

    judge = get_judge(model, device=device)
    rows = relevance_rows(data, tokens, n, judge.count_tokens)
    metrics = {"screen": ContextRelevance(judge), "every sentence": ContextRelevance(judge, screen=False)}
    evaluate(rows[:2], [metrics["screen"]], show_progress=False)  # warm-up: loads, kernels
    best: dict[tuple[str, str], float] = {}
    results = {}
    for _ in range(repeats):
        for name, metric in metrics.items():
            start = time.perf_counter()
            results[name] = evaluate(rows, [metric], show_progress=False).results("context_relevance")
            best[(name, "batched")] = min(best.get((name, "batched"), 1e9), time.perf_counter() - start)
            start = time.perf_counter()
            for row in rows:
                evaluate([row], [metric], show_progress=False)
            best[(name, "per row")] = min(best.get((name, "per row"), 1e9), time.perf_counter() - start)
    sentences = sum(len(r.sentences) for r in results["screen"])
    screened = sum(bool(s.screened) for r in results["screen"] for s in r.sentences)
    lost = sum(1 for a, b in zip(results["screen"], results["every sentence"])
               for x, y in zip(a.sentences, b.sentences) if y.relevant and not x.relevant)
    return {
        "rows": len(rows),
        "tokens_per_row": round(sum(judge.count_tokens(" ".join(r["retrieved_contexts"])) for r in rows) / len(rows), 1),
        "sentences_per_row": round(sentences / len(rows), 1),
        "screened_share": round(screened / sentences, 4),
        "relevant_sentences_lost_to_the_screen": lost,
        "scores_equal_rows": sum(a.score == b.score for a, b in zip(results["screen"], results["every sentence"])),
        "s_per_row": {f"{name}, {mode}": round(sec / len(rows), 3) for (name, mode), sec in best.items()},
        "judge": judge.name, "device": judge.device.type, "weights_sha256": weights_sha256(judge.path),
    }


def _relevance_main(args) -> int:
    result = measure_relevance(args.data, args.tokens, args.rows, args.repeats, args.model, args.device)
    machine = describe_machine()
    result = {"machine": machine, "metric": "context_relevance", **result}
    times = "\n".join(f"| {k} | {v} |" for k, v in result["s_per_row"].items())
    report = (
        f"# Long contexts: context relevance on ~{args.tokens}-token passages\n\n"
        f"Measured {machine['date_utc']} on {machine['cpu']} ({machine['cpu_cores']} cores, "
        f"{machine['torch_threads']} torch threads; the machine was shared with other jobs, so the best of "
        f"{args.repeats} runs is given), torch {machine['torch']}, device {result['device']}, judge "
        f"`{result['judge']}`. Command: `python benchmarks/long_context.py --relevance --tokens {args.tokens} "
        f"--rows {args.rows} --repeats {args.repeats}`.\n\n"
        f"{result['rows']} RAGBench validation rows, {result['tokens_per_row']} judge tokens and "
        f"{result['sentences_per_row']} sentences per row on average. The screen decided "
        f"{100 * result['screened_share']:.1f} % of the sentences without the judge; relevant sentences (by the "
        f"judge, every sentence judged) that the screen dropped: {result['relevant_sentences_lost_to_the_screen']}; "
        f"rows with the same score both ways: {result['scores_equal_rows']}/{result['rows']}.\n\n"
        f"| setting | seconds per row |\n|---|---:|\n{times}\n"
    )
    write_results(args.output or REPO_ROOT / "benchmarks/results/long_context_relevance.json", result, report)
    print(report)
    return 0


def _in_fresh_process(words: int, model: str | None, device: str) -> dict:
    command = [sys.executable, __file__, "--worker", str(words), "--device", device]
    if model:
        command += ["--model", model]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"size {words} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _table(rows: list[dict]) -> str:
    lines = ["| words | seconds | s / 1k words | RSS growth (MB) | judge pairs | score | claims attributed |",
             "|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['words']:,} | {r['seconds']} | {r['s_per_1k_words']} | {r['rss_growth_mb']} | "
                     f"{r['judge_pairs']:,} | {r['score'] if r['score'] is None else round(r['score'], 3)} | "
                     f"{', '.join('yes' if a else 'no' for a in r['attributed'])} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="context sizes in words")
    add_judge(parser)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--same-process", action="store_true", help="all sizes in this process (quick check)")
    parser.add_argument("--output", type=Path, default=None,
                        help="default: benchmarks/results/long_context.json (--relevance: long_context_relevance.json)")
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--relevance", action="store_true", help="context relevance on ~600-token passages")
    parser.add_argument("--tokens", type=int, default=600, help="--relevance: judge tokens per row")
    parser.add_argument("--rows", type=int, default=30, help="--relevance: rows")
    parser.add_argument("--repeats", type=int, default=2, help="--relevance: runs of each setting")
    add_data_dir(parser, flag="--data", sub="meta-eval", help="--relevance: the meta-eval folder")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.relevance:
        return _relevance_main(args)
    args.output = args.output or REPO_ROOT / "benchmarks/results/long_context.json"

    if args.worker is not None:  # one size, in this (fresh) process: JSON on stdout
        print(json.dumps(measure(args.worker, args.model, args.device)))
        return 0

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    run = measure if args.same_process else _in_fresh_process
    rows = []
    for words in sizes:
        rows.append(run(words, args.model, args.device))
        print(f"{rows[-1]['words']:>7} words: {rows[-1]['seconds']} s, {rows[-1]['rss_growth_mb']} MB", file=sys.stderr)
    first, last = rows[0], rows[-1]
    machine = describe_machine()
    result = {
        "machine": machine,
        "judge": first["judge"],
        "weights_sha256": first["weights_sha256"],
        "device": first["device"],
        "metric": "context_recall",
        "fresh_process_per_size": not args.same_process,
        "rows": [{k: v for k, v in r.items() if k not in ("judge", "weights_sha256", "device")} for r in rows],
        # 1.0 = perfectly linear from the smallest size to the largest.
        "s_per_1k_words_ratio_last_first": round(last["s_per_1k_words"] / first["s_per_1k_words"], 2),
    }
    table = _table(rows)
    print(table)
    print(f"s / 1k words, largest vs smallest: {result['s_per_1k_words_ratio_last_first']}x")
    write_results(args.output, result,
        f"# Long contexts: one row, context recall\n\nMeasured {machine['date_utc']} on {machine['cpu']} "
        f"({machine['cpu_cores']} cores, {machine['torch_threads']} torch threads), torch {machine['torch']}, "
        f"device {result['device']}, judge `{result['judge']}`. Each size in a fresh process: "
        f"{result['fresh_process_per_size']}. Command: `python benchmarks/long_context.py --sizes {args.sizes}`.\n\n"
        f"{table}\n\nSeconds per 1k words, largest size vs smallest: "
        f"{result['s_per_1k_words_ratio_last_first']}x (1.0 = linear). The expected score is 2/3: "
        "the claims stated at the start and at the very end of the context are found, the third "
        "is stated nowhere.\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
