"""Does a pair's probability depend on the pairs batched with it?

    python benchmarks/studies/padding_width.py [--rows 60] [--metrics context_recall] [--extra 8,32]

The judge sorts a request's pairs by length and pads each batch to its longest pair, so a
pair's padded width, and the shapes of the matrix products it goes through, depend on its
neighbours. Every speed lever that changes the shapes (batches padded to a few fixed widths
so kernels are reused or a GPU graph replayed, requests merged across workers, other batch
sizes) moves a pair into other company. This study measures how far that alone moves the
probabilities: the pairs a run of ``--metrics`` sends to the judge (`bulk_speed`'s rows, as
`judge_time.py` captures them) scored as the judge scores them, then with every batch padded
``extra`` tokens wider (masked: the same text), and each pair alone (a batch of one, no
padding); in fp32 and, where the CPU has it, in bf16. Only the numbers of one process are
compared: no timing.

Results: ``benchmarks/results/padding_width.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402


def widened(judge, extra: int):
    """``judge.pad_batch`` with every batch ``extra`` tokens wider (pad ids, attention 0)."""
    import torch

    plain = judge.pad_batch
    fill = {"input_ids": judge.tokenizer.pad_token_id, "attention_mask": 0,
            "token_type_ids": getattr(judge.tokenizer, "pad_token_type_id", 0)}

    def pad_batch(packed, batch_ids):
        features = plain(packed, batch_ids)
        if judge.tokenizer.padding_side == "left":
            return {k: torch.nn.functional.pad(v, (extra, 0), value=fill[k]) for k, v in features.items()}
        return {k: torch.nn.functional.pad(v, (0, extra), value=fill[k]) for k, v in features.items()}

    return pad_batch


def scores(judge, captured: list[tuple[list, str]], batch: int, extra: int = 0) -> np.ndarray:
    """Every captured pair's probabilities, request by request, as the judge scores them
    (``extra`` tokens of padding more per batch; ``batch`` 1: each pair alone)."""
    from localeval.judge.nli import ScoringState

    if extra:
        judge.pad_batch = widened(judge, extra)  # this judge only, until the scores are in
    try:
        state = ScoringState()
        return np.concatenate([judge.score_distinct(pairs, task, batch_size=batch, state=state)
                               for pairs, task in captured])
    finally:
        if extra:
            del judge.pad_batch  # the class's own again


def compare(base: np.ndarray, other: np.ndarray, threshold: float = 0.5) -> dict:
    """How far ``other`` is from ``base``: max and mean absolute difference over every
    probability, and the pairs whose first column (entailment / relevance) crosses ``threshold``."""
    diff = np.abs(base - other)
    flips = int(np.sum((base[:, 0] >= threshold) != (other[:, 0] >= threshold)))
    return {"max_abs_diff": float(diff.max()), "mean_abs_diff": float(diff.mean()),
            "bit_identical": bool(np.array_equal(base, other)), "verdicts_moved_at_0.5": flips}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_judge(p)
    p.add_argument("--rows", type=int, default=60)
    p.add_argument("--metrics", default="context_recall")
    p.add_argument("--extra", default="8,32", help="comma-separated widths of extra padding")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/padding_width.json")
    args = p.parse_args(argv)
    extras = [int(x) for x in args.extra.split(",") if x]

    from benchmarks.bulk_speed import make_rows
    from benchmarks.studies.judge_time import capture_pairs
    from localeval.judge.dtypes import cpu_has_native_bf16
    from localeval.judge.shared import get_judge

    rows = []
    captured = None
    # (bf16 only where the CPU has it: localeval refuses an emulated bf16 judge)
    for precision in ("fp32", "bf16") if cpu_has_native_bf16() else ("fp32",):
        judge = get_judge(args.model, device="cpu", precision=precision)
        if captured is None:
            captured = capture_pairs(make_rows(args.rows, seed=7), args.metrics.split(","), judge)
        base = scores(judge, captured, args.batch_size)
        for label, other in [*((f"each batch {e} tokens wider", scores(judge, captured, args.batch_size, e))
                               for e in extras), ("each pair alone (batch of 1)", scores(judge, captured, 1))]:
            rows.append({"precision": precision, "change": label, **compare(base, other)})
            print(precision, label, rows[-1])
    result = {"command": command_line("python benchmarks/studies/padding_width.py", argv),
              "machine": describe_machine(), "rows": args.rows, "metrics": args.metrics,
              "pairs": int(sum(len(p) for p, _ in captured)), "batch_size": args.batch_size, "comparisons": rows}
    publish(args.output, result, markdown(result))
    return 0


def markdown(result: dict) -> str:
    lines = ["# A pair's probability and the pairs batched with it", "",
             f"Measured {result['machine']['date_utc']} on {result['machine']['cpu']}. "
             f"Command: `{result['command']}`.", "",
             f"The {result['pairs']} pairs that {result['metrics']} sends the judge for {result['rows']} `bulk_speed` "
             f"rows, scored as the judge scores them (batches of {result['batch_size']}, sorted by length, padded to "
             "their longest pair), against the same pairs with each batch padded wider (masked padding: the same "
             "text) and each pair alone. Differences over every probability of every pair.", "",
             "| precision | change | bit-identical | max abs diff | mean abs diff | verdicts moved at 0.5 |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['precision']} | {r['change']} | {'yes' if r['bit_identical'] else 'no'} | "
              f"{r['max_abs_diff']:.2e} | {r['mean_abs_diff']:.2e} | {r['verdicts_moved_at_0.5']} |"
              for r in result["comparisons"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
